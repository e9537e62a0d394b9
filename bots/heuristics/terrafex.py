"""Terrafex: an evaluation from the running score (bands round forests, mountains and fires).

Random rollouts run the whole game (80-odd actions, slow), so the search plays two turns' worth
of random actions and then values the position by the score the game shows everybody.
"""

from __future__ import annotations

from typing import Any, Sequence

from bots.heuristics._margin import shares

ROLLOUT_LIMIT = 10
SHARPNESS = 0.4  # a 5-point lead is worth about 88% of the win
# The best few moves of a position usually lie within a hundredth of a reward of each other here:
# with the default constant (0.7) the search spread its visits evenly over them at any budget, so
# level 3 chose little better than level 2 (60% of 100 games). With 0.3 it tells them apart.
EXPLORATION = 0.3


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(game.view(state, None)["scores"], SHARPNESS)
