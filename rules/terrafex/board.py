"""Squares, cells, the finite supplies and scoring: pure functions and one scratch object.

A square is an index 0..55 (row * 8 + column; row 0 is White's edge). A cell is None (empty) or
a tuple (colour, size, under_or_over):
- ("green", s, 0): a forest; ("green", s, b): a forest of size s frosted by frost of size b <= s;
- ("blue", g, 0): a glacier; ("blue", g, f): a glacier of size g capping a forest of size f < g;
- ("yellow", s, 0): a mountain; ("red", s, 0): a fire.
"""

from __future__ import annotations

from rules.errors import IllegalMove
from rules.terrafex import words
from rules.terrafex.data import BANDS, COLOURS, COLS, DIRECTIONS, FIRE, FOREST, GLACIER, MOUNTAIN, ROWS, SIZES, SUPPLY
from rules.words import msg

SQUARES = ROWS * COLS
OFF = -1


def square_at(row: int, col: int) -> int:
    return row * COLS + col


def coords(square: int) -> list[int]:
    return [square // COLS, square % COLS]


def _steps(d_row: int, d_col: int) -> tuple[int, ...]:
    def step(square: int) -> int:
        row, col = divmod(square, COLS)
        row, col = row + d_row, col + d_col
        return square_at(row, col) if 0 <= row < ROWS and 0 <= col < COLS else OFF

    return tuple(step(square) for square in range(SQUARES))


# STEP[direction][square]: the neighbouring square that way, or OFF past the edge.
STEP = {name: _steps(*delta) for name, delta in DIRECTIONS.items()}


def neighbours(square: int) -> list[int]:
    return list(NEIGHBOURS[square])


# NEIGHBOURS[square]: the squares beside it on the board, in direction order (N, E, S, W).
NEIGHBOURS = tuple(
    tuple(n for n in (STEP[d][square] for d in DIRECTIONS) if n != OFF) for square in range(SQUARES)
)


def direction_between(start: int, end: int) -> str:
    return next(d for d in DIRECTIONS if STEP[d][start] == end)


def describe_square(square: int) -> str:
    row, col = coords(square)
    return f"({row},{col})"


def piece_name(colour: str, size: int) -> str:
    return words.piece_name(colour, size)


def is_glacier(cell) -> bool:
    """Glaciers are blue cells (capping glaciers included); frost sits inside a green cell."""
    return cell is not None and cell[0] == GLACIER


def has_glacier(board) -> bool:
    for cell in board:
        if cell is not None and cell[0] == GLACIER:
            return True
    return False


def band_owner(square: int, size: int) -> str:
    row, col = divmod(square, COLS)
    return BANDS[(row + col) % 2][size]


# Forests and mountains score their size for the band's owner, fires cost it; glaciers, frost
# and capped forests (out of the game under their glacier) score nothing.
SCORE_SIGN = {FOREST: 1, MOUNTAIN: 1, FIRE: -1, GLACIER: 0}


def band_scores(board) -> dict[str, int]:
    totals = {"white": 0, "black": 0}
    for square, cell in enumerate(board):
        if cell is not None and SCORE_SIGN[cell[0]]:
            totals[band_owner(square, cell[1])] += SCORE_SIGN[cell[0]] * cell[1]
    return totals


COLOUR_INDEX = {colour: index for index, colour in enumerate(COLOURS)}


def pool_slot(colour: str, size: int) -> int:
    return COLOUR_INDEX[colour] * 3 + size - 1


def full_supply() -> list[int]:
    return [SUPPLY[size] for _ in COLOURS for size in SIZES]


class Work:
    """A scratch copy of the board and both supplies that an action changes step by step.

    Every action runs on a Work made from the state, so a failure half-way (an IllegalMove)
    leaves the state untouched: the checks-before-changes rule, kept by construction.
    """

    __slots__ = ("board", "pool", "pit", "melted")

    def __init__(self, board, pool, pit, melted: bool = False):
        self.board = list(board)
        self.pool = list(pool)
        self.pit = list(pit)
        self.melted = melted

    def copy(self) -> Work:
        return Work(self.board, self.pool, self.pit, self.melted)

    def release(self, colour: str, size: int) -> None:
        """A piece leaves the board: red ones into the fire pit, the rest into the pool."""
        if colour == FIRE:
            self.pit[size - 1] += 1
        else:
            self.pool[pool_slot(colour, size)] += 1

    def take(self, colour: str, size: int, pit_too: bool = False) -> None:
        """Take a piece from the pool (or, for a burn's red result only, the fire pit)."""
        slot = pool_slot(colour, size)
        if self.pool[slot]:
            self.pool[slot] -= 1
        elif pit_too and self.pit[size - 1]:
            self.pit[size - 1] -= 1
        else:
            where = msg("pool or fire pit") if pit_too else msg("pool")
            message = msg("no {piece_name} piece left in the {where}", piece_name=piece_name(colour, size), where=where)
            raise IllegalMove(message, "supply_empty")
