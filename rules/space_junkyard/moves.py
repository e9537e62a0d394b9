"""Space Junkyard's moves: reading a move's fields (the places, choices and entries it names).

Every move is a JSON object with a "type"; `turns` lists the types by phase.
"""

from __future__ import annotations

from rules import fields
from rules.base import Move
from rules.errors import IllegalMove, MalformedMove
from rules.notation import fields_text, value_text
from rules.space_junkyard import board
from rules.space_junkyard.state import State
from rules.words import msg


def place_field(move: Move, key: str = "at") -> tuple[int, int]:
    """A place on a ship or the map, [x, y]."""
    return fields.pair(move, key, "bad_place")


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


_NOTATION = {
    "place": lambda move: f"place ship {move['corner']}",
    "produce": lambda move: f"produce {move['choice']} at {value_text(move['at'])}",
    "convert": lambda move: f"convert at {value_text(move['at'])}",
    "step": lambda move: f"step {move['dir']}",
    "reenter": lambda move: f"reenter at {move['entry']}",
    "retrieve": lambda move: "retrieve asteroid",
    "recycle": lambda move: "recycle section",
    "connect": lambda move: f"connect at {value_text(move['at'])} turned {move['rotation']}",
    "push": lambda move: f"push in at {move['entry']}",
}


def describe(move: Move) -> str:
    """The notation: "produce Y at 0,1", "step N", "connect at 1,0 turned 90", "push in at N3";
    a move with no fields is its type in words ("end move")."""
    write = _NOTATION.get(move["type"])
    return write(move) if write else fields_text(move)
