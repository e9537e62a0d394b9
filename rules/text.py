"""Text boards for mail and `board.txt`: every line within 78 columns, so a board reads in any
mail program without wrapping."""

from __future__ import annotations

import re
import textwrap

from rules.words import Lines, Message

WIDTH = 78


def joined(lines: list[str], width: int = WIDTH, *, newline: bool = True, strip: bool = False) -> Lines:
    """A text board's lines fitted to `width` (and ended with a newline; their trailing spaces
    stripped if `strip`), each short line written with `msg` kept as it is, so that it is
    translated whole for a reader of another language."""
    written = [line.rstrip() if strip and not isinstance(line, Message) else line for line in lines]
    fitted = [line.rstrip() if strip and not isinstance(line, Message) else line for line in fit(lines, width)]
    ended = [""] if newline else []
    return Lines([*fitted, *ended], written=[*written, *ended])


def fit(lines: list[str], width: int = WIDTH) -> list[str]:
    """Each line longer than `width` wrapped, its continuation indented two more than the line
    itself: after a list's separator (", " or "; ") where every item fits a line, so that no item
    ("edges NESW -/B/R/Y") is cut in two, else at spaces; a line with no space to break at is cut."""
    fitted = []
    for line in lines:
        if len(line) <= width:
            fitted.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        fitted.extend(_at_items(line.strip(), width, indent) or
                      textwrap.wrap(line.strip(), width, initial_indent=indent, subsequent_indent=indent + "  ",
                                    break_long_words=True, break_on_hyphens=False))
    return fitted


LIST_BREAKS = re.compile(r"(?<=[,;]) ")


def _at_items(text: str, width: int, indent: str) -> list[str]:
    """`text` broken only after its list separators, or [] if an item would not fit a line."""
    items = LIST_BREAKS.split(text)
    if len(items) < 2:
        return []
    lines = _packed(items, width, indent)
    return lines if all(len(line) <= width for line in lines) else []


def _packed(items: list[str], width: int, indent: str = "") -> list[str]:
    """Items, each but the last ending in its separator's mark, joined by a space as many to a
    line as `width` takes; a continuation indented two more."""
    lines = [indent + items[0]]
    for item in items[1:]:
        if len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        else:
            lines.append(indent + "  " + item)
    return lines


def fit_list(line: str, separator: str = "; ", width: int = WIDTH) -> list[str]:
    """A line that ends in a list (items joined by `separator`, a mark and a space) fitted to
    `width`, broken only after a separator, so that no item (a cell named "map column 1, row 3") is
    cut in two; the continuation indented two, as `fit` indents. An item longer than a line is left
    to `fit`."""
    items = line.split(separator)
    mark = separator.rstrip()
    return _packed([item + mark for item in items[:-1]] + items[-1:], width)
