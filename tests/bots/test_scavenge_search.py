"""Scavenge's search knowledge (`bots/heuristics/scavenge.py`): the rollout policy and the tree
kept to the seat's own moves, on hand-built positions. Behaviour only, never strength
(`bench/bots_strength.py` measures that)."""

from __future__ import annotations

import dataclasses
import random

import pytest

import bots
import rules
from bots import mcts, registry
from bots.heuristics import scavenge as hints
from rules.rng import Rng
from rules.scavenge import board
from rules.scavenge.state import ScavengeState
from rules.scavenge.turns import destinations
from rules.values import evolve

game = rules.get("scavenge")


@pytest.fixture(autouse=True)
def iterations_only(monkeypatch):
    for level, budget in registry.MCTS_BUDGETS.items():
        monkeypatch.setitem(registry.MCTS_BUDGETS, level, dataclasses.replace(budget, milliseconds=None))


def position(at, roll, trash=(3, 3), carrier=None, turn=1) -> ScavengeState:
    return ScavengeState(
        players=len(at),
        straight_moves=False,
        positions=tuple(board.CENTRE if a == "centre" else board.node_at(*a) for a in at),
        trash=tuple(trash),
        carrier=carrier,
        turn=turn,
        roll=roll,
        rng=Rng("scavenge-search"),
    )


def rollout(state: ScavengeState, seed: str = "r") -> dict:
    moves = game.legal_moves(state, state.turn)
    chosen = hints.rollout_move(game, state, state.turn, moves, random.Random(seed))
    assert chosen in moves
    return chosen


def reachable_by(state: ScavengeState, seat: int, square: list[int]) -> int:
    """How many rolls let `seat`, moving next, end on `square` (the rules' own path search)."""
    node = board.node_at(*square)
    return sum(node in destinations(evolve(state, turn=seat, roll=roll), seat) for roll in range(1, 6))


def test_a_rollout_hands_over_trash_when_it_can_land() -> None:
    state = position([(2, 4), (4, 2)], roll=4)
    assert rollout(state) == {"type": "move", "to": [2, 4]}


def test_a_rollout_takes_the_good_stuff_and_carries_it_home() -> None:
    assert rollout(position([(0, 0), (3, 4)], roll=1, trash=(6, 0))) == {"type": "move", "to": "centre"}
    carrying = position([(9, 0), "centre"], roll=4, trash=(6, 0), carrier=1)
    assert rollout(carrying) == {"type": "move", "to": [9, 9]}


def test_a_rollout_steals_from_the_carrier_it_can_reach() -> None:
    state = position([(6, 6), (6, 3)], roll=3, trash=(6, 0), carrier=0)
    assert rollout(state) == {"type": "move", "to": [6, 6]}


def test_a_rollout_otherwise_ends_out_of_the_other_seats_reach() -> None:
    """Seat 1 at (4, 2) with a 3 cannot land on seat 0 at (2, 4), and some of its squares are
    within seat 0's reach: the rollout picks one that no roll of seat 0 reaches."""
    state = position([(2, 4), (4, 2)], roll=3)
    ends = [m["to"] for m in game.legal_moves(state, 1)]
    assert any(reachable_by(game.apply(state, 1, {"type": "move", "to": e}), 0, e) for e in ends)
    for seed in range(8):
        to = rollout(state, f"r{seed}")["to"]
        assert reachable_by(game.apply(state, 1, {"type": "move", "to": to}), 0, to) == 0


def test_a_carrier_heads_home_and_keeps_out_of_reach() -> None:
    assert rollout(position([(0, 0), (6, 6)], roll=2, trash=(6, 0), carrier=1)) == {"type": "move", "to": [8, 8]}
    threatened = position([(8, 5), (6, 6)], roll=2, trash=(6, 0), carrier=1)
    to = rollout(threatened)["to"]
    assert reachable_by(game.apply(threatened, 1, {"type": "move", "to": to}), 0, to) == 0


def test_the_tree_holds_only_the_seats_own_moves(monkeypatch) -> None:
    state = position([(2, 4), (4, 2)], roll=3)
    budget = mcts.Budget(iterations=200, milliseconds=None)

    def search() -> mcts.Search:
        found = mcts.Search(game, game.view(state, 1), 1, budget, random.Random("tree"))
        found.run()
        return found

    assert all(not child.children for child in search().root.children.values())
    monkeypatch.delattr(hints, "TREE_DEPTH")
    assert any(child.children for child in search().root.children.values())


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_default_level_keeps_out_of_reach_when_it_cannot_land(seed) -> None:
    """Game 1 of the 2026-11-28 benchmark, action 10: MCTS 2 moved from (4, 2) with a 3 to
    (4, 3), where greedy's 3 or 5 landed on it; squares out of its reach were there."""
    state = position([(2, 4), (4, 2)], roll=3)
    move = bots.choose_move(game, game.view(state, 1), 1, bot="mcts", level=2, seed=seed)
    to = move["to"]
    assert reachable_by(game.apply(state, 1, move), 0, to) == 0
