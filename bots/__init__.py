"""Bots: opponents that play any game through the rules protocol alone.

The service calls two functions:
- `catalog()`: every bot by name (a `BotSpec` with `levels`, `default_level`, `describe()`);
- `choose_move(game, view, seat, bot=..., level=..., seed=..., max_seconds=None, in_a_row=0)`: the
  move a bot plays for a seat, from that seat's view only, the same for the same seed and view (as
  long as `max_seconds`, the service's cap on the thinking, does not cut the search short: a level
  itself is an iteration count, never a time); after `MOST_ACTIONS_IN_A_ROW` actions of the seat
  in a row, the rules' timeout move.

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
    "MOST_ACTIONS_IN_A_ROW", "BotError", "BotSpec", "InvalidLevel", "NoMoveToChoose", "UnknownBot", "catalog",
    "choose_move", "get",
]


def catalog() -> dict[str, BotSpec]:
    """Every bot by name, in name order."""
    return dict(sorted(BOTS.items()))


def get(name: Any) -> BotSpec:
    if not isinstance(name, str) or name not in BOTS:
        known = ", ".join(sorted(BOTS))
        raise UnknownBot(msg("no bot {name!r}; known bots: {known}", name=name, known=known))
    return BOTS[name]


# Actions a seat may make in a row, with no other seat acting between, before its bot is taken to
# be circling: six times the longest turn seen in random play of any game (Space Junkyard's 16).
# A turn that allows an action again and again (a conversion and its reverse) let a search that
# found each step a hair better go round for thousands of actions (docs/decisions/0044).
MOST_ACTIONS_IN_A_ROW = 100


def choose_move(game: Rules, view: dict[str, Any], seat: int, *, bot: str, level: int,
                seed: str, max_seconds: float | None = None, in_a_row: int = 0) -> Move:
    """The move `bot` at `level` plays for `seat`, knowing only `view` (never a state).

    `in_a_row` is how many actions this seat has just made with no other seat acting between
    (the caller counts them in the log): from `MOST_ACTIONS_IN_A_ROW` on, the bot plays the move
    the rules make for a seat whose time ran out, which moves the game on.

    Raises UnknownBot, InvalidLevel, or NoMoveToChoose when the seat has nothing to do.
    """
    spec = get(bot)
    spec.check_level(level)
    rng = decision_rng(seed, view, seat, bot, level)
    if in_a_row >= MOST_ACTIONS_IN_A_ROW:
        return game.timeout_move(game.sample_state(view, seat, rng), seat)
    return spec.decide(game, view, seat, level, rng, max_seconds)
