"""Hex geometry of the Junkyard: pure functions over axial coordinates.

A hex is a tuple `(q, r)` of axial coordinates; the third cube coordinate is `s = -q - r`. The
Toxic Waste sits at `CENTRE = (0, 0)` and a board of radius R holds every hex at distance at most
R from it: radius 5 (91 hexes) for 4 gangs, 4 (61) for 3, 3 (37) for 2. In moves and views a
hex is the JSON list `[q, r]`.

The six directions are numbered 0-5 counter-clockwise starting east; direction d and d + 3 are
opposite. Lines are the straight runs of hexes leaving a hex through one of its six edges, the
only way any pawn acts in Terrain Vague.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules.words import msg

Hex = tuple[int, int]

CENTRE: Hex = (0, 0)

# east, north-east, north-west, west, south-west, south-east (r grows downwards on screen)
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def on_board(hex_: Hex, radius: int) -> bool:
    return distance(hex_, CENTRE) <= radius


@lru_cache(maxsize=None)
def board_hexes(radius: int) -> tuple[Hex, ...]:
    """Every hex of the board, sorted by row (r) then column (q): 3R(R+1)+1 of them."""
    return tuple(
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(-radius, radius + 1)
        if on_board((q, r), radius)
    )


def step(hex_: Hex, direction: int, times: int = 1) -> Hex:
    dq, dr = DIRECTIONS[direction]
    return (hex_[0] + dq * times, hex_[1] + dr * times)


def neighbours(hex_: Hex) -> tuple[Hex, ...]:
    """The six hexes sharing an edge with this one, on the board or not."""
    return tuple(step(hex_, d) for d in range(6))


@lru_cache(maxsize=None)
def neighbours_on_board(hex_: Hex, radius: int) -> tuple[Hex, ...]:
    return tuple(n for n in neighbours(hex_) if on_board(n, radius))


@lru_cache(maxsize=None)
def neighbour_table(radius: int) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex of the board with its neighbours on the board, for the flood fills (read-only)."""
    return {h: neighbours_on_board(h, radius) for h in board_hexes(radius)}


def are_adjacent(a: Hex, b: Hex) -> bool:
    return distance(a, b) == 1


@lru_cache(maxsize=None)
def line(hex_: Hex, direction: int, length: int, radius: int) -> tuple[Hex, ...]:
    """The hexes leaving `hex_` in `direction`, nearest first, at most `length`, on the board."""
    run = []
    for times in range(1, length + 1):
        nxt = step(hex_, direction, times)
        if not on_board(nxt, radius):
            break
        run.append(nxt)
    return tuple(run)


@lru_cache(maxsize=None)
def lines(hex_: Hex, length: int, radius: int) -> tuple[tuple[Hex, ...], ...]:
    """The six lines from a hex (some may be empty at the edge), in direction order."""
    return tuple(line(hex_, d, length, radius) for d in range(6))


def direction_to(a: Hex, b: Hex) -> int | None:
    """The direction in which `b` lies on a straight line from `a`, or None (also for a == b)."""
    dq, dr = b[0] - a[0], b[1] - a[1]
    n = distance(a, b)
    if n == 0 or dq % n or dr % n:
        return None
    unit = (dq // n, dr // n)
    return DIRECTIONS.index(unit) if unit in DIRECTIONS else None


def between(a: Hex, b: Hex) -> tuple[Hex, ...]:
    """The hexes strictly between two hexes on a common line, nearest `a` first; () if none."""
    direction = direction_to(a, b)
    if direction is None:
        return ()
    return tuple(step(a, direction, t) for t in range(1, distance(a, b)))


def ring(radius_from_centre: int) -> tuple[Hex, ...]:
    """The hexes at exactly this distance from the centre, in board order."""
    board = board_hexes(radius_from_centre)
    return tuple(h for h in board if distance(h, CENTRE) == radius_from_centre)


def to_json(hex_: Hex) -> list[int]:
    return [hex_[0], hex_[1]]


def from_json(value: Any) -> Hex:
    """A hex from its JSON form `[q, r]`; ValueError if it is not two whole numbers."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        q, r = value[0], value[1]
        if type(q) is int and type(r) is int:  # plain ints, as every listed move has: no more to check
            return (q, r)
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or any(isinstance(c, bool) or not isinstance(c, int) for c in value)
    ):
        raise ValueError(msg("a hex is a list [q, r] of two whole numbers, not {value!r}", value=value))
    return (value[0], value[1])
