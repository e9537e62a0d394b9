"""Optional per-game heuristics, found by rules id: `bots/heuristics/<rules_id>.py`.

A heuristic module may define any of these; the search uses what is there and falls back to the
generic behaviour for the rest:

- `evaluate(game, state) -> Sequence[float]`: how good the (unfinished) state is for each seat,
  each in [0, 1] (0 lost, 1 won); used where a rollout reaches its length cap.
- `rollout_move(game, state, seat, moves, rng) -> Move`: the move a rollout plays, one of `moves`
  (the seat's legal moves, never empty); used instead of a uniformly random move.
- `ROLLOUT_LIMIT: int`: the rollout length cap in actions for this game.
- `ROLLOUT_TURNS: int`: end the rollout once the acting seat has changed this many times, so its
  horizon is counted in turns (ROLLOUT_LIMIT then only caps it). For a game where a seat may take
  actions that change nothing for the others (a conversion and its undoing), a horizon in actions
  makes those actions look good: each one pushes the next seat's turn past the evaluation (the
  horizon effect), and a search can go on making them for ever.
- `TREE_DEPTH: int`: how many moves deep the search tree may grow (1: only the seat's own
  moves, each valued by rollouts; the default has no cap). For a game where chance moves
  between every pair of decisions and the budget is small, the deeper nodes mostly hold
  the opponents' randomly expanded replies, which the rollout policy models better.

A heuristic sees sampled states only (the search never holds the true state), so it cannot cheat.
Nothing game-specific lives anywhere else in `bots/`.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


def module_name(rules_id: str) -> str:
    """Rules ids may hold hyphens; module names may not."""
    return f"{__name__}.{rules_id.replace('-', '_')}"


@cache
def for_rules(rules_id: str) -> ModuleType | None:
    """The game's heuristic module, or None if it has none. Its own import errors are raised."""
    name = module_name(rules_id)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise
