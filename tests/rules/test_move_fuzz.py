"""Bad input never crashes a game: moves mutated from each game's own legal moves (wrong types,
out-of-range numbers, missing and extra keys, nested junk) are either applied or refused with a
`RulesError`, never another exception (which the API would turn into a 500)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rules
from rules.base import Rules
from rules.errors import RulesError

POSITIONS_PER_GAME = 40
MUTANTS_PER_MOVE = 12
JUNK = (None, True, -1, 10**12, 2.5, "", "x" * 300, [], {}, [[]], {"a": 1}, [-1, -1], [0], [1, 2, 3], "centre")


def _mutants(move: dict[str, Any], rnd: random.Random) -> list[Any]:
    keys = list(move)
    mutants: list[Any] = []
    for _ in range(MUTANTS_PER_MOVE):
        mutant = dict(move)
        choice = rnd.randrange(4)
        if choice == 0 and keys:
            mutant[rnd.choice(keys)] = rnd.choice(JUNK)
        elif choice == 1 and len(keys) > 1:
            del mutant[rnd.choice([k for k in keys if k != "type"] or keys)]
        elif choice == 2:
            mutant[rnd.choice(["extra", "seat", "to", "at"])] = rnd.choice(JUNK)
        else:
            mutant = _deep_junk(move, rnd)
        mutants.append(mutant)
    return mutants


def _deep_junk(value: Any, rnd: random.Random) -> Any:
    """The same structure with one leaf somewhere replaced by junk."""
    if isinstance(value, dict) and value:
        key = rnd.choice(list(value))
        return {**value, key: _deep_junk(value[key], rnd)}
    if isinstance(value, list) and value:
        index = rnd.randrange(len(value))
        return [*value[:index], _deep_junk(value[index], rnd), *value[index + 1 :]]
    return rnd.choice(JUNK)


@pytest.mark.parametrize("game", list(rules.catalog().values()), ids=lambda g: g.id)
def test_mutated_moves_are_applied_or_refused_cleanly(game: Rules):
    rnd = random.Random(game.id)
    for players in (game.min_players, game.max_players):
        state = game.setup(players, {}, f"fuzz-{players}")
        for _ in range(POSITIONS_PER_GAME):
            if game.outcome(state) is not None:
                break
            seat = rnd.choice(game.to_act(state))
            moves = game.legal_moves(state, seat)
            for mutant in _mutants(rnd.choice(moves), rnd):
                try:
                    game.apply(state, seat, mutant)
                except RulesError as error:
                    assert error.code and error.message
            state = game.apply(state, seat, rnd.choice(moves))
