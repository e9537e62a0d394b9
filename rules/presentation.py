"""What a page shows of a position, in one form every surface shares (web, mail, API, text).

`Rules.presentation(state, seat, before)` answers, for the caller's seat:
- `panels`: one per seat, in seat order: `name` (the game's name for the seat: "White",
  "rubbles", "ship 1"), `colour` (a CSS colour name the seat's pieces are drawn in), `score`
  (a number, or None where the game keeps none until the end), `score_parts` and `resources`
  (lists of `{"label", "value"}` pairs, values short texts or numbers), `notes` (short texts:
  "carries the good stuff") and `out` (the seat has left the game).
- `prompt`: one line saying what the caller's seat must do now, or None when it has nothing to
  do (a page then says whom it waits for).
- `touched`: the cells the last event changed as the caller may see them, named as the board's
  targets are (a move's coordinates "a,b", or a game's own names: "centre", "map:3,2"); where the
  text board names a cell otherwise (`Rules.cell_words`), the name remembers those words
  (`NamedCell`), which the text surfaces show.
- `ending`: once the rules have ended the game, how they decided it, in words a result line
  ends with ("the last glacier melted"); None before, and for a game a player or the server
  ended (a resignation, an agreed draw, an abort), whose result's reason says why.

A game builds the panels with `panel` and names its cells with `cell_name`; `touched` is the
difference between `Rules.cells` before and after, so it only ever shows what the seat sees.
Nothing here imports Django.
"""

from __future__ import annotations

from typing import Any, Self

from rules.text import fit, fit_list
from rules.words import Message, Number, listed, msg

# Seat colours: CSS colour names a client may use as they are. Distinct from the board colours the
# games themselves use, readable on a light square and on a dark tile.
SEAT_COLOURS = ("crimson", "royalblue", "darkorange", "seagreen")
COLOUR_NAMES = {"crimson": msg("Red"), "royalblue": msg("Blue"), "darkorange": msg("Orange"), "seagreen": msg("Green")}
# The reasons a player or the server ends a game with (the result's `reason`), in words.
REASON_WORDS = {"resigned": msg("resigned"), "draw_agreed": msg("draw agreed"), "aborted": msg("aborted"),
                "timeout": msg("timeout"), "forfeit": msg("forfeit"), "finished": msg("finished")}


def item(label: str, value: Any) -> dict[str, Any]:
    return {"label": label, "value": value}


def panel(
    seat: int,
    name: str,
    *,
    colour: str | None = None,
    score: float | int | None = None,
    score_parts: list[dict[str, Any]] | tuple = (),
    resources: list[dict[str, Any]] | tuple = (),
    notes: list[str] | tuple = (),
    out: bool = False,
) -> dict[str, Any]:
    return {
        "seat": seat,
        "name": name,
        "colour": colour or SEAT_COLOURS[seat % len(SEAT_COLOURS)],
        "score": score,
        "score_parts": list(score_parts),
        "resources": list(resources),
        "notes": list(notes),
        "out": out,
    }


def cell_name(coordinates: tuple[int, int] | list[int]) -> str:
    """A pair of coordinates as moves name them and the board's targets carry them: "a,b"."""
    # A board has a few hundred cells, and every view of every position names each of them
    # (`cells`, for the presentation's touched cells): a name is worked out once, and found
    # again by one dict lookup (an lru_cache's wrapper cost as much as the lookup: decision 0014).
    key = coordinates if type(coordinates) is tuple else tuple(coordinates)
    name = _CELL_NAMES.get(key)
    if name is None:
        if len(_CELL_NAMES) >= CELL_NAMES_KEPT:  # bounded whatever coordinates a caller brings
            _CELL_NAMES.clear()
        name = _CELL_NAMES[key] = ",".join(str(int(part)) for part in key)
    return name


CELL_NAMES_KEPT = 4096
_CELL_NAMES: dict[tuple, str] = {}


