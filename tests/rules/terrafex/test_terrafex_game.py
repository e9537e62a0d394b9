"""Terrafex turns, the end, scoring, layouts, views and text, on hand-built positions."""

from __future__ import annotations

import json
import random

import pytest

from rules.errors import InvalidOptions, MalformedMove
from rules.terrafex import RULES
from rules.terrafex.board import band_owner, square_at
from rules.terrafex.data import QUIET_TURN_LIMIT, SIZE_NAMES
from tests.rules.terrafex.test_terrafex import at, glacier, in_pool, play, position, refused

NO_SUPPLY = {(c, s): 0 for c in ("green", "yellow", "red") for s in "SML"}


# --- turns ---------------------------------------------------------------------------------------


def test_a_turn_is_four_actions_one_per_colour_in_any_order():
    state = position({(3, 2): "yS", (3, 3): "bM", (0, 0): "gS"})
    state = play(state, glacier((3, 3), "E"))
    state = play(state, {"type": "fire", "size": "S"})
    state = play(state, {"type": "place_fire", "to": [6, 7]}, seat=1)
    state = play(state, {"type": "mountain", "action": "start", "to": [6, 0]})
    assert state.mover == 0 and state.done == ("glacier", "fire", "mountain")
    refused(state, glacier((3, 4), "E"), "action_taken")
    state = play(state, {"type": "forest", "action": "grow", "at": [0, 0]})
    assert (state.mover, state.turn, state.done) == (1, 2, ())
    assert RULES.to_act(state) == (1,)


def test_an_action_with_no_option_is_skipped_and_there_is_no_pass():
    state = position({(3, 3): "bM", (0, 0): "gS"})
    assert not [m for m in RULES.legal_moves(state, 0) if m["type"] == "glacier"]
    state = play(state, {"type": "forest", "action": "grow", "at": [0, 0]})
    state = play(state, {"type": "fire", "size": "S"})
    state = play(state, {"type": "place_fire", "to": [6, 7]}, seat=1)
    refused(state, {"type": "pass"}, "unknown_move_type", error=MalformedMove)
    state = play(state, {"type": "mountain", "action": "start", "to": [6, 0]})
    assert state.mover == 1 and state.turn == 2  # the glacier action was skipped


def test_an_action_that_becomes_possible_later_in_the_turn_must_still_be_taken():
    state = position({(3, 3): "bM", (0, 0): "gS"}, done=("forest", "fire"))
    state = play(state, {"type": "mountain", "action": "start", "to": [3, 2]})
    assert state.mover == 0  # the new mountain lets the glacier move away from it
    assert {m["dir"] for m in RULES.legal_moves(state, 0)} == {"E"}


def test_the_opponents_fire_placement_counts_as_the_movers_fire_action():
    state = position({(0, 0): "gS", (3, 3): "bM"}, done=("forest", "mountain"))
    state = play(state, {"type": "fire", "size": "S"})
    assert RULES.to_act(state) == (1,) and state.mover == 0
    state = play(state, {"type": "place_fire", "to": [0, 1]}, seat=1)
    assert state.mover == 1 and state.turn == 2  # no glacier move: the turn ended


def test_quiet_turns_count_up_and_a_melt_resets_them():
    state = position({(3, 3): "bM", (0, 0): "gS"}, done=("forest", "fire"), quiet=5)
    after = play(state, {"type": "mountain", "action": "start", "to": [6, 0]})
    assert after.quiet_turns == 6
    melting = position({(3, 2): "yS", (3, 3): "bS", (3, 4): "rS", (0, 0): "bS"},
                       done=("forest", "mountain", "fire"), quiet=5)
    after = play(melting, glacier((3, 3), "E"))
    assert after.quiet_turns == 0 and after.mover == 1


def test_the_quiet_turn_limit_ends_the_game_scored_as_usual():
    last = QUIET_TURN_LIMIT - 1
    state = position({(3, 3): "bM", (0, 0): "gS"}, done=("forest", "fire"), quiet=last)
    after = play(state, {"type": "mountain", "action": "start", "to": [6, 0]})
    result = RULES.outcome(after)
    assert result is not None and "no glacier met a fire" in result.reason
    assert RULES.to_act(after) == () and RULES.legal_moves(after, 1) == []


def test_turns_with_nothing_to_do_pass_until_the_limit_ends_the_game():
    state = position({(3, 0): "bM"}, done=("forest", "mountain", "fire"), pool=NO_SUPPLY)
    after = play(state, glacier((3, 0), "E"))  # now no glacier can move and nothing is left
    assert at(after, 3, 1) == "bM"
    assert after.quiet_turns == QUIET_TURN_LIMIT and RULES.outcome(after) is not None


