"""Short human notation for moves, shared by every game: what `Rules.describe_move` writes and
`Rules.parse_move` reads back (email replies and the web client's move list use both).

The default notation names the move's type and then each other field in the order the move
lists them: `move to 0,6`, `glacier from 0,0 dir s`, `push entry n1`. A pair or list of numbers
is written with commas (`3,-1`), a list of names with `+`. A game whose players have a better
notation (board coordinates, arrows) overrides `describe_move`; `parse_move` needs no override,
since it reads a text by matching it against the descriptions of the seat's legal moves.

A game may write its notation with `msg` (`rules.words`), each template's English the notation
itself: the matcher reads the English, and a reader of another language reads the move in their
words ("fire small" is "vuur klein" to a Dutch reader, who still types "fire small").

A description may open with context that the player need not type back, ended by a colon:
"roll 4: to 3,5" is read from "roll 4: to 3,5" or from "to 3,5".
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from rules.words import msg

Move = dict[str, Any]


def value_text(value: Any) -> str:
    """One field's value in the notation."""
    if type(value) in (list, tuple) and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        return f"{value[0]},{value[1]}"  # a pair of coordinates, the most frequent value: read at once
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        if all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value):
            return ",".join(str(item) for item in value)
        return "+".join(value_text(item) for item in value) or "none"
    if isinstance(value, dict):
        return " ".join(f"{key} {value_text(item)}" for key, item in value.items())
    if value is None:
        return "none"
    return str(value)


def fields_text(move: Move) -> str:
    """The default notation: the type, then each other field as `name value`."""
    words = [str(move["type"]).replace("_", " ")]
    for key, value in move.items():
        if key != "type":
            words.append(f"{key.replace('_', ' ')} {value_text(value)}")
    return " ".join(words)


def normal(text: str) -> str:
    """A text as the matcher compares it: case, spacing, and spaces around , + > - forgiven."""
    text = " ".join(text.strip().lower().split())
    text = re.sub(r"\s*([,+>])\s*", r"\1", text)
    return re.sub(r"\s*-\s*>\s*", "->", text)


def readings(description: str) -> set[str]:
    """The normal texts that name a move: its whole description, and what follows its context."""
    whole = normal(description)
    _, colon, rest = whole.partition(": ")
    return {whole, rest} if colon and rest else {whole}


def matches(text: str, legal: Sequence[Move], describe: Callable[[Move], str]) -> list[Move]:
    """The legal moves whose description reads as `text` (one, or the text is refused)."""
    wanted = normal(text)
    return [move for move in legal if wanted in readings(describe(move))]


def listing(legal: Sequence[Move], describe: Callable[[Move], str], most: int = 20) -> str:
    """The legal moves in notation, for an error that says what would have been accepted; the
    words around them in the reader's language (a mail's refusal showed "none" in Dutch)."""
    if not legal:
        return msg("none")
    listed = "; ".join(describe(move) for move in legal[:most])  # notation: what a reply types
    return msg("{listed} (and {more} more)", listed=listed, more=len(legal) - most) if len(legal) > most else listed
