"""The `layout` option: 1, 2, or a custom list of pieces, checked and turned into a board.

A custom layout is a list of pieces, each {"row": r, "col": c, "size": "S"|"M"|"L",
"colour": "green"|"yellow"|"red"|"blue"} or the compact [r, c, size, colour]. It needs at least
one glacier and one forest, one piece a square, and no more pieces of a kind than the supply
(5 small, 5 medium, 4 large of each colour once the turn trackers stand aside).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.errors import InvalidOptions
from rules.terrafex import words
from rules.terrafex.board import SQUARES, full_supply, pool_slot, square_at
from rules.terrafex.data import COLOURS, COLS, FOREST, GLACIER, LAYOUTS, ROWS, SIZE_BY_NAME, SUPPLY
from rules.words import msg

Piece = tuple[int, int, int, str]  # row, col, size, colour


def _fail(message: str, code: str) -> None:
    raise InvalidOptions("layout", message, code)


def layout_pieces(value: Any) -> tuple[Piece, ...]:
    """The pieces of a valid layout; InvalidOptions naming what is wrong otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in LAYOUTS:
            _fail(msg("is 1, 2 or a list of pieces, not {value}", value=value), "unknown_layout")
        return LAYOUTS[value]
    if not isinstance(value, list) or not value:
        _fail(msg("is 1, 2 or a non-empty list of pieces, not {value!r}", value=value), "unknown_layout")
    pieces = tuple(_read_piece(item) for item in value)
    _check_layout(pieces)
    return pieces


def _read_piece(item: Any) -> Piece:
    if isinstance(item, list) and len(item) == 4:
        item = dict(zip(("row", "col", "size", "colour"), item))
    if not isinstance(item, dict) or set(item) != {"row", "col", "size", "colour"}:
        shapes = '{"row", "col", "size", "colour"} or [row, col, size, colour]'
        _fail(msg("each piece is {shapes}, not {item!r}", shapes=shapes, item=item), "bad_piece")
    row, col, size, colour = item["row"], item["col"], item["size"], item["colour"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (row, col)):
        _fail(msg("row and col of {item!r} are whole numbers", item=item), "bad_piece")
    if not (0 <= row < ROWS and 0 <= col < COLS):
        _fail(msg("piece {item!r} is off the 7x8 board", item=item), "off_board")
    if not isinstance(size, str) or size not in SIZE_BY_NAME:
        _fail(msg('size of {item!r} is "S", "M" or "L"', item=item), "bad_size")
    if colour not in COLOURS:
        _fail(msg("colour of {item!r} is one of {colours}", item=item, colours=", ".join(COLOURS)), "bad_colour")
    return row, col, SIZE_BY_NAME[size], colour


def _check_layout(pieces: tuple[Piece, ...]) -> None:
    squares = Counter((row, col) for row, col, _, _ in pieces)
    taken = [square for square, count in squares.items() if count > 1]
    if taken:
        _fail(msg("square {taken} holds more than one piece", taken=list(taken[0])), "square_taken")
    colours = {colour for _, _, _, colour in pieces}
    if GLACIER not in colours:
        _fail(msg("needs at least one glacier (blue piece)"), "needs_glacier")
    if FOREST not in colours:
        _fail(msg("needs at least one forest (green piece)"), "needs_forest")
    kinds = Counter((colour, size) for _, _, size, colour in pieces)
    for (colour, size), count in kinds.items():
        if count > SUPPLY[size]:
            message = msg(
                "uses {number} size-{size} {colour} pieces; there are {supply}",
                number=count,
                size=size,
                colour=words.colour(colour),
                supply=SUPPLY[size],
            )
            _fail(message, "not_enough_pieces")


def layout_board(pieces: tuple[Piece, ...]) -> tuple[tuple, tuple[int, ...]]:
    """The board and the pool left once the layout is set up."""
    board: list = [None] * SQUARES
    pool = full_supply()
    for row, col, size, colour in pieces:
        board[square_at(row, col)] = (colour, size, 0)
        pool[pool_slot(colour, size)] -= 1
    return tuple(board), tuple(pool)
