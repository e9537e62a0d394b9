"""The map: its entries, its lines, and pushing a new tile in (book, section 7).

An entry names a side and a line counted from 1: "N3" enters from the north edge into the third
column from the west and pushes south; "E2" enters from the east into the second row from the
north and pushes west. The same names serve for a side's border cells ("N3" is the third cell of
the north row), where a ship pushed off comes back.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from rules.values import evolve

if TYPE_CHECKING:  # the state's module reads the map through this one
    from rules.space_junkyard.state import State

SIDES = ("N", "E", "S", "W")
OPPOSITE_SIDE = {"N": "S", "S": "N", "E": "W", "W": "E"}
CORNER_NAMES = ("NW", "NE", "SE", "SW")
STEPS = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


@cache  # a handful of sizes; the new junk phase lists the entries in every position
def all_entries(size: int) -> tuple[str, ...]:
    return tuple(f"{side}{index}" for side in SIDES for index in range(1, size + 1))


def parse_entry(entry: str, size: int) -> tuple[str, int] | None:
    """(side, 0-based line) for a well-formed entry on this map, else None."""
    side, number = entry[:1], entry[1:]
    if side not in OPPOSITE_SIDE or not number.isdigit() or not 1 <= int(number) <= size:
        return None
    return side, int(number) - 1


def opposite_entry(entry: str) -> str:
    return OPPOSITE_SIDE[entry[0]] + entry[1:]


def line_cells(side: str, line: int, size: int) -> list[tuple[int, int]]:
    """The cells of a line in push order: the entry's border cell first."""
    inward = range(size) if side in ("N", "W") else range(size - 1, -1, -1)
    if side in ("N", "S"):
        return [(line, y) for y in inward]
    return [(x, line) for x in inward]


def border_cell(entry: str, size: int) -> tuple[int, int]:
    side, line = parse_entry(entry, size)  # type: ignore[misc]
    return line_cells(side, line, size)[0]


def corner_cell(corner: str, size: int) -> tuple[int, int]:
    far = size - 1
    return {"NW": (0, 0), "NE": (far, 0), "SE": (far, far), "SW": (0, far)}[corner]


def on_map(x: int, y: int, size: int) -> bool:
    return 0 <= x < size and 0 <= y < size


@cache  # one entry a cell of each map size: every movement position asks for its ship's
def neighbours(cell: tuple[int, int], size: int) -> tuple[tuple[str, tuple[int, int]], ...]:
    """The cells one step from `cell` on the map, with the step's direction, in N, E, S, W order."""
    x, y = cell
    found = []
    for direction, (dx, dy) in STEPS.items():
        if on_map(x + dx, y + dy, size):
            found.append((direction, (x + dx, y + dy)))
    return tuple(found)


def ship_cells(state: State) -> dict[tuple[int, int], int]:
    return {ship.at: seat for seat, ship in enumerate(state.ships) if ship.at is not None}


def _first_space(state: State, line: tuple[tuple[int, int], ...], ships: dict) -> int | None:
    """With `less_empty_space`: the first cell holding neither tile nor ship. A ship counts as
    something in the line, so the tiles before it push it along (ruling: no two ships ever share
    a cell, and a ship is never run over)."""
    for index, (x, y) in enumerate(line):
        if state.cell(x, y) is None and (x, y) not in ships:
            return index
    return None


@cache  # the few entries of each map size, one for every push
def _entry_line(entry: str, size: int) -> tuple[str, tuple[tuple[int, int], ...], tuple[int, ...]]:
    """The entry's side, its line's cells in push order, and their indices in `State.cells`."""
    side, index = parse_entry(entry, size)  # type: ignore[misc]
    line = tuple(line_cells(side, index, size))
    return side, line, tuple(y * size + x for x, y in line)


def push(state: State, entry: str, tile: str) -> State:
    """The state after `tile` is pushed in at `entry`: the line shifts one cell with its ships;
    what passes the far edge leaves (a tile for good, a ship until its next move)."""
    return evolve(state, **pushing(state, entry, tile))


def pushing(state: State, entry: str, tile: str) -> dict[str, Any]:
    """`push`'s changes to the state (the map, the tiles gone, the ships), for a move's single
    copy of the state."""
    side, line, slot = _entry_line(entry, state.size)
    ships = ship_cells(state)
    space = _first_space(state, line, ships) if state.options.less_empty_space else None
    last = len(line) - 1 if space is None else space
    cells, gone = list(state.cells), state.gone
    if space is None and cells[slot[last]] is not None:
        gone = (*gone, cells[slot[last]])
    for i in range(last, 0, -1):
        cells[slot[i]] = cells[slot[i - 1]]
    cells[slot[0]] = tile
    moved = list(state.ships)
    for i in range(last, -1, -1):
        seat = ships.get(line[i])
        if seat is None:
            continue
        if i == len(line) - 1:
            moved[seat] = evolve(moved[seat], at=None, off_side=OPPOSITE_SIDE[side])
        else:
            moved[seat] = evolve(moved[seat], at=line[i + 1])
    return {"cells": tuple(cells), "gone": gone, "ships": tuple(moved)}
