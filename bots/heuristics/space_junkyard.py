"""Space Junkyard: an evaluation from each ship's score as it stands (sections' points less
the loose openings), the figure the game ends on.

Random rollouts run for some 270 actions; the search plays about two turns of random actions
and then values the position by the ships' scores.
"""

from __future__ import annotations

from typing import Any, Sequence

from bots.heuristics._margin import shares
from rules.space_junkyard.ship import score

ROLLOUT_LIMIT = 16
SHARPNESS = 0.5


def evaluate(game: Any, state: Any) -> Sequence[float]:
    return shares([None if ship.out else score(ship.parts) for ship in state.ships], SHARPNESS)
