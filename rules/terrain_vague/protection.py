"""Garbage-can lids: which of a gang's hexes and pawns its lids protect, and how many times.

A lid protects its own gang's turf and pawns along its lines (the `PROTECT` lines of `lines.py`,
relays through the own clubhouse and the Toxic Waste included), never:
- itself nor the hex under it (two lids protect each other);
- a clubhouse (the hex under a clubhouse cannot be ripped anyway);
- another gang's turf or pawns (the lines stop at them);
- isolated pieces: a lid off its home turf does nothing, and hexes or pawns off the home turf are
  not protected;
- anything while its gang's clubhouse is destroyed (the home turf is then empty).
A protected target costs base x (protecting lids + 1), x2 to x5 (`costs.multiplier`). Turf and a
pawn on it are protected by the same lids, since a gang's pawns stand on its own turf.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from rules.terrain_vague.lines import PROTECT, Board, targets


def protection(board: Board, gang: str, home_turf: frozenset, lids: Iterable) -> Counter:
    """How many of `gang`'s lids protect each hex (absent hexes: none)."""
    counts: Counter = Counter()
    clubhouse = board.clubhouses.get(gang)
    if clubhouse is None:
        return counts
    for lid in lids:
        if lid in home_turf:
            # Sets and the counting done at C speed: every new position of a search asks again.
            covered = targets(board, gang, PROTECT, lid) & home_turf
            counts.update(covered - {clubhouse} if clubhouse in covered else covered)
    return counts
