"""Sets of hexes as the bits of an int, for the flood fills (home turf, enclosed areas).

A flood fill grows a set by all its neighbours at once, a handful of shifts and masks per step,
instead of visiting hex by hex: the search's playouts flood after nearly every action.

Hex (q, r) of a board of radius R is bit (r + R) * W + (q + R), rows of W = 2R + 2 bits: the spare
bit at the end of each row is never on the board, so a shift that runs off one row's edge lands
on it (or before the board) and the board's mask drops it. Axial neighbours are then the bits
+-1 (east, west), +-W (south-east, north-west) and +-(W - 1) (south-west, north-east).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from rules.terrain_vague.hexes import Hex, board_hexes


@dataclass(frozen=True)
class Layout:
    radius: int
    width: int
    bit: dict  # Hex -> its bit (an int with one bit set)
    hex_at: dict  # bit index -> Hex
    board: int  # every hex of the board


@lru_cache(maxsize=None)
def layout(radius: int) -> Layout:
    width = 2 * radius + 2
    index = {h: (h[1] + radius) * width + (h[0] + radius) for h in board_hexes(radius)}
    return Layout(
        radius=radius,
        width=width,
        bit={h: 1 << i for h, i in index.items()},
        hex_at={i: h for h, i in index.items()},
        board=sum(1 << i for i in index.values()),
    )


def mask(grid: Layout, hexes: Iterable[Hex]) -> int:
    bit = grid.bit
    found = 0
    for hex_ in hexes:
        found |= bit[hex_]
    return found


def flood(grid: Layout, seed: int, allowed: int) -> int:
    """Every bit of `allowed` connected to `seed` through `allowed` (seed included)."""
    width, diagonal = grid.width, grid.width - 1
    area = seed & allowed
    while True:
        grown = (
            area
            | (area << 1)
            | (area >> 1)
            | (area << width)
            | (area >> width)
            | (area << diagonal)
            | (area >> diagonal)
        ) & allowed
        if grown == area:
            return area
        area = grown


def hexes_of(grid: Layout, bits: int) -> list[Hex]:
    """The hexes of a set of bits, in bit order."""
    hex_at = grid.hex_at
    found = []
    while bits:
        low = bits & -bits
        found.append(hex_at[low.bit_length() - 1])
        bits ^= low
    return found


def components(grid: Layout, allowed: int) -> list[int]:
    """The connected runs of `allowed`, each as its bits."""
    found = []
    while allowed:
        run = flood(grid, allowed & -allowed, allowed)
        found.append(run)
        allowed &= ~run
    return found
