"""What the rules name by an id (an option, a choice, a colour, a gang, a piece) reaches a reader
as words of their language: the new-game form's option names and choices (`GET /api/rules/`,
whose ids stay the same in every language), the text boards' and refusals' colours and gangs.
English readers get the text they always had."""

from __future__ import annotations

import random

import pytest
from django.utils import translation
from rest_framework.test import APIClient

import rules
from games import words
from rules.errors import InvalidOptions
from rules.text import joined
from rules.words import msg

pytestmark = pytest.mark.django_db


def _catalogue(language: str) -> dict[str, dict]:
    answer = APIClient().get("/api/rules/", HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 200
    return {game["id"]: game for game in answer.json()}


def test_options_are_named_and_their_choices_labelled_in_the_readers_language():
    english, dutch = _catalogue("en"), _catalogue("nl")
    options = [(game_id, en, nl) for game_id in english
               for en, nl in zip(english[game_id]["options"], dutch[game_id]["options"], strict=True)]
    assert options
    for game_id, en, nl in options:
        assert nl["name"] == en["name"] and nl.get("choices") == en.get("choices"), game_id  # ids a client sends
        assert en["label"] and nl["label"] != en["label"], (game_id, en["label"])
        if "choice_labels" in en:
            assert len(en["choice_labels"]) == len(en["choices"]) == len(nl["choice_labels"])
            assert all(d != e for d, e in zip(nl["choice_labels"], en["choice_labels"])), (game_id, nl["choice_labels"])


def test_an_option_without_a_label_shows_its_name_in_words():
    option = rules.options.Option("straight_lines", "bool", False, msg("lines"))
    assert option.describe()["label"] == "straight lines" and "choice_labels" not in option.describe()
    with pytest.raises(ValueError):
        rules.options.Option("x", "choice", "a", msg("lines"), choices=("a", "b"), choice_labels=(msg("a"),))


def test_a_long_line_wrapped_in_english_is_translated_whole():
    # The line is wrapped to 78 columns for an English reader; a Dutch one reads it translated,
    # then wrapped again: before, the wrapped halves matched no message and stayed English.
    long_line = msg("  {letter} {gang:<10} seat {seat}  {status}  home turf {home:>2}  pawns {pawns}  turf w/t {supply}",
                    letter="R", gang=msg("rubbles"), seat=0, status=msg("out"), home=12, pawns="w4 s4 l4 b1 " * 3,
                    supply="9/9")
    board = joined(["TITLE", long_line])
    assert len(long_line) > 78 and str(board) == "TITLE\n" + "\n".join(rules.text.fit([long_line])) + "\n"
    with translation.override("nl"):
        dutch = words.text_lines(board)
    assert "Stenen" in dutch and "home turf" not in dutch and "rubbles" not in dutch, dutch


# Ids each game's text board and page showed to a Dutch reader as they are, before they were words.
IDS = {
    "terrain_vague": (" rubbles", " brambles", " cesspools", " scrappers", "attack:", "defence:", "digits ["),
    "terrafex": ("green S", "yellow S", "blue S"),
    "space_junkyard": ("Map (cells", "section:", "asteroids:", " VP,"),
    "scavenge": ("carries the good", "(you)"),
}


def _positions(game, players: int, count: int = 60):
    state, chooser = game.setup(players, {}, f"ids-{players}"), random.Random(players)
    for _ in range(count):
        yield state
        to_act = game.to_act(state)
        if not to_act or game.outcome(state) is not None:
            return
        seat = chooser.choice(to_act)
        state = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)))


@pytest.mark.parametrize("game_id", sorted(IDS))
def test_text_boards_and_pages_name_no_ids_to_a_dutch_reader(game_id):
    game, shown = rules.get(game_id), []
    for players in (game.min_players, game.max_players):
        for state in _positions(game, players):
            for seat in (None, *range(players)):
                with translation.override("nl"):
                    shown.append(words.text_lines(game.render_text(state, seat)))
                    presented = words.translated(game.presentation(state, seat))
                shown.append(str(presented["prompt"] or "") + str(presented["panels"]))
    text = "\n".join(shown)
    assert [english for english in IDS[game_id] if english in text] == []


def test_a_terrafex_refusal_names_its_colour_in_dutch():
    too_many = [[row, col, "S", "green"] for row in range(2) for col in range(4)] + [[6, 7, "S", "blue"]]
    with pytest.raises(InvalidOptions) as raised:
        rules.get("terrafex").setup(2, {"layout": too_many}, "seed")
    english = str(raised.value.message)
    with translation.override("nl"):
        dutch = words.translated(raised.value.message)
    assert "green" in english and "groen" in dutch and "green" not in dutch, (english, dutch)
