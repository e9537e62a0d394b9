"""Terrain Vague's moves: the pawn action types of steps 2-5 (their encoding is in `actions`)
and the readers of a move's fields.

Moves and views carry a hex as the JSON list `[q, r]` (`hexes.to_json`, `hexes.from_json`).
"""

from __future__ import annotations

from typing import Any

from rules.errors import MalformedMove
from rules.terrain_vague import data, hexes
from rules.terrain_vague.data import PAWN_KINDS
from rules.terrain_vague.hexes import Hex, from_json

CALL_OUT = "call_out"
REBUILD = "rebuild"
MOVE_PAWN = "move"
CLEAN_HOUSE = "clean_house"
SHOOT_PAWN = "shoot"
RIP_HEX = "rip"
REINFORCE = "reinforce"
BIG_RIP_OFF = "big_rip_off"

STEP_OF: dict[str, int] = {
    CALL_OUT: 2,
    REBUILD: 2,
    MOVE_PAWN: 3,
    CLEAN_HOUSE: 3,
    SHOOT_PAWN: 4,
    RIP_HEX: 5,
    REINFORCE: 5,
    BIG_RIP_OFF: 5,
}


ACTION_TYPES: frozenset[str] = frozenset(STEP_OF)


def hex_field(move: dict, name: str) -> Hex:
    if name not in move:
        raise MalformedMove(f"{move['type']} needs a {name!r} hex [q, r]", "missing_field")
    try:
        return from_json(move[name])
    except ValueError as error:
        raise MalformedMove(f"{move['type']} {name!r}: {error}", "bad_hex") from None


def kind_field(move: dict) -> str:
    kind = move.get("kind")
    if kind not in PAWN_KINDS:
        raise MalformedMove(
            f"call_out needs a 'kind' among {', '.join(PAWN_KINDS)}, not {kind!r}", "bad_kind"
        )
    return kind


def read_hex(move: dict[str, Any]) -> Hex:
    try:
        return hexes.from_json(move.get("hex"))
    except ValueError as error:
        raise MalformedMove(f"{move['type']}: {error}", "bad_hex") from None


def read_stack(move: dict[str, Any]) -> tuple[str, str]:
    gang, strength = move.get("gang"), move.get("strength")
    if gang not in data.GANGS:
        raise MalformedMove(f"place_hex: no gang {gang!r}", "bad_gang")
    if strength not in data.STRENGTHS:
        raise MalformedMove(
            f"place_hex: strength is wimpy or tough, not {strength!r}", "bad_strength"
        )
    return gang, strength
