"""What this server plays: the rules catalogue with each game's move schema and page, and the bots."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from django.conf import settings

import bots
import rules
from games import errors, words
from rules import docs as rules_docs
from rules.errors import UnknownRules

GAME_DOCS = Path(settings.BASE_DIR) / "docs" / "games"


def rules_catalogue() -> list[dict[str, Any]]:
    """Every game this server plays, as `GET /api/rules/` lists it."""
    return [_in_readers_words(game.describe()) for game in rules.catalog().values()]


def rules_detail(*, rules_id: str) -> dict[str, Any]:
    """One game as `GET /api/rules/{id}/` gives it: its description, its move schema and its page
    (`docs/games/<id>.md`, made by `python -m rules.docs`)."""
    try:
        game = rules.get(rules_id)
    except UnknownRules as error:
        raise errors.RulesNotFound(str(error.message if hasattr(error, "message") else error)) from None
    return {**_in_readers_words(game.describe()), "move_schema": _move_schema(game.id), "doc": _doc_of(game.id)}


WORDED_KEYS = ("label", "description", "choice_labels")  # an option's words; its name and choices are ids


def _in_readers_words(described: dict[str, Any]) -> dict[str, Any]:
    """A game's description with its options' words (label, description, choices' labels) in the
    reader's language."""
    options = [{**option, **{key: words.translated(option[key]) for key in WORDED_KEYS if key in option}}
               for option in described.get("options", [])]
    return {**described, "options": options}


@functools.cache
def _move_schema(rules_id: str) -> dict[str, Any]:
    stored = GAME_DOCS / f"{rules_id}.moves.json"
    if stored.exists():
        return json.loads(stored.read_text())
    return rules_docs.move_schema(rules.get(rules_id))  # a game kept outside this repository


@functools.cache
def _doc_of(rules_id: str) -> str | None:
    page = GAME_DOCS / f"{rules_id}.md"
    return page.read_text() if page.exists() else None


def bots_catalogue() -> list[dict[str, Any]]:
    """Every bot, with its levels, as `GET /api/bots/` lists it."""
    return [spec.describe() for spec in bots.catalog().values()]
