"""The lines' answers shared between boards (`lines._SHARED`) are the ones each board would
work out alone, on the positions of seeded random games."""

import dataclasses
import random

import pytest

import rules
from rules.terrain_vague import lines
from rules.terrain_vague.position import board_of
from rules.terrain_vague.state import ACT, FrozenMap

KINDS = (lines.MOVE, lines.PROTECT, lines.SHOOT, lines.RIP, lines.CLEAN)


def _positions(players, seed, moves=400):
    game = rules.get("terrain_vague")
    state, rnd = game.setup(players, {}, seed), random.Random(seed)
    for _ in range(moves):
        if game.outcome(state) is not None:
            return
        if state.phase == ACT:
            yield state
        seat = rnd.choice(game.to_act(state))
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))


@pytest.fixture
def always_sharing(monkeypatch):
    """Random games seldom meet a layout again, so sharing would soon rest: here it never does."""
    monkeypatch.setattr(lines, "ENOUGH", 0)
    monkeypatch.setattr(lines._Stretch, "resting", 0)
    lines._SHARED.clear()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shared_answers_match_each_boards_own(players, always_sharing):
    checked = 0
    for state in _positions(players, f"shared-lines:{players}"):
        shared = board_of(state)
        assert shared.bits is not None
        alone = dataclasses.replace(shared, memo={}, bits=None)
        for gang in state.in_play:
            for origin in sorted(shared.pieces):
                for kind in KINDS:
                    assert lines.targets(shared, gang, kind, origin) == lines.targets(alone, gang, kind, origin)
                    checked += 1
    assert checked > 1000
    assert lines._SHARED  # the shared memo was used


def test_a_stretch_of_few_answers_found_rests_the_sharing(monkeypatch):
    state = next(_positions(2, "shared-lines:rest"))
    gang = state.in_play[0]

    def fresh_board():  # the same position as a new state: a board of its own
        return board_of(state.with_(pawns=FrozenMap(state.pawns)))

    monkeypatch.setattr(lines._Stretch, "asked", 0)
    monkeypatch.setattr(lines._Stretch, "found", 0)
    monkeypatch.setattr(lines._Stretch, "resting", 0)
    monkeypatch.setattr(lines, "PROBE", 50)
    monkeypatch.setattr(lines, "ENOUGH", 40)
    monkeypatch.setattr(lines, "REST", 3)
    while lines._Stretch.resting == 0:  # nothing kept from one board to the next: none found
        lines._SHARED.clear()
        board = fresh_board()
        for origin in board.pieces:
            lines.targets(board, gang, lines.MOVE, origin)
    assert [fresh_board().bits is None for _ in range(4)] == [True, True, True, False]
