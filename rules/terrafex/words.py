"""Terrafex's colours, sizes and actions as words in the sentences its refusals, prompts and text
board write (`rules.words`): the ids read the same in English, another reader gets its own words.
The notation a move or a mail reply writes keeps the ids."""

from __future__ import annotations

from typing import Any

from rules.terrafex.data import FIRE, FOREST, GLACIER, MOUNTAIN
from rules.words import msg

COLOURS = {FOREST: msg("green"), MOUNTAIN: msg("yellow"), FIRE: msg("red"), GLACIER: msg("blue")}
SIZES = {1: msg("small"), 2: msg("medium"), 3: msg("large")}
ACTIONS = {"forest": msg("forest"), "mountain": msg("mountain"), "fire": msg("fire"), "glacier": msg("glacier")}


def colour(name: Any) -> Any:
    """A colour's word; anything else (a bad value, named back to its sender) as it is."""
    return COLOURS.get(name, name) if isinstance(name, str) else name


def action(name: Any) -> Any:
    return ACTIONS.get(name, name) if isinstance(name, str) else name


def piece_name(colour_id: str, size: int) -> str:
    """"small green": a piece by its size and colour."""
    return msg("{size} {colour}", size=SIZES[size], colour=colour(colour_id))
