"""Space Junkyard's moves: reading a move's fields (the places, choices and entries it names).

Every move is a JSON object with a "type"; `turns` lists the types by phase.
"""

from __future__ import annotations

from typing import Any

from rules import fields
from rules.base import Move
from rules.errors import IllegalMove, MalformedMove
from rules.notation import fields_text, value_text
from rules.space_junkyard import board
from rules.space_junkyard.state import State
from rules.words import msg

# The two readers below answer the common well-formed move themselves and leave anything else to
# the general readers of `rules.fields`, which refuse it (or accept it) exactly as before: those
# check with generators, which cost a search more than the move itself.


def place_field(move: Move, key: str = "at") -> tuple[int, int]:
    """A place on a ship or the map, [x, y]."""
    value = move.get(key)
    if type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        return value[0], value[1]
    return fields.pair(move, key, "bad_place")


def choice_field(move: Move, key: str, allowed: tuple[Any, ...], code: str) -> Any:
    """`fields.choice` for `allowed` values all of one type, str or int."""
    value = move.get(key)
    kind = type(value)
    if (kind is str or kind is int) and value in allowed:
        return value
    return fields.choice(move, key, allowed, code)


def entry_field(state: State, move: Move) -> str:
    """An entry to the map: a side and a line, "N3"; the line must be on this map."""
    entry = move.get("entry")
    shaped = isinstance(entry, str) and entry[:1] in board.OPPOSITE_SIDE and entry[1:].isdigit()
    if not shaped:
        raise MalformedMove(
            msg('{type} needs "entry" like "N3", not {entry!r}', type=move["type"], entry=entry), "bad_entry"
        )
    if board.parse_entry(entry, state.size) is None:
        raise IllegalMove(
            msg(
                "{type} {entry}: the map has lines 1 to {size} on each side",
                type=move["type"],
                entry=entry,
                size=state.size,
            ),
            "out_of_range",
        )
    return entry


# A move's words: each template's English is the notation a reply types, so the one text serves
# both; another reader reads it translated (`rules.words`), and types the English. Corners,
# sides, entries and resources keep their letters, as the text board writes them.
_NOTATION = {
    "place": lambda move: msg("place ship {corner}", corner=move["corner"]),
    "produce": lambda move: msg("produce {choice} at {at}", choice=move["choice"], at=value_text(move["at"])),
    "convert": lambda move: msg("convert at {at}", at=value_text(move["at"])),
    "step": lambda move: msg("step {dir}", dir=move["dir"]),
    "reenter": lambda move: msg("reenter at {entry}", entry=move["entry"]),
    "retrieve": lambda move: msg("retrieve asteroid"),
    "recycle": lambda move: msg("recycle section"),
    "connect": lambda move: msg("connect at {at} turned {rotation}", at=value_text(move["at"]), rotation=move["rotation"]),
    "push": lambda move: msg("push in at {entry}", entry=move["entry"]),
    "buy_steps": lambda move: msg("buy steps"),
    "end_move": lambda move: msg("end move"),
    "end_resources": lambda move: msg("end resources"),
}


def describe(move: Move) -> str:
    """The notation: "produce Y at 0,1", "step N", "connect at 1,0 turned 90", "push in at N3";
    a move with no fields is its type in words ("end move")."""
    write = _NOTATION.get(move["type"])
    return write(move) if write else fields_text(move)
