"""Terrain Vague's moves: the pawn action types of steps 2-5 (their encoding is in `actions`)
and the readers of a move's fields.

Moves and views carry a hex as the JSON list `[q, r]` (`hexes.to_json`, `hexes.from_json`).
"""

from __future__ import annotations

from typing import Any

from rules.errors import MalformedMove
from rules.notation import fields_text, value_text
from rules.terrain_vague import data, hexes, words
from rules.terrain_vague.data import PAWN_KINDS
from rules.terrain_vague.hexes import Hex, from_json
from rules.words import Message, msg

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
        raise MalformedMove(msg("{type} needs a {name!r} hex [q, r]", type=move['type'], name=name), "missing_field")
    try:
        return from_json(move[name])
    except ValueError as error:
        raise MalformedMove(msg("{type} {name!r}: {error}", type=move['type'], name=name, error=error), "bad_hex") from None


def kind_field(move: dict) -> str:
    kind = move.get("kind")
    if kind not in PAWN_KINDS:
        raise MalformedMove(
            msg("call_out needs a 'kind' among {pawn_kinds}, not {kind!r}", pawn_kinds=', '.join(PAWN_KINDS), kind=kind), "bad_kind"
        )
    return kind


def read_hex(move: dict[str, Any]) -> Hex:
    try:
        return hexes.from_json(move.get("hex"))
    except ValueError as error:
        raise MalformedMove(msg("{type}: {error}", type=move['type'], error=error), "bad_hex") from None


def read_stack(move: dict[str, Any]) -> tuple[str, str]:
    gang, strength = move.get("gang"), move.get("strength")
    if gang not in data.GANGS:
        raise MalformedMove(msg("place_hex: no gang {gang!r}", gang=words.gang(gang)), "bad_gang")
    if strength not in data.STRENGTHS:
        raise MalformedMove(
            msg("place_hex: strength is wimpy or tough, not {strength!r}", strength=strength), "bad_strength"
        )
    return gang, strength


def _piece_at(state: Any, hex_value: Any) -> str:
    occupant = state.occupant(tuple(hex_value))
    return words.piece(occupant.kind) if occupant is not None else msg("piece")


# A move's words: each template's English is the notation a reply types (a piece's and a gang's
# words read as their ids in English), so the one text serves both; another reader reads it
# translated (`rules.words`), and types the English.
STRENGTH_WORDS = {data.WIMPY: msg("wimpy"), data.TOUGH: msg("tough")}
_NOTATION = {
    "place_hex": lambda state, m: msg("{gang} {strength} at {hex}", gang=words.board_gang(m["gang"]),
                                      strength=STRENGTH_WORDS.get(m["strength"], m["strength"]), hex=value_text(m["hex"])),
    "place_clubhouse": lambda state, m: msg("clubhouse at {hex}", hex=value_text(m["hex"])),
    "choose_opponent": lambda state, m: msg("challenge {gang}", gang=words.board_gang(m["gang"])),
    "choose_digits": lambda state, m: msg("digits {digits}", digits=value_text(m["digits"])),
    "choose_bars": lambda state, m: msg("bars {bars}", bars=value_text(m["bars"])),
    CALL_OUT: lambda state, m: msg("call out {piece} to {to}", piece=words.piece(m["kind"]), to=value_text(m["to"])),
    REBUILD: lambda state, m: msg("rebuild clubhouse at {to}", to=value_text(m["to"])),
    MOVE_PAWN: lambda state, m: Message(  # no word of its own: the piece's, and two hexes
        "{piece} {start} -> {to}", piece=_piece_at(state, m["from"]), start=value_text(m["from"]), to=value_text(m["to"])),
    CLEAN_HOUSE: lambda state, m: msg("big brother {start} cleans house at {to}", start=value_text(m["from"]), to=value_text(m["to"])),
    SHOOT_PAWN: lambda state, m: msg("slingshot {start} shoots {at}", start=value_text(m["from"]), at=value_text(m["at"])),
    RIP_HEX: lambda state, m: msg("wheelbarrow {start} rips {at}", start=value_text(m["from"]), at=value_text(m["at"])),
    REINFORCE: lambda state, m: msg("wheelbarrow {start} reinforces {at}", start=value_text(m["from"]), at=value_text(m["at"])),
    BIG_RIP_OFF: lambda state, m: msg("big rip-off at {at}", at=value_text(m["at"])),
    "end_step": lambda state, m: msg("end step"),
}


def describe(state: Any, move: dict[str, Any]) -> str:
    """The notation, hexes as q,r like the text board: "wheelbarrow 0,1 -> 2,-1", "slingshot 1,0
    shoots -1,1", "call out lid to 1,1", "brambles tough at 0,-1", "end step"."""
    write = _NOTATION.get(move["type"])
    return write(state, move) if write else fields_text(move)
