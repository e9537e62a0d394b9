"""Text a person typed for one line (a chat line, a tournament's name), made fit to show wherever
it goes: a page, a mail, a stream, an arbiter's TRF file."""

from __future__ import annotations

import unicodedata

# Embeddings, overrides and isolates turn the rest of a line around: a name could show its
# neighbours' words backwards. The marks (U+200E, U+200F, U+061C) only nudge, and stay.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks included) one space, trimmed, and without
    control characters (C0 and C1: a bell, an escape sequence, a carriage return that rewrites a
    mail's or a file's line) or bidirectional controls."""
    kept = "".join(" " if char.isspace() else char for char in text
                   if char.isspace() or (unicodedata.category(char) != "Cc" and char not in _BIDI_CONTROLS))
    return " ".join(kept.split())
