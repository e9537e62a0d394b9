"""The game catalogue. Pure Python: nothing under `rules/` imports Django.

Every package or module under `rules/` that defines `RULES` (a `rules.base.Rules` instance) is a
game, so adding a game means adding a package and nothing else. Games kept elsewhere (one in
development in its own repository, or the test suite's toy game) join the catalogue by module
path in `SCRAPYARD_EXTRA_RULES` (comma-separated), read once per process.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from functools import cache

from rules.base import Rules
from rules.errors import UnknownRules
from rules.words import msg

_NOT_GAMES = frozenset({"base", "codec", "docs", "errors", "fields", "notation", "options", "presentation", "rng", "text", "values"})


@cache
def catalog() -> dict[str, Rules]:
    """Every game by id, in id order. An import error in a game package is raised, not hidden."""
    games: dict[str, Rules] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name in _NOT_GAMES or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        game = getattr(module, "RULES", None)
        if isinstance(game, Rules):
            games[game.id] = game
    for path in filter(None, (part.strip() for part in os.environ.get("SCRAPYARD_EXTRA_RULES", "").split(","))):
        game = getattr(importlib.import_module(path), "RULES", None)
        if not isinstance(game, Rules):
            raise TypeError(f"SCRAPYARD_EXTRA_RULES names {path}, which defines no RULES")
        games[game.id] = game
    return dict(sorted(games.items()))


def get(rules_id: str) -> Rules:
    try:
        return catalog()[rules_id]
    except (KeyError, TypeError):
        known = ", ".join(catalog()) or "none"
        raise UnknownRules(msg("no game {rules_id!r}; known games: {known}", rules_id=rules_id, known=known)) from None
