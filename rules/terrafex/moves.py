"""Reading moves: shape checks (MalformedMove) and squares off the board (IllegalMove).

Every reader names the move type and the field that was wrong, so the message says what to fix.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rules import fields
from rules.errors import IllegalMove, MalformedMove
from rules.notation import fields_text, value_text
from rules.terrafex.board import coords, square_at
from rules.terrafex.data import COLS, DIRECTIONS, ROWS, SIZE_BY_NAME, SIZE_NAMES
from rules.words import msg


class Placement(NamedTuple):
    """One glacier of a split, played beside the mountain; `place` holds its own split, if any."""

    square: int
    size: int
    place: tuple | None


def read_square(move: dict[str, Any], key: str) -> int:
    value = fields.present(move, key)
    shaped = isinstance(value, (list, tuple)) and len(value) == 2
    if not (shaped and all(map(fields.is_whole, value))):
        message = msg(
            '"{key}" of a {type!r} move is [row, col], not {value!r}', key=key, type=move["type"], value=value
        )
        raise MalformedMove(message, "bad_square")
    row, col = value
    if not (0 <= row < ROWS and 0 <= col < COLS):
        message = msg(
            '"{key}" {value} of a {type!r} move is off the 7x8 board', key=key, value=value, type=move["type"]
        )
        raise IllegalMove(message, "off_board")
    return square_at(row, col)


def read_size(move: dict[str, Any], key: str = "size") -> int:
    value = fields.present(move, key)
    if not isinstance(value, str) or value not in SIZE_BY_NAME:
        message = msg(
            '"{key}" of a {type!r} move is "S", "M" or "L", not {value!r}', key=key, type=move["type"], value=value
        )
        raise MalformedMove(message, "bad_size")
    return SIZE_BY_NAME[value]


def read_choice(move: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = fields.present(move, key)
    if not isinstance(value, str) or value not in allowed:
        names = ", ".join(allowed)
        code = "bad_direction" if key == "dir" else "unknown_action"
        message = msg(
            '"{key}" of a {type!r} move is one of {names}, not {value!r}',
            key=key,
            type=move["type"],
            names=names,
            value=value,
        )
        raise MalformedMove(message, code)
    return value


def read_direction(move: dict[str, Any]) -> str:
    return read_choice(move, "dir", tuple(DIRECTIONS))


def read_placements(move: dict[str, Any]) -> tuple[Placement, ...] | None:
    """The optional "place" list of a glacier move (or of one of its placements), read deeply."""
    value = move.get("place")
    if value is None:
        return None
    if not isinstance(value, list):
        message = msg('"place" of a {type!r} move is a list, not {value!r}', type=move["type"], value=value)
        raise MalformedMove(message, "bad_placements")
    placements = []
    for item in value:
        if not isinstance(item, dict):
            raise MalformedMove(msg('each "place" entry is an object, not {item!r}', item=item), "bad_placements")
        item = {**item, "type": move["type"]}  # so nested messages still name the move type
        square, size = read_square(item, "to"), read_size(item)
        placements.append(Placement(square, size, read_placements(item)))
    return tuple(placements)


def placement_json(placement: Placement) -> dict[str, Any]:
    data: dict[str, Any] = {"to": coords(placement.square), "size": SIZE_NAMES[placement.size]}
    if placement.place is not None:
        data["place"] = [placement_json(p) for p in placement.place]
    return data


_WAY = {"N": "north", "E": "east", "S": "south", "W": "west"}
_SIZE_WORD = {"S": "small", "M": "medium", "L": "large"}


def _placements_text(place: list[dict[str, Any]]) -> str:
    """Where a split glacier's pieces go, nested splits in brackets."""
    parts = []
    for item in place:
        text = f"{_SIZE_WORD[item['size']]} to {value_text(item['to'])}"
        if item.get("place") is not None:
            text += f" [{_placements_text(item['place'])}]"
        parts.append(text)
    return " and ".join(parts)


def describe(move: dict[str, Any]) -> str:
    """The notation, squares as row,col like the text board: "forest grow 2,3", "mountain start
    0,0", "fire small", "place fire 4,4", "glacier 1,3 east", "glacier 1,3 east then small to
    2,3 and medium to 2,4" (where a split glacier's pieces go)."""
    kind = move["type"]
    if kind in ("forest", "mountain"):
        square = move.get("at", move.get("to"))
        spread = " to" if move["action"] == "spread" else ""
        return f"{kind} {move['action']}{spread} {value_text(square)}"
    if kind == "fire":
        return f"fire {_SIZE_WORD[move['size']]}"
    if kind == "place_fire":
        return f"place fire {value_text(move['to'])}"
    if kind == "glacier":
        text = f"glacier {value_text(move['from'])} {_WAY[move['dir']]}"
        return text + (f" then {_placements_text(move['place'])}" if move.get("place") else "")
    return fields_text(move)