# --- the end and scoring -------------------------------------------------------------------------


def test_the_game_ends_when_the_last_glacier_melts_even_mid_turn():
    state = position({(3, 2): "yS", (3, 3): "bS", (3, 4): "rS", (0, 0): "gL"})
    after = play(state, glacier((3, 3), "E"))
    result = RULES.outcome(after)
    assert result.reason == "the last glacier melted"
    # gL on an even square: White's large band; yS on an odd square: Black's small band.
    assert result.scores == (3.0, 1.0) and result.winners == (0,)
    assert RULES.to_act(after) == () and RULES.legal_moves(after, 0) == []
    refused(after, {"type": "forest", "action": "grow", "at": [0, 0]}, "game_over", seat=0)


def test_frosting_the_last_glacier_ends_the_game_but_capping_does_not():
    frosted = play(position({(3, 2): "yS", (3, 3): "bS", (3, 4): "gM"}), glacier((3, 3), "E"))
    assert at(frosted, 3, 4) == "gS/bS" and RULES.outcome(frosted) is not None
    capped = play(position({(3, 2): "yS", (3, 3): "bL", (3, 4): "gM"}), glacier((3, 3), "E"))
    assert at(capped, 3, 4) == "bL/gS" and RULES.outcome(capped) is None


def test_scoring_by_the_band_round_each_piece():
    pieces = {
        (0, 0): "gS",  # even, small band White: +1 White
        (0, 1): "yS",  # odd, small band Black: +1 Black
        (0, 2): "gM",  # even, medium band Black: +2 Black
        (0, 3): "yM",  # odd, medium band White: +2 White
        (0, 4): "rL",  # even, large band White: -3 White
        (0, 5): "gL",  # odd, large band Black: +3 Black
        (1, 0): "gL/bS",  # a frosted forest scores: odd large, +3 Black
        (1, 1): "bL/gM",  # a capped forest is out of the game
        (1, 2): "bM",  # glaciers score nothing
    }
    state = position(pieces, white=1, mover=1)
    assert RULES.view(state, None)["scores"] == [9, 0]  # seat 0 is Black
    over = RULES.forfeit(state, 0)
    assert RULES.outcome(over).winners == (1,) and RULES.outcome(over).reason == "forfeit"


def test_equal_scores_are_a_draw():
    melt = {(3, 2): "yS", (3, 3): "bS", (3, 4): "rS"}
    state = play(position({**melt, (0, 1): "yS"}), glacier((3, 3), "E"))
    assert RULES.outcome(state).scores == (0.0, 2.0) and RULES.outcome(state).winners == (1,)
    drawn = play(position({**melt, (0, 0): "yS"}), glacier((3, 3), "E"))
    assert RULES.outcome(drawn).scores == (1.0, 1.0) and RULES.outcome(drawn).winners == ()


def test_timeout_plays_the_first_legal_move_for_either_decision():
    state = position({(0, 0): "gS", (3, 3): "bM"})
    assert RULES.timeout_move(state, 0) == {"type": "forest", "action": "grow", "at": [0, 0]}
    in_hand = position({(0, 0): "gS", (3, 3): "bM"}, fire=1)
    move = RULES.timeout_move(in_hand, 1)
    assert move == {"type": "place_fire", "to": [0, 0]}
    RULES.apply(in_hand, 1, move)


# --- layouts -------------------------------------------------------------------------------------


def test_layout_one_is_set_up_as_the_rulings_list():
    state = RULES.setup(2, {}, "layout-1")
    expected = {
        (0, 3): "gS", (1, 2): "yM", (1, 3): "bL", (2, 4): "gL", (2, 5): "gM", (3, 1): "yS",
        (3, 6): "yS", (4, 2): "gM", (4, 3): "gL", (5, 4): "bL", (5, 5): "yM", (6, 4): "gS",
    }
    board = {(r, c): at(state, r, c) for r in range(7) for c in range(8) if at(state, r, c)}
    assert board == expected
    assert RULES.view(state, None)["pool"] == {
        "green": {"S": 3, "M": 3, "L": 2}, "yellow": {"S": 3, "M": 3, "L": 4},
        "red": {"S": 5, "M": 5, "L": 4}, "blue": {"S": 5, "M": 5, "L": 2},
    }
    assert RULES.view(state, None)["fire_pit"] == {"S": 0, "M": 0, "L": 0}