def touched(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The cells whose content differs, in the order the game lists them after (then before)."""
    # A move changes a few of a board's hundred-odd cells, and every first read of a seq asks:
    # the pairs that differ are found in C, and only those names compared one by one.
    try:
        differing = {name for name, _ in after.items() ^ before.items()}
    except TypeError:  # contents that cannot be hashed: every cell compared
        differing = None
    if differing is not None and not differing:
        return []
    order = [*after, *(name for name in before if name not in after)]
    return [name for name in order
            if (differing is None or name in differing) and before.get(name) != after.get(name)]


class NamedCell(Message):
    """A cell's target name ("map:0,4": what the web board marks and the API lists, so its text
    stays the name) that remembers how the text board names the cell ("map column 1, row 5"). A
    `Message`, so that a presentation translated for a reader (`games.words.translated`) keeps
    the name and translates the words: a mail's "last move changed" line then names the cell as
    the board beside it does, not by an internal, 0-based id."""

    words: str

    def __new__(cls, name: str, words: str) -> Self:
        self = super().__new__(cls, name.replace("{", "{{").replace("}", "}}"))
        self.words = words
        return self

    def render(self, translate_one, translate_plural, write_number=str) -> str:
        words = self.words.render(translate_one, translate_plural, write_number) if isinstance(self.words, Message) else self.words
        return NamedCell(str(self), words)

    def __reduce__(self):
        # Kept in the shared cache with the presentation: pickled as its name and its words.
        return (NamedCell, (str(self), self.words))


def named(name: str, words: str) -> str:
    """A touched cell's name, carrying the text board's words for it where they differ."""
    return name if words == name else NamedCell(name, words)


def cell_words(name: str) -> str:
    """How a text names a touched cell: the words its game gave it, else its name."""
    return getattr(name, "words", name)


def end_words(shown: dict[str, Any], result: dict[str, Any] | None) -> str:
    """How a finished game ended, in words: the rules' `ending` where they decided it, else the
    result's reason code worded ("draw_agreed": "draw agreed")."""
    if shown.get("ending"):
        return shown["ending"]
    reason = str((result or {}).get("reason", "finished"))
    return REASON_WORDS.get(reason) or reason.replace("_", " ")


def end_scores(shown: dict[str, Any], result: dict[str, Any] | None) -> list | None:
    """The scores a finished game's readers saw on its panels (what the players scored), where
    every panel has one; else the result's (which may be only win shares: a game decided by
    something other than points). The page's result line reads them the same way."""
    panel_scores = [panel.get("score") for panel in shown.get("panels") or []]
    if panel_scores and all(score is not None for score in panel_scores):
        return panel_scores
    scores = (result or {}).get("scores")
    return scores if isinstance(scores, list) else None


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def _same(text: str) -> str:
    return text


def text_lines(shown: dict[str, Any], names: list[str], *, you: int | None = None, acting: tuple | list = (),
               say=_same) -> list[str]:
    """The presentation in plain text, for mails and text boards: the prompt, a line per seat
    (who sits there, the seat's name, its score and resources) and the cells the last move
    changed. `names` are the players by seat; `acting` the seats the game waits for; `say` writes
    a `rules.words.Message` in the reader's language (English as it is). Lines fit 78 columns
    (`rules.text.fit`), so every text surface shows the same words."""
    lines = [say(msg("Now: {prompt}", prompt=shown["prompt"]))] if shown.get("prompt") else []
    lines += [_seat_line(one, names, you, acting, say) for one in shown.get("panels", [])]
    if shown.get("touched"):
        cells = listed([cell_words(name) for name in shown["touched"]], "; ")
        lines += fit_list(say(msg("The last move changed: {cells}", cells=cells)))
    return fit(lines)


def _seat_line(shown: dict[str, Any], names: list[str], you: int | None, acting: tuple | list, say=_same) -> str:
    seat = shown["seat"]
    tags = [shown["name"], *([say(msg("you"))] if seat == you else []), *([say(msg("to act"))] if seat in acting else []),
            *([say(msg("out"))] if shown["out"] else [])]
    parts = [f"{part['label']} {part['value']}" for part in shown["score_parts"]]
    told = [say(msg("score {score}", score=Number(shown["score"]))) + (f" ({', '.join(parts)})" if parts else "")] \
        if shown["score"] is not None else parts
    told += [f"{part['label']} {part['value']}" for part in shown["resources"]] + shown["notes"]
    who = names[seat] if seat < len(names) else say(msg("seat {seat}", seat=seat))
    return f"  {who} ({', '.join(tags)}): {'; '.join(told) or '-'}"
