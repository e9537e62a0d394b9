"""Bots: opponents that play any game through the rules protocol alone.

The service calls two functions:
- `catalog()`: every bot by name (a `BotSpec` with `levels`, `default_level`, `describe()`);
- `choose_move(game, view, seat, bot=..., level=..., seed=..., max_seconds=None)`: the move a bot
  plays for a seat, from that seat's view only, the same for the same seed and view (as long as
  `max_seconds`, the service's cap on the thinking, does not cut the search short: a level itself
  is an iteration count, never a time).

Bots: "random" (level 1), "greedy" (level 1, one ply by the game's evaluation; `bots.greedy`) and
"mcts" (levels 1-3, determinized UCT; see `bots.mcts`). Optional per-game heuristics live in `bots/heuristics/<rules_id>.py`; nothing else here knows any game.
"""

from __future__ import annotations

from typing import Any

from bots.base import BotError, BotSpec, InvalidLevel, NoMoveToChoose, UnknownBot, decision_rng
from bots.registry import BOTS
from rules.base import Move, Rules
from rules.words import msg

__all__ = [
    "BotError", "BotSpec", "InvalidLevel", "NoMoveToChoose", "UnknownBot", "catalog", "choose_move",
    "get",
]


def catalog() -> dict[str, BotSpec]:
    """Every bot by name, in name order."""
    return dict(sorted(BOTS.items()))


def get(name: Any) -> BotSpec:
    if not isinstance(name, str) or name not in BOTS:
        known = ", ".join(sorted(BOTS))
        raise UnknownBot(msg("no bot {name!r}; known bots: {known}", name=name, known=known))
    return BOTS[name]


def choose_move(game: Rules, view: dict[str, Any], seat: int, *, bot: str, level: int,
                seed: str, max_seconds: float | None = None) -> Move:
    """The move `bot` at `level` plays for `seat`, knowing only `view` (never a state).

    Raises UnknownBot, InvalidLevel, or NoMoveToChoose when the seat has nothing to do.
    """
    spec = get(bot)
    spec.check_level(level)
    rng = decision_rng(seed, view, seat, bot, level)
    return spec.decide(game, view, seat, level, rng, max_seconds)
