"""The lines' answers shared between boards (`lines._SHARED`) are the ones each board would
work out alone, on the positions of seeded random games."""

import dataclasses
import random

import pytest

import rules
from rules.terrain_vague import lines
from rules.terrain_vague.position import board_of
from rules.terrain_vague.state import ACT

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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shared_answers_match_each_boards_own(players):
    lines._SHARED.clear()
    checked = 0
    for state in _positions(players, f"shared-lines:{players}"):
        shared = board_of(state)
        alone = dataclasses.replace(shared, memo={}, bits=None)
        for gang in state.in_play:
            for origin in sorted(shared.pieces):
                for kind in KINDS:
                    assert lines.targets(shared, gang, kind, origin) == lines.targets(alone, gang, kind, origin)
                    checked += 1
    assert checked > 1000
    assert lines._SHARED  # the shared memo was used
