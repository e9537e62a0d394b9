"""What every bot shares: its descriptor, its errors, and the seeded randomness it starts from.

A bot is a function of (game, view, seat, rng) that returns one of the seat's legal moves. It never
receives a state: whatever it needs of the hidden parts it draws itself with
`game.sample_state(view, seat, rng)`, so it can only know what the seat may know.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any, Callable

from rules.base import Move, Rules
from rules.values import canonical_json
from rules.words import msg

# A bot's decision: (game, view, seat, level, rng, max_seconds) -> move. `max_seconds` (or None)
# caps the thinking below what the level allows: the service's share of the machine per move.
Decide = Callable[[Rules, dict[str, Any], int, int, random.Random, "float | None"], Move]


class BotError(Exception):
    """Every error the bots raise; `code` is stable, `message` is for people. Not a `RulesError`:
    a bad bot choice is the caller's mistake about bots, not about the game's rules."""

    code = "bot_error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.message}


class UnknownBot(BotError):
    code = "unknown_bot"


class InvalidLevel(BotError):
    code = "invalid_level"


class NoMoveToChoose(BotError):
    """The seat has nothing to do in this view (not its turn, or the game is over)."""

    code = "no_move_to_choose"


@dataclass(frozen=True)
class BotSpec:
    """One bot as `GET /api/bots/` lists it: its levels and what each level means."""

    name: str
    title: str
    description: str
    levels: tuple[int, ...]
    default_level: int
    level_notes: tuple[str, ...]  # one line per level, in `levels` order
    decide: Decide

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "levels": list(self.levels),
            "default_level": self.default_level,
            "level_descriptions": {
                str(level): note for level, note in zip(self.levels, self.level_notes)
            },
        }

    def check_level(self, level: Any) -> int:
        if isinstance(level, bool) or not isinstance(level, int) or level not in self.levels:
            allowed = ", ".join(str(n) for n in self.levels)
            raise InvalidLevel(msg("bot {name!r} has levels {allowed}, not {level!r}", name=self.name, allowed=allowed, level=level))
        return level


def decision_rng(seed: str, view: dict[str, Any], seat: int, bot: str, level: int) -> random.Random:
    """The bot's private random source for one decision.

    Mixing the view in means a game can pass one seed for the whole game and still get fresh
    randomness at every decision, while the same seed and view always give the same move.
    """
    material = canonical_json([seed, view, seat, bot, level])
    return random.Random(hashlib.sha256(material.encode()).hexdigest())
