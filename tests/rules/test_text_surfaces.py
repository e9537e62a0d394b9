"""The text boards read as plain text: no legend phrase broken across lines, a hex found by its
labels rather than by counting, and seats named by what the text board shows."""

from __future__ import annotations

import gettext
import pickle
import random
from pathlib import Path

import pytest

import rules
from rules.presentation import text_lines
from rules.terrafex.render import LEGEND
from rules.terrain_vague import hexes
from rules.text import WIDTH, fit, fit_list
from rules.words import Lines, Message

LOCALE = Path(__file__).resolve().parents[2] / "locale"


def _in_language(board: Lines, language: str) -> list[str]:
    """A text board as `games.words.text_lines` gives a reader of `language`: each line as the
    rules wrote it translated (the catalogue the test run compiled), then fitted again."""
    if language == "en":
        return str(board).splitlines()
    catalogue = gettext.translation("django", localedir=LOCALE, languages=[language])
    said = [line.render(catalogue.gettext, catalogue.ngettext) if isinstance(line, Message) else line
            for line in board.lines]
    return fit(said)


def _played(rules_id: str, players: int, moves: int, seed: int = 3):
    game, rnd = rules.get(rules_id), random.Random(seed)
    state = game.setup(players, {}, f"seed{seed}")
    for _ in range(moves):
        if game.outcome(state) is not None:
            break
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return game, state


def test_the_terrafex_legend_keeps_each_phrase_on_one_line():
    game, state = _played("terrafex", 2, 12)
    shown = game.render_text(state, 0).splitlines()
    for line in LEGEND:
        assert line in shown, f"the legend line was wrapped: {line!r}"
    assert not any(line.lstrip().startswith(("/", "White's", "Black's")) for line in shown)
    assert "+W or +B: the piece lies in White's or Black's band." in shown


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_terrain_vague_hex_is_found_by_its_row_and_column_labels(players):
    game, state = _played("terrain_vague", players, 60)
    lines = game.render_text(state, 0).splitlines()
    for q, r in hexes.board_hexes(state.radius):
        row = next(index for index, line in enumerate(lines) if line.lstrip().startswith(f"r={r} "))
        under = lines[row + 1]
        assert under.lstrip().startswith("q="), under
        # The hex's q stands right under the hex: cells are 4 columns apart from the first one.
        first_q = min(h[0] for h in hexes.board_hexes(state.radius) if h[1] == r)
        label_end = lines[row].index(f"r={r}") + len(f"r={r}")
        cells_start = label_end + len(lines[row][label_end:]) - len(lines[row][label_end:].lstrip(" "))
        start = cells_start + (q - first_q) * 4
        assert under[start:start + 3].strip() == str(q), (q, r, lines[row], under)
    assert all(len(line) <= 78 for line in lines)


def test_scavenge_names_each_seat_by_its_token_on_the_text_board():
    game, state = _played("scavenge", 4, 5)
    names = [panel["name"] for panel in game.panels(state, 0)]
    assert names == ["P0", "P1", "P2", "P3"]
    board = game.render_text(state, 0)
    assert all(name in board for name in names)
    shown = text_lines(game.presentation(state, 0), ["ann", "bo", "cy", "di"], you=0)
    assert "  ann (P0, you)" in "\n".join(shown)


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("seat", [0, None])
def test_the_space_junkyard_key_keeps_each_entry_whole_in_every_language(language, seat):
    """The key once split a sentence over two lines; translated half by half, the longer Dutch
    half was wrapped again and left "dicht," alone on a line."""
    game, state = _played("space_junkyard", 2, 20)
    board = game.render_text(state, seat)
    written = list(board.lines)
    key = written[:written.index("")]  # the headline and the key, above the map
    shown = _in_language(board, language)
    assert shown[:len(key)] == _in_language(Lines(key), language), "a line of the key was wrapped"
    assert all(len(line) <= WIDTH for line in shown)
    assert not any(line.strip() in ("dicht,", "closed,") for line in shown)


@pytest.mark.parametrize("language", ["en", "nl"])
def test_a_space_junkyard_sections_line_is_wrapped_between_its_items_not_inside_one(language):
    """A ship's section was described on one line of up to 93 columns, which was wrapped at any
    space: "edges NESW" at a line's end and "-/B/R/Y" on the next. It is broken after an item's
    comma, each item whole, in English and in Dutch."""
    from rules.space_junkyard.data import SHIP_PARTS
    from rules.space_junkyard.render import describe_tile

    catalogue = gettext.translation("django", localedir=LOCALE, languages=[language]) if language != "en" else None
    for tile in SHIP_PARTS:
        line = Message("    [{x},{y}] turned {rotation}: {tile}", x=0, y=0, rotation=0, tile=describe_tile(tile))
        whole = line.render(catalogue.gettext, catalogue.ngettext) if catalogue else str(line)
        shown = fit([whole])
        assert all(len(part) <= WIDTH for part in shown)
        assert " ".join(part.strip() for part in shown) == whole.strip(), shown
        assert all(part.endswith(",") for part in shown[:-1]), shown  # broken after an item only


