"""The listers' shortcuts (issue 54's playout speed) agree with the long way round, in every
position of random games: whether an action is open, and whether a fire can burn a forest."""

from __future__ import annotations

import random

import pytest

from rules.errors import IllegalMove
from rules.terrafex import RULES, actions, turns
from rules.terrafex.data import FOREST, SIZES


def _positions(games: int):
    rnd = random.Random(54)
    for n in range(games):
        state = RULES.setup(2, {}, f"quick-{n}")
        while RULES.outcome(state) is None:
            yield state
            seat = RULES.to_act(state)[0]
            state = RULES.apply(state, seat, rnd.choice(RULES.legal_moves(state, seat)))


@pytest.mark.parametrize("games", [12])
def test_an_action_is_open_exactly_when_it_lists_an_option(games: int) -> None:
    checked = 0
    for state in _positions(games):
        work = turns.work_of(state)
        assert actions.forest_open(work) == bool(list(actions.forest_moves(work)))
        assert actions.mountain_open(work) == bool(list(actions.mountain_moves(work)))
        checked += 1
    assert checked > 500


def test_a_fire_burns_a_forest_exactly_when_the_placement_goes_through() -> None:
    tried = 0
    for state in _positions(12):
        work = turns.work_of(state)
        for square, cell in enumerate(work.board):
            if cell is None or cell[0] != FOREST:
                continue
            for size in SIZES:
                try:
                    actions.place_fire(work.copy(), square, size)
                    placed = True
                except IllegalMove:
                    placed = False
                assert actions._burn_has_supply(cell, size, work.pool, work.pit) == placed
                tried += 1
    assert tried > 500


def test_the_legal_moves_are_fresh_copies_each_time() -> None:
    state = next(s for s in _positions(1) if not s.fire_in_hand and "fire" not in s.done)
    seat = RULES.to_act(state)[0]
    first = RULES.legal_moves(state, seat)
    for move in first:
        move["type"] = "spoiled"
    assert all(move["type"] != "spoiled" for move in RULES.legal_moves(state, seat))