def test_layout_two_is_set_up_as_the_rulings_list():
    state = RULES.setup(2, {"layout": 2}, "layout-2")
    board = {(r, c): at(state, r, c) for r in range(7) for c in range(8) if at(state, r, c)}
    assert board == {
        (1, 0): "bM", (1, 7): "bM", (2, 3): "gS", (2, 4): "gS", (3, 0): "bL", (3, 3): "gL",
        (3, 4): "gL", (3, 7): "bL", (4, 3): "gS", (4, 4): "gS", (5, 0): "bM", (5, 7): "bM",
    }
    assert in_pool(state, "blue", "M") == 1 and in_pool(state, "green", "S") == 1
    moves = RULES.legal_moves(state, state.white)
    assert {"type": "glacier", "from": [3, 0], "dir": "E"} in moves


def test_custom_layouts_in_full_and_compact_form():
    custom = [{"row": 0, "col": 0, "size": "L", "colour": "blue"}, [6, 7, "S", "green"]]
    state = RULES.setup(2, {"layout": custom}, "custom")
    assert at(state, 0, 0) == "bL" and at(state, 6, 7) == "gS"
    assert in_pool(state, "blue", "L") == 3


@pytest.mark.parametrize(
    "layout, code",
    [
        (3, "unknown_layout"),
        (True, "unknown_layout"),
        ("one", "unknown_layout"),
        ([], "unknown_layout"),
        ([{"row": 0, "col": 0, "size": "L"}], "bad_piece"),
        ([[0, 0, "L", "blue"], [0, 8, "S", "green"]], "off_board"),
        ([[0, 0, "L", "blue"], [1, 1, "XL", "green"]], "bad_size"),
        ([[0, 0, "L", "blue"], [1, 1, "S", "purple"]], "bad_colour"),
        ([[0, 0, "L", "blue"], [0, 0, "S", "green"]], "square_taken"),
        ([[0, 0, "S", "green"]], "needs_glacier"),
        ([[0, 0, "S", "blue"]], "needs_forest"),
        ([[0, c, "L", "blue"] for c in range(5)] + [[1, 1, "S", "green"]], "not_enough_pieces"),
    ],
)
def test_invalid_layouts_are_refused_with_codes(layout, code):
    with pytest.raises(InvalidOptions) as raised:
        RULES.setup(2, {"layout": layout}, "bad")
    assert raised.value.option == "layout" and raised.value.code == code


def test_layout_option_lists_one_and_two():
    described = RULES.describe()["options"][0]
    assert described["type"] == "json" and described["default"] == 1
    assert described["choices"] == [1, 2]


def test_white_is_drawn_from_the_seed_and_moves_first():
    whites = set()
    for n in range(16):
        state = RULES.setup(2, {}, f"seed-{n}")
        assert state.mover == state.white and RULES.to_act(state) == (state.white,)
        assert RULES.view(state, 0)["white"] == state.white
        whites.add(state.white)
    assert whites == {0, 1}


# --- views and text ------------------------------------------------------------------------------


def test_view_is_the_whole_state_and_sample_state_rebuilds_it():
    state = position({(3, 2): "yS", (3, 3): "bL/gS", (0, 0): "gL/bS"})
    state = play(state, {"type": "fire", "size": "S"})
    seen = json.loads(json.dumps(RULES.view(state, 1)))
    assert seen["fire_in_hand"] == "S" and seen["to_act"] == [1]
    capped = {"row": 3, "col": 3, "colour": "blue", "size": "L", "capped_forest": "S"}
    assert capped in seen["board"]
    assert {"row": 0, "col": 0, "colour": "green", "size": "L", "frost": "S"} in seen["board"]
    rebuilt = RULES.sample_state(seen, 1, random.Random(1))
    assert rebuilt == state
    assert RULES.load(json.loads(json.dumps(RULES.dump(state)))) == state


def test_render_text_shows_sizes_colours_bands_and_scores():
    pieces = {(0, 0): "gL/bS", (3, 3): "bL/gM", (6, 7): "rS", (2, 2): "yM"}
    state = position(pieces, white=1, mover=1)
    text = RULES.render_text(state, 0)
    assert "gL/bS+W" in text and "bL/gM" in text and "rS+B" in text and "yM+B" in text
    assert "Score so far: White (seat 1) 3, Black (seat 0) 1" in text
    assert "You are Black (seat 0), waiting." in text
    assert max(len(line) for line in text.splitlines()) <= 100
    over = RULES.render_text(RULES.forfeit(state, 1), None)
    assert "Game over: forfeit" in over


def test_the_view_names_the_band_of_every_size_on_every_square():
    bands = RULES.view(position({}), None)["bands"]
    for row in range(7):
        for col in range(8):
            for size in (1, 2, 3):
                parity = "odd" if (row + col) % 2 else "even"
                assert bands[parity][SIZE_NAMES[size]] == band_owner(square_at(row, col), size)
