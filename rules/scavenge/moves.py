"""Scavenge's moves: how a move names a square, and reading one.

A move names only where the token ends: `{"type": "move", "to": [row, col]}` (rows and columns
0-9) or `"to": "centre"` for the four hole squares, or `{"type": "stay"}`. Any legal path to the
destination will do, so a destination is one move however many paths reach it.
"""

from __future__ import annotations

from typing import Any

from rules.base import Move
from rules.errors import IllegalMove, MalformedMove
from rules.fields import is_whole
from rules.notation import value_text
from rules.scavenge import board
from rules.words import msg

CENTRE_NAME = "centre"
STAY: Move = {"type": "stay"}


def node_name(node: int) -> Any:
    """How a move names a node: "centre" or [row, col] (a fresh list, so callers may keep it)."""
    return CENTRE_NAME if node == board.CENTRE else list(_COORDS[node])


_COORDS = tuple(board.coords(node) for node in range(board.CENTRE))


def parse(move: Move) -> Any:
    """The destination a move names: None for "stay", "centre" or a (row, col) pair. Raises
    MalformedMove for bad shapes; whether the square exists is checked later, by `locate`."""
    kind = move["type"]
    if kind == "stay":
        return None
    if kind != "move":
        raise MalformedMove(
            msg("no move type {kind!r} in Scavenge; use \"move\" or \"stay\"", kind=kind), "unknown_move_type"
        )
    if "to" not in move:
        raise MalformedMove(msg("a \"move\" needs \"to\": [row, col] or \"centre\""), "missing_destination")
    to = move["to"]
    if to == CENTRE_NAME:
        return to
    if not (isinstance(to, list) and len(to) == 2 and all(map(is_whole, to))):
        raise MalformedMove(
            msg("\"to\" must be [row, col] with whole numbers or \"centre\", not {to!r}", to=to), "bad_destination"
        )
    return tuple(to)


def locate(destination: Any) -> int | None:
    """The node of a parsed destination; IllegalMove if that square is not on the board."""
    if destination is None:
        return None
    if destination == CENTRE_NAME:
        return board.CENTRE
    row, col = destination
    if not board.on_board(row, col):
        raise IllegalMove(msg("[{row}, {col}] is off the 10x10 board", row=row, col=col), "off_board")
    node = board.node_at(row, col)
    if node in board.HOLE_NODES:
        raise IllegalMove(msg("[{row}, {col}] is in the hole; name it \"centre\"", row=row, col=col), "hole_square")
    return node


def describe(roll: int | None, move: Move) -> str:
    """The notation: the roll as context, then where the token ends ("roll 4: to 3,5", "roll 0:
    stay"); a reply may leave the roll out. In the words of `rules.words`: the same text in
    English, another reader's words in theirs (a reply still types the English)."""
    if move["type"] == "stay":
        return msg("roll {roll}: stay", roll=roll)
    return msg("roll {roll}: to {to}", roll=roll, to=value_text(move["to"]))