def _touching(rules_id: str, players: int, moves: int, seed: int = 3):
    """The positions of a random game, each with the one before it: the last event's cells."""
    game, rnd = rules.get(rules_id), random.Random(seed)
    state = game.setup(players, {}, f"seed{seed}")
    for _ in range(moves):
        if game.outcome(state) is not None:
            break
        seat = game.to_act(state)[0]
        before, state = state, game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
        yield game, before, state


def _changed_line(lines: list[str]) -> str:
    """The "last move changed" line, its continuations joined again (each item kept whole)."""
    first = next(n for n, line in enumerate(lines) if line.startswith(("The last move changed:", "De laatste zet veranderde:")))
    rest = [line for line in lines[first + 1:] if line.startswith("  ")]
    assert all(len(line) <= WIDTH for line in [lines[first], *rest])
    return " ".join([lines[first], *(line.strip() for line in rest)])


@pytest.mark.parametrize("seat", [0, None])
def test_space_junkyards_last_move_names_the_cells_as_its_text_board_does(seat):
    """The line once read "The last move changed: map:0,4", an internal, 0-based id beside a map
    numbered from 1: now the column and row the map shows, and a ship's section as its list does;
    the presentation's names stay the targets the web board marks."""
    catalogue = gettext.translation("django", localedir=LOCALE, languages=["nl"])
    seen = {"map": 0, "ship": 0}
    for game, before, state in _touching("space_junkyard", 2, 120):
        shown = game.presentation(state, seat, before)
        if not shown["touched"]:
            continue
        assert set(shown["touched"]) <= set(game.cells(state, seat)) | set(game.cells(before, seat))
        kept = pickle.loads(pickle.dumps(shown))  # as the shared cache keeps it
        english = _changed_line(text_lines(kept, ["ann", "bo"], you=seat))
        assert ":" not in english.partition(": ")[2], english
        dutch_shown = {**kept, "touched": [name.render(catalogue.gettext, catalogue.ngettext) for name in kept["touched"]]}
        assert dutch_shown["touched"] == shown["touched"]  # the names the web board marks, in any language
        dutch = _changed_line(text_lines(dutch_shown, ["ann", "bo"], you=seat))
        for name in shown["touched"]:
            where, _, place = name.rpartition(":")
            x, y = (int(part) for part in place.split(","))
            if where == "map":
                seen["map"] += 1
                assert f"map column {x + 1}, row {y + 1}" in english, english
                assert f"kaart kolom {x + 1}, rij {y + 1}" in dutch, dutch
            else:
                seen["ship"] += 1
                ship = seat if not where else int(where.removeprefix("ship"))
                assert f"ship {ship} [{x},{y}]" in english and f"schip {ship} [{x},{y}]" in dutch, (english, dutch)
    assert seen["map"] and seen["ship"], seen


@pytest.mark.parametrize("rules_id", ["scavenge", "terrafex", "terrain_vague"])
def test_a_game_whose_board_labels_its_cells_by_their_names_shows_the_names(rules_id):
    shown = next(shown for game, before, state in _touching(rules_id, 2, 40)
                 if (shown := game.presentation(state, 0, before))["touched"])
    assert _changed_line(text_lines(shown, ["ann", "bo"])).endswith(": " + "; ".join(shown["touched"]))


def _finished(rules_id: str, players: int, seed: int):
    game, rnd = rules.get(rules_id), random.Random(seed)
    state = game.setup(players, {}, f"seed{seed}")
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return game, state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_terrain_vagues_ending_gives_the_home_turf_each_panel_scored_and_who_won(players):
    """The game-over text once gave only the outcome's win shares ("Scores: 0, 1") while each
    panel showed a home turf of 15: the ending now says what each gang scored, the winners marked."""
    catalogue = gettext.translation("django", localedir=LOCALE, languages=["nl"])
    for seed in range(4):
        game, state = _finished("terrain_vague", players, seed)
        outcome, shown = game.outcome(state), game.presentation(state, 0)
        scored = [f"{panel['name']} {panel['score']}" + (" (won)" if panel["seat"] in outcome.winners else "")
                  for panel in shown["panels"]]
        assert f"home turf {', '.join(scored)}" in shown["ending"], shown["ending"]
        dutch = shown["ending"].render(catalogue.gettext, catalogue.ngettext)
        assert "thuisterrein" in dutch and "(gewonnen)" in dutch and "(won)" not in dutch, dutch


def test_a_changed_cells_line_never_passes_the_width_by_the_mark_of_its_last_item():
    """`fit_list` measured an item without the "; " mark it would carry at the line's end, and a
    line whose item just fit came out 79 columns wide."""
    line = "The last move changed: " + "; ".join(["x" * 40, "y" * 13, "z" * 10])
    assert [len(part) for part in fit_list(line)] == [64, 27]
