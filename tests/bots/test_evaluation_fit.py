"""A game's evaluation foretells results (`bench.evaluation_fit`). Terrafex's valued a 5-point
lead at 88% of the win whenever it came, where the seat ahead won about 64% of the time early on
and nearly always near the end; its shares now sharpen as the quiet turns that end the game
run out (decision 0043)."""

from __future__ import annotations

import math

import rules
from bench import evaluation_fit
from bots import heuristics
from rules.values import evolve

TERRAFEX = rules.catalog()["terrafex"]


def test_terrafexs_evaluation_foretells_recorded_results_better_than_an_even_share():
    records = evaluation_fit.kept_records("terrafex")[:20]
    assert len(records) == 20
    found = evaluation_fit.fit(TERRAFEX, records)
    assert found["positions"] > 1000
    assert found["cross_entropy"] < math.log(2) - 0.05  # an even share scores log 2


def test_a_lead_weighs_more_as_the_quiet_turns_run_out():
    record = evaluation_fit.kept_records("terrafex")[0]
    state = TERRAFEX.setup(2, None, record["seed"])
    for seat, move in record["moves"]:
        state = TERRAFEX.apply(state, seat, move)
        scores = TERRAFEX.view(state, None)["scores"]
        if scores[0] != scores[1] and TERRAFEX.outcome(state) is None:
            break
    leader = 0 if scores[0] > scores[1] else 1
    evaluate = heuristics.for_rules("terrafex").evaluate
    shares = [evaluate(TERRAFEX, evolve(state, quiet_turns=quiet))[leader] for quiet in (0, 20, 35, 39)]
    assert 0.5 < shares[0] < shares[1] < shares[2] < shares[3] < 1
    assert math.isclose(sum(evaluate(TERRAFEX, evolve(state, quiet_turns=35))), 1.0)
