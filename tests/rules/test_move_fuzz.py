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


def _one_float_each(value: Any) -> list[Any]:
    """The move once for each whole number in it, that number written as a float of the same
    value (90 as 90.0): equal under ==, which let a float through a check of allowed values into
    the rules' arithmetic. One at a time, so no other field's check refuses the move first."""
    if isinstance(value, dict):
        return [{**value, key: changed} for key, item in value.items() for changed in _one_float_each(item)]
    if isinstance(value, list):
        return [[*value[:index], changed, *value[index + 1:]]
                for index, item in enumerate(value) for changed in _one_float_each(item)]
    if isinstance(value, int) and not isinstance(value, bool):
        return [float(value)]
    return []


@pytest.mark.parametrize("game", list(rules.catalog().values()), ids=lambda g: g.id)
def test_a_legal_move_with_a_number_as_a_float_is_applied_or_refused_cleanly(game: Rules):
    rnd = random.Random(f"floats-{game.id}")
    state = game.setup(game.min_players, {}, "floats")
    for _ in range(POSITIONS_PER_GAME * 3):
        if game.outcome(state) is not None:
            break
        seat = rnd.choice(game.to_act(state))
        moves = game.legal_moves(state, seat)
        for move in moves:
            for variant in _one_float_each(move):
                try:
                    game.apply(state, seat, variant)
                except RulesError as error:
                    assert error.code and error.message
        state = game.apply(state, seat, rnd.choice(moves))
