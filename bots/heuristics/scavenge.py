"""Scavenge: an evaluation of unfinished games, read from the public (spectator) view.

Random rollouts of Scavenge run for thousands of actions, so the search plays a few random
actions and then scores each seat's progress through the game's three stages:
- with trash: less trash is better (it goes to whoever you land on);
- trash-free: the nearer the centre, where the good stuff lies, the better;
- carrying the good stuff: the nearer home (diagonal steps allowed), the better.
Progress becomes a share of the win by a softmax, so a clear leader gets most of it.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

ROLLOUT_LIMIT = 6  # actions after the tree before the evaluation

HOLE_LOW, HOLE_HIGH = 4, 5  # rows and columns of the 2x2 hole (the centre)
SHARPNESS = 6.0  # softmax temperature: progress 0.5 ahead is worth about 95% in two-player games
TRASH_CAP = 6


def evaluate(game: Any, state: Any) -> Sequence[float]:
    seen = game.view(state, None)
    carrier = seen["good_stuff"]["carried_by"] if isinstance(seen["good_stuff"], dict) else None
    progress = [_progress(seat, carrier) for seat in seen["seats"]]
    weights = [0.0 if p is None else math.exp(SHARPNESS * p) for p in progress]
    total = sum(weights)
    return [w / total for w in weights]


def _progress(seat: dict[str, Any], carrier: int | None) -> float | None:
    """How far along the seat is, in [0, 1]; None once it has left the game."""
    at = seat["at"]
    if at is None:
        return None
    if seat["seat"] == carrier:
        return 0.75 + 0.25 * (1 - _distance_home(at, seat["start"]) / 10)
    if seat["trash"] == 0:
        return 0.5 + 0.2 * (1 - _distance_to_centre(at) / 10)
    return 0.45 * (1 - min(seat["trash"], TRASH_CAP) / TRASH_CAP)


def _distance_to_centre(at: Any) -> int:
    if not isinstance(at, list):
        return 0  # standing on the centre
    return _gap(at[0]) + _gap(at[1])


def _distance_home(at: Any, start: list[int]) -> int:
    """King steps home; from the centre, one step onto the ring round the hole first."""
    if not isinstance(at, list):
        at = [_nearest_ring(start[0]), _nearest_ring(start[1])]
        return 1 + _king_steps(at, start)
    return _king_steps(at, start)


def _king_steps(at: list[int], to: list[int]) -> int:
    return max(abs(at[0] - to[0]), abs(at[1] - to[1]))


def _gap(line: int) -> int:
    return max(HOLE_LOW - line, 0, line - HOLE_HIGH)


def _nearest_ring(line: int) -> int:
    return HOLE_LOW - 1 if line < HOLE_LOW else HOLE_HIGH + 1
