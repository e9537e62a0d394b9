"""A bot's turn ends. Two positions of the bot benchmark (2026-12-07, seeds 23 and 30 of Space
Junkyard's level 3 against level 2) where the default level converted resources back and forth,
as the rules allow while storage does, for thousands of actions:

- `space_junkyard_horizon`: rollouts 16 actions long made each conversion look better than
  ending the phase, since it pushed the other ship's next turn out of the rollout (the horizon
  effect); the game's rollouts are now counted in turns (`ROLLOUT_TURNS`);
- `space_junkyard_decided`: the game was lost whatever the ship did, every move tied, and the
  tie went to the first listed, a conversion; a tie now goes to the rules' timeout move (end the
  phase).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

import bots
import rules
from bots import mcts
from tests.bots.toys import Nim

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["space_junkyard_horizon", "space_junkyard_decided"])
def test_the_default_level_ends_its_turn_where_it_converted_for_ever(name):
    saved = json.loads((DATA / f"{name}.json").read_text())
    game = rules.get("space_junkyard")
    state, seat = game.load(saved["state"]), saved["seat"]
    made = []
    while game.outcome(state) is None and game.to_act(state)[0] == seat:
        assert len(made) < 20, made
        move = bots.choose_move(game, game.view(state, seat), seat, bot="mcts", level=saved["level"],
                                seed=f"{saved['seed']}:{saved['actions'] + len(made)}")
        made.append(move["type"])
        state = game.apply(state, seat, move)
    assert "end_resources" in made and made.count("convert") <= 3, made


def _rollout_actions(monkeypatch, hints) -> int:
    game = Nim()
    monkeypatch.setattr(mcts.heuristics, "for_rules", lambda rules_id: hints)
    search = mcts.Search(game, game.view(game.setup(2, {"pile": 40}, "s"), 0), 0,
                         mcts.Budget(iterations=1, milliseconds=None), random.Random(1))
    applied = []
    real = game.apply
    monkeypatch.setattr(game, "apply", lambda state, seat, move: applied.append(seat) or real(state, seat, move))
    search.rollout(game.setup(2, {"pile": 40}, "s"))
    return len(applied)


def test_a_rollout_counted_in_turns_stops_once_the_acting_seat_has_changed_that_often(monkeypatch):
    assert _rollout_actions(monkeypatch, SimpleNamespace(ROLLOUT_LIMIT=10)) == 10
    assert _rollout_actions(monkeypatch, SimpleNamespace(ROLLOUT_LIMIT=10, ROLLOUT_TURNS=2)) == 2
    assert _rollout_actions(monkeypatch, SimpleNamespace(ROLLOUT_LIMIT=10, ROLLOUT_TURNS=3)) == 3
