"""Space Junkyard: an evaluation from each ship's score as it stands (sections' points less the
loose openings, the figure the game ends on), plus what that score does not see yet:

- open joints: a loose opening costs a point at the end, but while tiles are left it is also the
  place the next section joins, so it is worth part of a point back in proportion to the stack
  still to come (nothing once the stack is empty, when the score is final);
- storage: resources in the hold pay the next joint (every open-open joint costs both tiles'
  resources), so each stored one is worth a little, less as the end nears.

Random rollouts run for some 270 actions; the search plays random actions to the end of the
next ship's turn (until the acting ship has changed twice: some 10 actions, at most 64) and then
values the position by these standings. The horizon is counted in turns, not actions: a ship may
convert a resource and convert it back as often as its stores allow, which changes nothing for
anyone, and with a horizon of 16 actions each such conversion pushed the other ship's next turn
further out of sight, so the search found conversions better than ending the phase and went on
converting for thousands of actions (two of the benchmark's level-3 games did, 2026-12-07).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

from bots.heuristics._margin import shares
from rules.space_junkyard.data import ALL_TILES, CLOSED
from rules.space_junkyard.ship import OFFSETS, by_place, part_edges, score

ROLLOUT_TURNS = 2
ROLLOUT_LIMIT = 64  # actions, only a cap: a random turn is some 7 (14 at most in 20 games)
SHARPNESS = 0.5
OPEN_JOINT_WORTH = 0.8  # of a point, per loose opening, at the start of the game
STORED_WORTH = 0.25  # of a point, per resource in the hold, at the start of the game


def evaluate(game: Any, state: Any) -> Sequence[float]:
    to_come = len(state.stack) / len(ALL_TILES)
    return shares([None if ship.out else standing(ship, to_come) for ship in state.ships], SHARPNESS)


def standing(ship: Any, to_come: float) -> float:
    """The ship's score with its open joints and stored resources valued by the tiles to come."""
    points, loose = _ship_figures(ship.parts)
    future = OPEN_JOINT_WORTH * loose + STORED_WORTH * sum(ship.stores)
    return points + to_come * future


@lru_cache(maxsize=4096)
def _ship_figures(parts: tuple) -> tuple[int, int]:
    """The ship's score and loose openings: a pure function of its parts, and every rollout of a
    search values ships whose parts it has seen (a few joints are made in each)."""
    return score(parts), loose_openings(parts)


def loose_openings(parts: tuple) -> int:
    places = by_place(parts)
    return sum(
        1
        for part in parts
        for side, edge in enumerate(part_edges(part))
        if edge is not CLOSED and (part.x + OFFSETS[side][0], part.y + OFFSETS[side][1]) not in places
    )
