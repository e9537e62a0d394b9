"""A bot's turn ends. Two positions of the bot benchmark (2026-12-07, seeds 23 and 30 of Space
Junkyard's level 3 against level 2) where the default level converted resources back and forth,
as the rules allow while storage does, for thousands of actions:

- `space_junkyard_horizon`: rollouts 16 actions long made each conversion look better than
  ending the phase, since it pushed the other ship's next turn out of the rollout (the horizon
  effect); the game's rollouts are now counted in turns (`ROLLOUT_TURNS`);
- `space_junkyard_decided`: the game was lost whatever the ship did, every move tied, and the
  tie went to the first listed, a conversion; a tie now goes to the rules' timeout move (end the
  phase).

And a third (seed 4 of the same row, action 376, after both fixes): a lost ship whose every
conversion still searched a hair better than ending the phase (0.045 against 0.036: a conversion
keeps the choice of the producers' colours that ending the phase makes by default), so it went
on for 4,000 actions; a bot now plays the rules' timeout move once its seat has acted
`bots.MOST_ACTIONS_IN_A_ROW` times in a row (`space_junkyard_circling`).
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


def _played_in_a_row(game, state, seat, saved, start):
    """The seat's moves from `state` as the arena plays them, counting its actions in a row."""
    made = []
    while game.outcome(state) is None and game.to_act(state)[0] == seat:
        assert len(made) <= bots.MOST_ACTIONS_IN_A_ROW, made[-5:]
        move = bots.choose_move(game, game.view(state, seat), seat, bot="mcts", level=saved["level"],
                                seed=f"{saved['seed']}:{saved['actions'] + len(made)}", in_a_row=start + len(made))
        made.append(move["type"])
        state = game.apply(state, seat, move)
    return made


def test_a_seat_that_has_acted_too_often_in_a_row_moves_the_game_on():
    saved = json.loads((DATA / "space_junkyard_circling.json").read_text())
    game = rules.get("space_junkyard")
    state, seat = game.load(saved["state"]), saved["seat"]
    near_the_limit = bots.MOST_ACTIONS_IN_A_ROW - 3
    made = _played_in_a_row(game, state, seat, saved, start=near_the_limit)
    assert made[:3] == ["convert"] * 3 and made[3] == "end_resources", made  # circling, then the timeout move
    assert "convert" not in made[4:], made
    view = game.view(state, seat)
    fresh = bots.choose_move(game, view, seat, bot="mcts", level=2, seed="x", in_a_row=0)
    assert fresh["type"] == "convert"  # the search alone still circles here: the limit is what ends it
    assert bots.choose_move(game, view, seat, bot="random", level=1, seed="x",
                            in_a_row=bots.MOST_ACTIONS_IN_A_ROW) == game.timeout_move(state, seat)
