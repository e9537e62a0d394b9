"""Terrain Vague: an evaluation from each gang's home turf, the figure the game is won on.

Random rollouts end a step at random and run for hundreds of actions; the search plays a short
random stretch and then values the position by home-turf size as the public view gives it.
"""

from __future__ import annotations

from typing import Any, Sequence

from bots.heuristics._margin import shares

ROLLOUT_LIMIT = 16
SHARPNESS = 0.3


def evaluate(game: Any, state: Any) -> Sequence[float]:
    seen = game.view(state, None)
    turf = seen["home_turf"]
    eliminated = set(seen.get("eliminated") or ())
    return shares([None if gang in eliminated else turf.get(gang, 0) for gang in seen["seats"]],
                  SHARPNESS)
