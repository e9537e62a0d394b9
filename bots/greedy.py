"""The greedy bot: one ply deep, the legal move whose position the game's evaluation likes best
for the bot's own seat. The sensible opponent a search must beat (`bench/bots_strength.py`).

Like every bot it holds only its seat's view. It scores each move in a few states sampled to
agree with that view (`sample_state`), so a hidden part (another seat's secret choice, a future
draw) is guessed, never read; a game without chance or secrets needs one sample. A move that ends
the game is scored by its result (the search's rewards), any other by the game's evaluation
(`bots.heuristics`); a game without one gets an even share, so the greedy bot then plays at
random among the moves that do not lose at once. Ties go to a seeded random pick.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from bots import heuristics
from bots.mcts import EvenShare, rewards
from bots.random_bot import seat_moves
from rules.base import Move, Rules, State

SAMPLES_WITH_UNKNOWNS = 3  # states scored per move when the view hides something


def decide(game: Rules, view: dict[str, Any], seat: int, level: int, rng: random.Random) -> Move:
    moves = seat_moves(game, view, seat, rng)
    if len(moves) == 1:
        return moves[0]
    unknowns = game.chance or game.hidden_information
    samples = [game.sample_state(view, seat, rng) for _ in range(SAMPLES_WITH_UNKNOWNS if unknowns else 1)]
    values = [sum(_value(game, state, seat, move) for state in samples) for move in moves]
    best = max(values)
    return rng.choice([move for move, value in zip(moves, values) if value >= best - 1e-9])


def _value(game: Rules, state: State, seat: int, move: Move) -> float:
    after = game.apply(state, seat, move)
    return _worth(game, after)[seat]


def _worth(game: Rules, state: State) -> Sequence[float]:
    outcome = game.outcome(state)
    if outcome is not None:
        return rewards(outcome)
    hints = heuristics.for_rules(game.id)
    evaluate = getattr(hints, "evaluate", None)
    return evaluate(game, state) if evaluate is not None else EvenShare(None)
