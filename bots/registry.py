"""The bots on offer, their levels and the budget behind each level."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from bots import greedy, mcts, random_bot
from bots.base import BotSpec, InvalidLevel
from rules.base import Move, Rules
from rules.words import msg

# A level is an iteration count and nothing else, so the same seed and view give the same move on
# any machine, loaded or not. The service's own cap (`max_seconds`) may still cut a search short.
MCTS_BUDGETS: dict[int, mcts.Budget] = {
    1: mcts.Budget(iterations=100, milliseconds=None),
    2: mcts.Budget(iterations=800, milliseconds=None),
    3: mcts.Budget(iterations=3000, milliseconds=None),
}


def _random_decide(game: Rules, view: dict[str, Any], seat: int, level: int,
                   rng: random.Random, max_seconds: float | None) -> Move:
    return random_bot.decide(game, view, seat, level, rng)


def _greedy_decide(game: Rules, view: dict[str, Any], seat: int, level: int,
                   rng: random.Random, max_seconds: float | None) -> Move:
    return greedy.decide(game, view, seat, level, rng)


def _mcts_decide(game: Rules, view: dict[str, Any], seat: int, level: int,
                 rng: random.Random, max_seconds: float | None) -> Move:
    try:
        budget = capped(MCTS_BUDGETS[level], max_seconds)
    except KeyError:
        raise InvalidLevel(msg("bot 'mcts' has no level {level!r}", level=level)) from None
    return mcts.decide(game, view, seat, budget, rng)


def capped(budget: mcts.Budget, max_seconds: float | None) -> mcts.Budget:
    """`budget` with its wall-clock cap lowered to `max_seconds` (never raised)."""
    if max_seconds is None:
        return budget
    cap = max(1, int(max_seconds * 1000))
    if budget.milliseconds is not None:
        cap = min(cap, budget.milliseconds)
    return dataclasses.replace(budget, milliseconds=cap)


def _budget_note(level: int) -> str:
    budget = MCTS_BUDGETS[level]
    return f"{budget.iterations} search iterations a move"


BOTS: dict[str, BotSpec] = {
    "random": BotSpec(
        name="random",
        title="Random",
        description="Plays a uniformly random legal move.",
        levels=(1,),
        default_level=1,
        level_notes=("a random legal move",),
        decide=_random_decide,
    ),
    "greedy": BotSpec(
        name="greedy",
        title="Greedy",
        description=(
            "Looks one move ahead: plays the move after which the game's evaluation rates its "
            "own seat best, in positions drawn to agree with what its seat sees."
        ),
        levels=(1,),
        default_level=1,
        level_notes=("the best move by the evaluation, one move deep",),
        decide=_greedy_decide,
    ),
    "mcts": BotSpec(
        name="mcts",
        title="Monte Carlo tree search",
        description=(
            "Information-set UCT: searches over states sampled to agree with what its seat "
            "sees, never the hidden truth."
        ),
        levels=tuple(sorted(MCTS_BUDGETS)),
        default_level=2,
        level_notes=tuple(_budget_note(level) for level in sorted(MCTS_BUDGETS)),
        decide=_mcts_decide,
    ),
}
