"""Terrafex: an evaluation from the running score and how near the end it is.

Random rollouts run the whole game (80-odd actions, slow), so the search plays two turns' worth
of random actions and then values the position by the score the game shows everybody, as a share
of the win that grows sharper as the end nears. The game ends once 40 turns in a row pass with
no glacier meeting a fire (`quiet_turns` counts them; most games end so) or the last glacier
melts: a 5-point lead with 35 quiet turns behind is nearly a won game, the same lead at the
start of a stretch far from one. Without the clock the search saw no worth in steering a lead
towards the end or, behind, in a melt that starts the count again.

The sharpness, `NEAR_END / (turns left + 1)` with the turns left counted by `quiet_turns`, is the
one that best predicted the results of seeded games (`python -m bench.evaluation_fit --rules
terrafex`, docs/decisions/0043-terrafex-values-a-lead-by-the-time-left.md).
"""

from __future__ import annotations

from typing import Any, Sequence

from bots.heuristics._margin import shares
from rules.terrafex.data import QUIET_TURN_LIMIT

ROLLOUT_LIMIT = 10
NEAR_END = 4.6  # a 5-point lead: about 64% of the win with 40 quiet turns to go, 98% with 5


def evaluate(game: Any, state: Any) -> Sequence[float]:
    seen = game.view(state, None)
    return shares(seen["scores"], sharpness(seen["quiet_turns"]))


def sharpness(quiet_turns: int) -> float:
    """How much a point of lead weighs with `quiet_turns` quiet turns behind."""
    return NEAR_END / (QUIET_TURN_LIMIT + 1 - min(quiet_turns, QUIET_TURN_LIMIT))
