"""A position's worth to one seat, and the move the bot would prefer there: the analysis of a
finished game (`analysis/`) asks this of every move, through the rules protocol only.

The same search as the bot's (`bots.mcts`), from the seat's view alone: every iteration samples a
full state that agrees with the view, so hidden parts are guessed, never read. Unlike a decision,
an evaluation may be asked where another seat is to act (the position just after the seat's
move): the tree's first move is then that seat's, and the value is still the evaluated seat's.

The value is the mean reward the evaluated seat got over the search's iterations, in [0, 1] (the
bot's rewards: a sole win 1, a loss 0, a shared win 1/k, with a tenth for the score margin), so
it reads as a win expectation. As the search favours its best lines, the mean approaches the
value of best play from the position as the budget grows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

from bots.mcts import Budget, Node, Search, rewards
from bots.random_bot import seat_moves
from rules.base import Move, Rules, State


@dataclass(frozen=True)
class Evaluation:
    value: float  # the seat's expected reward in [0, 1]
    preferred: Move | None  # the move the search liked best, when the seat is to act
    choices: int  # how many legal moves the seat had (0 when it was not to act)


class _EvaluatingSearch(Search):
    """The bot's search, rooted at whoever acts in each sample, summing the evaluated seat's
    reward at the root."""

    def __init__(self, game: Rules, view: dict[str, Any], seat: int, budget: Budget, rng: random.Random):
        super().__init__(game, view, seat, budget, rng)
        self.total = 0.0

    def root_mover(self, state: State) -> int:
        acting = self.game.to_act(state)
        return self.seat if self.seat in acting else acting[0]

    def backpropagate(self, path: list[Node], reward: Sequence[float]) -> None:
        super().backpropagate(path, reward)
        self.total += reward[self.seat]


def evaluate(game: Rules, view: dict[str, Any], seat: int, budget: Budget, rng: random.Random) -> Evaluation:
    """How good the position in `view` is for `seat`, and (when it is to act) its preferred move."""
    search = _EvaluatingSearch(game, view, seat, budget, rng)
    sample = search.sample()
    outcome = game.outcome(sample)
    if outcome is not None:
        return Evaluation(value=rewards(outcome)[seat], preferred=None, choices=0)
    moves = seat_moves(game, view, seat, rng) if seat in game.to_act(sample) else []
    search.run()
    value = search.total / search.root.visits if search.root.visits else 0.5
    preferred = search.most_visited(moves) if moves else None
    return Evaluation(value=round(value, 4), preferred=preferred, choices=len(moves))
