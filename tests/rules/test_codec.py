"""The JSON codec of frozen dataclasses (`rules.codec`): exact round trips from type hints."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from rules import codec
from rules.rng import Rng


@dataclass(frozen=True)
class Piece:
    at: tuple[int, int]
    kind: str


@dataclass(frozen=True)
class Position:
    pieces: tuple[Piece, ...]
    marks: tuple[int | None, ...]
    holder: Piece | None
    counts: dict[int, int]
    rng: Rng
    note: str = ""


def _position() -> Position:
    return Position(
        pieces=(Piece((0, 1), "pawn"), Piece((2, 3), "king")),
        marks=(1, None, 3),
        holder=Piece((4, 5), "pawn"),
        counts={1: 2, 7: 0},
        rng=Rng("seed", 4),
        note="x",
    )


def test_a_nested_value_survives_json_exactly():
    value = _position()
    data = json.loads(json.dumps(codec.dump(value)))
    assert data["pieces"][1] == {"at": [2, 3], "kind": "king"}
    assert data["counts"] == {"1": 2, "7": 0}
    assert data["rng"] == Rng("seed", 4).dump()
    assert codec.load(Position, data) == value


def test_none_where_the_hint_allows_it_and_defaults_for_fields_older_json_lacks():
    value = Position((), (), None, {}, Rng("s"))
    data = codec.dump(value)
    del data["note"]
    assert codec.load(Position, data) == value


def test_values_json_cannot_hold_are_refused_not_mangled():
    with pytest.raises(TypeError):
        codec.dump({1.5: "a float key"})
    with pytest.raises(TypeError):
        codec.dump(object())
