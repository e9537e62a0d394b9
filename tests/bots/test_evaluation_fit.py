"""`bench.evaluation_fit` scores an evaluation against recorded results: an even share scores
log 2 a position in two-player games, one that names the winner scores nothing, one that names
the loser is punished (decision 0043)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

import rules
from bench import evaluation_fit
from bots import heuristics

TERRAFEX = rules.catalog()["terrafex"]


def _decided(records):
    return [record for record in records if len(record["outcome"]["winners"]) == 1]


@pytest.fixture
def records():
    found = _decided(evaluation_fit.kept_records("terrafex"))[:6]
    assert len(found) == 6
    return found


def _scored(monkeypatch, records, evaluate):
    monkeypatch.setattr(heuristics, "for_rules", lambda rules_id: SimpleNamespace(evaluate=evaluate))
    return evaluation_fit.fit(TERRAFEX, records)


def test_an_even_share_scores_log_2(monkeypatch, records):
    found = _scored(monkeypatch, records, lambda game, state: [0.5, 0.5])
    assert found["games"] == 6 and found["positions"] > 300
    assert math.isclose(found["cross_entropy"], math.log(2))


def test_knowing_the_winner_scores_nothing_and_naming_the_loser_scores_badly(monkeypatch, records):
    winners = {record["seed"]: record["outcome"]["winners"][0] for record in records}
    def knows(game, state):  # the record being replayed is the one whose setup made this state
        return [0.98 if seat == winners[current["seed"]] else 0.02 for seat in (0, 1)]

    current = {}
    real_setup = TERRAFEX.setup

    def setup(players, options, seed):
        current["seed"] = seed
        return real_setup(players, options, seed)

    monkeypatch.setattr(TERRAFEX, "setup", setup)
    right = _scored(monkeypatch, records, knows)
    wrong = _scored(monkeypatch, records, lambda game, state: list(reversed(knows(game, state))))
    assert right["cross_entropy"] == pytest.approx(-math.log(0.98)) and right["favourite_wins"] == 1.0
    assert wrong["cross_entropy"] == pytest.approx(-math.log(0.02)) and wrong["favourite_wins"] == 0.0
