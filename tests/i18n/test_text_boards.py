"""A text board (board.txt, the board in every mail) in the reader's language: the rules write
its status lines with `msg` (the turn, who acts, the scores, the seats' lines), keep them in a
`rules.words.Lines` that reads as the English text everywhere, and `games.words.text_lines`
translates each such line for a Dutch reader, also after the shared cache pickled the board.
The board's own marks and the move notation stay as they are."""

from __future__ import annotations

import pickle
import random

import pytest
from django.utils import translation

import rules
from games import words
from rules.words import Lines

# A phrase of each game's status lines, in English and as a Dutch reader gets it.
STATUS = {
    "terrafex": ("Score so far: White (seat", "Stand: Wit (plaats"),
    "scavenge": ("to move, rolled", "is aan zet, gooide"),
    "space_junkyard": ("Space Junkyard: turn", "Space Junkyard: beurt"),
    "terrain_vague": ("You are ", "Jij bent "),
}


def _a_position(game, seat_count: int = 2):
    state = game.setup(seat_count, {}, "text-board")
    chooser = random.Random(7)
    for _ in range(6):
        to_act = game.to_act(state)
        if not to_act or game.outcome(state) is not None:
            break
        seat = to_act[0]
        state = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)))
    return state


@pytest.mark.parametrize("game_id", sorted(STATUS))
def test_a_text_boards_status_lines_are_in_the_readers_language(game_id):
    game = rules.get(game_id)
    state = _a_position(game)
    board = game.render_text(state, 0)
    english_phrase, dutch_phrase = STATUS[game_id]
    assert isinstance(board, Lines) and english_phrase in board
    assert words.text_lines(board) == board  # an English reader gets the rules' own text
    kept = pickle.loads(pickle.dumps(board, protocol=pickle.HIGHEST_PROTOCOL))  # as the shared cache keeps it
    with translation.override("nl"):
        dutch = words.text_lines(kept)
    assert dutch_phrase in dutch and english_phrase not in dutch, dutch
    assert all(len(line) <= 78 for line in dutch.splitlines())


def test_a_terrafex_boards_turn_line_names_the_actions_left_in_the_readers_words():
    """The turn line once listed the actions left by their notation ("forest, mountain, ...")
    on a Dutch board whose legal moves beside it were in Dutch words."""
    game = rules.get("terrafex")
    board = game.render_text(game.setup(2, {}, "text-board"), 0)
    with translation.override("nl"):
        dutch = words.text_lines(pickle.loads(pickle.dumps(board)))
    turn_line = next(line for line in dutch.splitlines() if line.startswith("Beurt 1"))
    assert "bos, berg, vuur, gletsjer" in turn_line and "forest" not in turn_line, turn_line
    assert "actions left: forest, mountain, fire, glacier" in board  # the English reader's as before
