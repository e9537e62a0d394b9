"""Reading a move's fields: the shape checks every game makes before its own.

A move is a JSON object with a string "type" and fields of JSON values. These readers check a
field's shape and raise `MalformedMove` naming the move type, the field and the shape wanted, with
the code the game gives: codes are part of the API, and each game names its own (`bad_place`,
`bad_hex`, ...). Whether a well-shaped value is allowed here (on the board, affordable) is the
game's question, answered with `IllegalMove`.
"""

from __future__ import annotations

from typing import Any, Iterable

from rules.errors import MalformedMove
from rules.words import msg

Move = dict[str, Any]


def require_mapping(move: Any) -> Move:
    """The first check of every `apply`: a move is a JSON object with a string "type"."""
    if not isinstance(move, dict):
        raise MalformedMove(msg("a move is a JSON object, not {name}", name=type(move).__name__))
    if not isinstance(move.get("type"), str):
        raise MalformedMove(msg('a move needs a string "type"'), "missing_move_type")
    return move


def is_whole(value: Any) -> bool:
    """An int that is not a bool (JSON's true is not 1 here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def present(move: Move, key: str) -> Any:
    """The field's value; `missing_field` if the move has no such field."""
    if key not in move:
        raise MalformedMove(msg('a {type!r} move needs a "{key}" field', type=move["type"], key=key), "missing_field")
    return move[key]


def pair(move: Move, key: str, code: str, shape: str = "[x, y]") -> tuple[int, int]:
    """Two whole numbers, such as a square's coordinates."""
    value = move.get(key)
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_whole, value))):
        raise MalformedMove(
            msg('{type} needs "{key}" as {shape}, not {value!r}', type=move["type"], key=key, shape=shape, value=value),
            code,
        )
    return value[0], value[1]


def choice(move: Move, key: str, allowed: Iterable[Any], code: str) -> Any:
    """One of the allowed values, of its type too: equality alone lets a bool stand for 0 or 1
    and 90.0 for 90, which the rules would then use as what it is not (a float as a count)."""
    allowed = tuple(allowed)
    value = move.get(key)
    if not any(type(value) is type(candidate) and value == candidate for candidate in allowed):
        names = ", ".join(repr(a) for a in allowed)
        raise MalformedMove(
            msg(
                '{type} needs "{key}" as one of {names}, not {value!r}',
                type=move["type"],
                key=key,
                names=names,
                value=value,
            ),
            code,
        )
    return value


def whole_numbers(move: Move, key: str, code: str) -> tuple[int, ...]:
    """A list of whole numbers, in the order given."""
    value = move.get(key)
    if not (isinstance(value, list) and all(map(is_whole, value))):
        raise MalformedMove(
            msg(
                '{type} needs "{key}" as a list of whole numbers, not {value!r}',
                type=move["type"],
                key=key,
                value=value,
            ),
            code,
        )
    return tuple(value)


def unknown_type(title: str, kind: str, known: Iterable[str]) -> MalformedMove:
    """The error for a move type the game does not have, listing those it has."""
    names = ", ".join(sorted(known))
    return MalformedMove(
        msg("{title} has no move type {kind!r}; known: {names}", title=title, kind=kind, names=names),
        "unknown_move_type",
    )
