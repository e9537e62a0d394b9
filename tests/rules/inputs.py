"""What a game supplies to the shared suites, from its own test folder: `tests/rules/<id>/inputs.py`
(for a game whose package lives elsewhere, the `inputs` module beside it). A shared test asks
here and skips a game that supplies nothing, so a new game needs no line in any shared suite.

An `inputs` module may define:
- `WIN_IN_ONE`: a `WinInOne` position where the seat to act can win within its turn (the bots'
  tests: the MCTS bot must find it).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import rules


@dataclass(frozen=True)
class WinInOne:
    dumped: dict  # the position, as the game's `dump` writes it
    seat: int
    winning: dict | None  # the move to find, or None where several win
    blunder: tuple[dict, ...]  # moves of the seat after which it has not won (the game may go on)


def inputs_of(game_id: str) -> ModuleType | None:
    """The game's `inputs` module, if it has one."""
    package = type(rules.get(game_id)).__module__
    for name in (f"tests.rules.{game_id}.inputs", f"{package}.inputs"):
        try:
            if importlib.util.find_spec(name) is not None:
                return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    return None


def supplied(game_id: str, name: str) -> Any | None:
    """One input of the game (`WIN_IN_ONE`, ...), or None when it supplies none."""
    return getattr(inputs_of(game_id), name, None)
