"""Terrain Vague's rules versions: version 2 fights the attacks on a gang that leaves during the
wrestling, version 1 dropped them. A game recorded under version 1 must fold as it was played.

The fixtures are games played by the code of version 1 itself (rules/ at commit 6fac1b6^, the
commit before the ruling), seeded, with the first duel's defender leaving after its attacker chose:
their events, the outcome and the final state that code reached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from rules.errors import RulesError
from rules.terrain_vague import RULES, VERSION_1, data
from rules.terrain_vague.state import WRESTLE
from tests.rules.terrain_vague.test_terrain_vague_frame_wrestling import DIGITS, four_gang_red_turn

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = sorted(FIXTURES.glob("version1_leaving_mid_wrestling_*.json"))


def fold(game_rules, recorded: dict):
    state = game_rules.setup(recorded["players"], recorded["options"], recorded["seed"])
    for event in recorded["events"]:
        if event[0] == "forfeit":
            state = game_rules.forfeit(state, event[1])
        else:
            state = game_rules.replay(state, event[1], event[2])
    return state


def test_the_catalogue_plays_version_2_and_still_folds_version_1():
    game_rules = rules.get("terrain_vague")
    assert game_rules.version == 2 and game_rules.describe()["version"] == 2
    assert game_rules.folds_version(1) and game_rules.folds_version(2)
    assert not game_rules.folds_version(3)
    assert game_rules.folding(2) is game_rules
    assert game_rules.folding(1).version == 1 and game_rules.folding(1).folding(1) is VERSION_1


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_a_game_recorded_under_version_1_folds_as_it_was_played(path):
    recorded = json.loads(path.read_text())
    assert recorded["rules_version"] == 1 and recorded["players"] in (3, 4)
    assert any(event[0] == "forfeit" for event in recorded["events"])
    state = fold(RULES.folding(1), recorded)
    assert VERSION_1.dump(state) == recorded["final"]
    assert VERSION_1.outcome(state).as_dict() == recorded["outcome"]


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_the_version_2_fold_would_not_replay_those_games_as_played(path):
    """What the bump is for: today's ruling changes these games (a move refused, or another end)."""
    recorded = json.loads(path.read_text())
    try:
        state = fold(RULES, recorded)
    except RulesError:
        return
    assert RULES.dump(state) != recorded["final"]


def test_leaving_before_its_defence_drops_the_attack_on_it_under_version_1_only():
    state = VERSION_1.apply(four_gang_red_turn(), 0, {"type": DIGITS, "digits": [8]})
    old, new = VERSION_1.forfeit(state, 1), RULES.forfeit(state, 1)
    R, B, C, S = data.RUBBLES, data.BRAMBLES, data.CESSPOOLS, data.SCRAPPERS
    assert old.phase == WRESTLE and old.wrestled == () and old.points[R] == 0
    assert [(d.attacker, d.defender) for d in old.duels] == [(C, S), (S, C)]
    assert [(d.attacker, d.defender) for d in new.wrestled] == [(R, B)]
    assert old.rng == state.rng  # version 1 drew nothing for the leaver
    # Everything else about leaving is the same in both versions.
    assert old.eliminated == new.eliminated == (B,)
    assert old.duels == new.duels
