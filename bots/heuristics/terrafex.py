"""Terrafex: an evaluation from the running score (bands round forests, mountains and fires).

Random rollouts run the whole game (80-odd actions, slow), so the search plays two turns' worth
of random actions and then values the position by the score the game shows everybody.
"""

from __future__ import annotations

from typing import Any, Sequence

from bots.heuristics._margin import shares

ROLLOUT_LIMIT = 10
SHARPNESS = 0.4  # a 5-point lead is worth about 88% of the win


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares(game.view(state, None)["scores"], SHARPNESS)
