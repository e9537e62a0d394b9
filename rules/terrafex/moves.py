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
from rules.words import Message, msg


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


# A move's words: each template's English is the notation a reply types, so the one text serves
# both; another reader reads it translated (`rules.words`), and types the English.
_WAY = {"N": msg("north"), "E": msg("east"), "S": msg("south"), "W": msg("west")}
_SIZE_WORD = {"S": msg("small"), "M": msg("medium"), "L": msg("large")}
_ACTION_WORDS = {
    ("forest", "grow"): lambda square: msg("forest grow {square}", square=square),
    ("forest", "spread"): lambda square: msg("forest spread to {square}", square=square),
    ("mountain", "start"): lambda square: msg("mountain start {square}", square=square),
    ("mountain", "grow"): lambda square: msg("mountain grow {square}", square=square),
}


def _placements_text(place: list[dict[str, Any]]) -> str:
    """Where a split glacier's pieces go, nested splits in brackets."""
    parts = []
    for item in place:
        text = msg("{size} to {square}", size=_SIZE_WORD[item["size"]], square=value_text(item["to"]))
        if item.get("place") is not None:
            # words on either side, none of its own: no sentence to translate
            text = Message("{placed} [{within}]", placed=text, within=_placements_text(item["place"]))
        parts.append(text)
    if not parts:
        return ""
    joined = parts[0]
    for part in parts[1:]:
        joined = msg("{first} and {second}", first=joined, second=part)
    return joined


def describe(move: dict[str, Any]) -> str:
    """The notation, squares as row,col like the text board: "forest grow 2,3", "mountain start
    0,0", "fire small", "place fire 4,4", "glacier 1,3 east", "glacier 1,3 east then small to
    2,3 and medium to 2,4" (where a split glacier's pieces go); in the words of `rules.words`, the
    same text in English."""
    kind = move["type"]
    if kind in ("forest", "mountain"):
        square = value_text(move.get("at", move.get("to")))
        write = _ACTION_WORDS.get((kind, move["action"]))
        return write(square) if write else fields_text(move)
    if kind == "fire":
        return msg("fire {size}", size=_SIZE_WORD[move["size"]])
    if kind == "place_fire":
        return msg("place fire {square}", square=value_text(move["to"]))
    if kind == "glacier":
        way = {"square": value_text(move["from"]), "way": _WAY[move["dir"]]}
        if move.get("place"):
            return msg("glacier {square} {way} then {placed}", **way, placed=_placements_text(move["place"]))
        return msg("glacier {square} {way}", **way)
    return fields_text(move)
