"""The rules' words (`rules.words`) in the reader's language: the service layer translates what
the rules wrote in English, once it knows who reads it (the active language: a page's reader, a
mail's recipient)."""

from __future__ import annotations

from typing import Any

from django.utils import formats, translation

from rules.text import fit
from rules.words import Lines, Message, msg


def translated(value: Any) -> Any:
    """A text the rules wrote, or a presentation (dicts and lists of them), in the active language;
    anything else as it is. English readers get the rules' own text: nothing to do."""
    if translation.get_language() in (None, "en", "en-us"):
        return value
    return _walk(value)


def _walk(value: Any) -> Any:
    if isinstance(value, Message):
        return value.render(translation.gettext, translation.ngettext, number_text)
    if isinstance(value, dict):
        return {key: _walk(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk(item) for item in value]
    if isinstance(value, str) and value:
        return translation.gettext(value)
    return value


def number_text(value: float) -> str:
    """A number in the active language's way: 1.5 in English, 1,5 in Dutch (no grouping, the
    shortest form: 2, not 2.0)."""
    return f"{float(value):g}".replace(".", formats.get_format("DECIMAL_SEPARATOR"))


def text_lines(text: str) -> str:
    """A text board in the active language: each line the rules wrote with `msg` (a status line,
    a legend line) translated, then fitted to the board's width again (Dutch runs longer); board
    lines match no message and stay as they are."""
    if translation.get_language() in (None, "en", "en-us"):
        return text
    lines = text.lines if isinstance(text, Lines) else text.split("\n")
    return "\n".join(fit([_line(line) for line in lines]))


def _line(line: str) -> str:
    if isinstance(line, Message):
        return _walk(line)
    return translation.gettext(line) if line.strip() else line


# A game's state as a sentence names it ("game 3 is finished"): words of the reader's language,
# where the database's own word was written into the translated sentence ("partij 3 is finished").
_STATES = {"open": msg("open"), "active": msg("active"), "finished": msg("finished")}


def state_said(status: str) -> Any:
    return _STATES.get(status, status)
