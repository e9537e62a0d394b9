"""Scenario tests for Scavenge on hand-built positions."""

from __future__ import annotations

import json
import random

import pytest

from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.rng import Rng
from rules.scavenge import RULES as game
from rules.scavenge import board
from rules.scavenge.state import ScavengeState

CENTRE = "centre"
STAY = {"type": "stay"}


def node(square):
    return board.CENTRE if square == CENTRE else board.node_at(*square)


def position(at, roll, trash=None, carrier=None, turn=0, straight=False, players=None):
    """A position: `at` maps seat to [row, col], "centre" or None (left the game)."""
    players = players or len(at)
    trash = trash or {}
    return ScavengeState(
        players=players,
        straight_moves=straight,
        positions=tuple(None if at[s] is None else node(at[s]) for s in range(players)),
        trash=tuple(trash.get(s, 0) for s in range(players)),
        carrier=carrier,
        turn=turn,
        roll=roll,
        rng=Rng("scenario"),
    )


def move(to):
    return {"type": "move", "to": to}


def targets(state, seat=0):
    return [m["to"] for m in game.legal_moves(state, seat)]


def refused(state, bad, code, seat=0, error=IllegalMove):
    with pytest.raises(error) as raised:
        game.apply(state, seat, bad)
    assert raised.value.code == code
    assert raised.value.message


# --- setup and turns ---------------------------------------------------------------------------


def test_setup_puts_tokens_on_corners_with_three_trash_and_rolls_for_a_random_first_seat():
    firsts = set()
    for n in range(12):
        state = game.setup(4, {}, f"seed-{n}")
        assert state.positions == tuple(node(c) for c in ([0, 0], [0, 9], [9, 9], [9, 0]))
        assert state.trash == (3, 3, 3, 3) and state.carrier is None
        assert 0 <= state.roll <= 5 and game.view(state, 1)["roll"] == state.roll
        firsts.add(state.turn)
    assert len(firsts) > 1
    two = game.setup(2, {}, "x")
    assert two.positions == (node([0, 0]), node([9, 9]))


def test_play_passes_in_seat_order_with_a_fresh_roll():
    state = position({0: [2, 2], 1: [7, 7], 2: [6, 1]}, roll=1, trash={0: 3, 1: 3, 2: 3})
    after = game.apply(state, 0, move([2, 3]))
    assert game.to_act(after) == (1,) and 0 <= after.roll <= 5
    assert game.legal_moves(after, 0) == []


# --- ordinary movement ---------------------------------------------------------------------------


def test_moves_are_exactly_the_roll_and_never_revisit_a_square():
    state = position({0: [2, 2], 1: [9, 9]}, roll=2, trash={0: 3})
    expected = [[0, 2], [1, 1], [1, 3], [2, 0], [2, 4], [3, 1], [3, 3], [4, 2]]
    assert targets(state) == expected  # not back to [2, 2], nothing at distance 1
    three = targets(position({0: [2, 2], 1: [9, 9]}, roll=3, trash={0: 3}))
    assert [2, 3] in three and [2, 2] not in three  # a detour reaches a neighbour, never home
    refused(state, move([2, 3]), "not_reachable")


def test_no_path_goes_through_the_centre():
    state = position({0: [4, 3], 1: [9, 9]}, roll=3, trash={0: 0})
    assert [4, 6] not in targets(state)
    refused(state, move([4, 6]), "not_reachable")
    assert CENTRE in targets(state)  # as the last step, by (3, 3) and (3, 4)


def test_tokens_pass_over_players_and_start_points_but_end_only_on_their_own_start():
    state = position({0: [0, 7], 1: [5, 5], 2: [9, 9]}, roll=2, trash={0: 3}, players=3)
    assert [0, 9] not in targets(state)  # seat 1's start, though seat 1 is elsewhere
    behind = position({0: [0, 5], 1: [1, 5], 2: [9, 9]}, roll=2, trash={0: 3})
    assert [2, 5] in targets(behind)  # straight over seat 1
    to_other_start = position({0: [0, 7], 1: [5, 0], 2: [9, 9]}, roll=2, trash={0: 3})
    refused(to_other_start, move([0, 9]), "own_start_only")
    home = position({0: [0, 2], 1: [9, 9]}, roll=2, trash={0: 3})
    assert [0, 0] in targets(home)


# --- landing on players ----------------------------------------------------------------------


def test_landing_with_trash_gives_one_and_sends_the_victim_home():
    state = position({0: [2, 2], 1: [2, 4]}, roll=2, trash={0: 3, 1: 1})
    after = game.apply(state, 0, move([2, 4]))
    assert after.positions == (node([2, 4]), node([9, 9]))
    assert after.trash == (2, 2)


def test_landing_without_trash_only_sends_the_victim_home():
    state = position({0: [2, 2], 1: [2, 4]}, roll=2, trash={0: 0, 1: 1})
    after = game.apply(state, 0, move([2, 4]))
    assert after.positions == (node([2, 4]), node([9, 9]))
    assert after.trash == (0, 1)


# --- the centre and the good stuff -------------------------------------------------------------


def test_only_a_player_without_trash_ends_on_the_centre_and_takes_the_good_stuff():
    with_trash = position({0: [3, 4], 1: [9, 9]}, roll=1, trash={0: 1})
    assert CENTRE not in targets(with_trash)
    refused(with_trash, move(CENTRE), "centre_needs_no_trash")
    clean = position({0: [1, 4], 1: [9, 9]}, roll=3)
    assert CENTRE in targets(clean)
    after = game.apply(clean, 0, move(CENTRE))
    assert after.carrier == 0 and after.positions[0] == board.CENTRE
    assert game.view(after, 1)["good_stuff"] == {"carried_by": 0}


def test_no_one_ends_on_the_centre_while_the_good_stuff_is_elsewhere():
    state = position({0: [3, 4], 1: [8, 8]}, roll=1, carrier=1)
    assert CENTRE not in targets(state)
    refused(state, move(CENTRE), "no_good_stuff_in_centre")


def test_the_carrier_leaves_through_any_square_touching_the_hole_even_a_corner():
    state = position({0: CENTRE, 1: [9, 9]}, roll=1, carrier=0)
    assert targets(state) == [list(board.coords(n)) for n in board.CENTRE_EXITS]
    assert [3, 3] in targets(state) and [6, 6] in targets(state)
    two = targets(position({0: CENTRE, 1: [9, 9]}, roll=2, carrier=0))
    assert [2, 2] in two  # through the corner square (3, 3), then diagonally
    after = game.apply(state, 0, move([3, 3]))
    assert after.positions[0] == node([3, 3]) and after.carrier == 0


def test_the_carrier_steps_diagonally():
    state = position({0: [2, 2], 1: [9, 9]}, roll=1, carrier=0)
    assert targets(state) == [[1, 1], [1, 2], [1, 3], [2, 1], [2, 3], [3, 1], [3, 2], [3, 3]]


def test_the_carrier_may_not_pass_or_land_on_tokens_nor_go_back_into_the_centre():
    at = {0: [0, 5], 1: [1, 4], 2: [1, 5], 3: [1, 6]}
    state = position(at, roll=2, carrier=0)
    assert [2, 5] not in targets(state)
    refused(state, move([2, 5]), "not_reachable")
    refused(position(at, roll=1, carrier=0), move([1, 5]), "carrier_cannot_land_on_token")
    uncarried = position(at, roll=2, trash={0: 1})
    assert [2, 5] in targets(uncarried)  # others may pass over tokens
    near_hole = position({0: [3, 4], 1: [9, 9]}, roll=1, carrier=0)
    refused(near_hole, move(CENTRE), "carrier_keeps_out_of_centre")


def test_the_carrier_passes_over_start_points_but_ends_only_on_its_own():
    state = position({0: [1, 8], 1: [5, 0], 2: [9, 9], 3: [9, 0]}, roll=1, carrier=0)
    refused(state, move([0, 9]), "own_start_only")
    # tokens on (1, 7) and (1, 8) leave only the way over seat 1's start (0, 9) to reach (1, 9)
    over = position({0: [0, 8], 1: [1, 8], 2: [1, 7], 3: [9, 0]}, roll=2, carrier=0)
    assert [1, 9] in targets(over)


def test_others_may_pass_over_the_carrier():
    state = position({0: [0, 5], 1: [1, 5]}, roll=2, trash={0: 2}, carrier=1)
    assert [2, 5] in targets(state)


def test_landing_on_the_carrier_without_trash_steals_the_good_stuff():
    state = position({0: [2, 2], 1: [2, 4]}, roll=2, carrier=1, trash={1: 0})
    after = game.apply(state, 0, move([2, 4]))
    assert after.carrier == 0
    assert after.positions == (node([2, 4]), node([9, 9]))


def test_landing_on_the_carrier_with_trash_sends_the_good_stuff_back_to_the_centre():
    state = position({0: [2, 2], 1: [2, 4]}, roll=2, carrier=1, trash={0: 2})
    after = game.apply(state, 0, move([2, 4]))
    assert after.carrier is None and after.trash == (1, 1)
    assert after.positions == (node([2, 4]), node([9, 9]))
    assert game.view(after, None)["good_stuff"] == CENTRE


def test_a_carrier_still_in_the_centre_can_be_robbed_only_by_a_player_without_trash():
    clean = position({0: [3, 4], 1: CENTRE}, roll=1, carrier=1)
    after = game.apply(clean, 0, move(CENTRE))
    assert after.carrier == 0 and after.positions == (board.CENTRE, node([9, 9]))
    dirty = position({0: [3, 4], 1: CENTRE}, roll=1, carrier=1, trash={0: 1})
    refused(dirty, move(CENTRE), "centre_needs_no_trash")


def test_the_carrier_wins_on_its_own_start_point_by_exact_count():
    state = position({0: [2, 2], 1: [9, 8]}, roll=2, carrier=0)
    assert [0, 0] in targets(state)
    won = game.apply(state, 0, move([0, 0]))
    result = game.outcome(won)
    assert result.winners == (0,) and result.scores == (1.0, 0.0)
    assert result.reason == "good_stuff_home"
    assert game.to_act(won) == () and game.legal_moves(won, 0) == game.legal_moves(won, 1) == []
    refused(won, move([0, 1]), "not_your_turn", error=NotYourTurn)
    assert "P0 brought the good stuff home" in game.render_text(won, None)
    short = position({0: [0, 3], 1: [9, 8]}, roll=2, carrier=0)
    assert [0, 0] not in targets(short)  # three steps away: no overshooting into a win


# --- straight moves ----------------------------------------------------------------------------


def test_straight_moves_keep_to_one_line():
    state = position({0: [2, 2], 1: [9, 9]}, roll=2, trash={0: 3}, straight=True)
    assert targets(state) == [[0, 2], [2, 0], [2, 4], [4, 2]]
    refused(state, move([1, 3]), "not_reachable")
    carrier = position({0: [2, 2], 1: [9, 9]}, roll=2, carrier=0, straight=True)
    # eight lines, but the one towards [4, 4] runs into the hole
    assert targets(carrier) == [[0, 0], [0, 2], [0, 4], [2, 0], [2, 4], [4, 0], [4, 2]]


def test_straight_moves_into_and_out_of_the_centre():
    into = position({0: [1, 4], 1: [9, 9]}, roll=3, straight=True)
    assert CENTRE in targets(into)
    across = position({0: [3, 0], 1: [9, 9]}, roll=5, straight=True)
    assert CENTRE not in targets(across)  # (3, 4) then (3, 5): the line does not enter the hole
    out = position({0: CENTRE, 1: [9, 9]}, roll=2, carrier=0, straight=True)
    expected = {
        (2, 2), (2, 4), (2, 3), (2, 5), (2, 6), (2, 7), (4, 2), (3, 2), (4, 7), (3, 7),
        (5, 2), (6, 2), (5, 7), (6, 7), (7, 2), (7, 4), (7, 3), (7, 5), (7, 6), (7, 7),
    }
    assert {tuple(t) for t in targets(out)} == expected
    assert [3, 3] not in targets(out)  # it could only be reached by a turn


# --- staying -------------------------------------------------------------------------------------


def test_a_roll_of_zero_only_stays():
    state = position({0: [2, 2], 1: [9, 9]}, roll=0, trash={0: 3})
    assert game.legal_moves(state, 0) == [STAY]
    assert game.timeout_move(state, 0) == STAY
    refused(state, move([2, 3]), "roll_is_zero")
    after = game.apply(state, 0, STAY)
    assert after.positions == state.positions and after.turn == 1


def test_with_no_legal_path_the_player_stays():
    # Roll 5 in straight lines from (0, 4): up and left leave the board, down runs through the
    # centre, right ends on seat 1's start point (with seat 1 on it).
    at = {0: [0, 4], 1: [0, 9], 2: [9, 9], 3: [9, 0]}
    state = position(at, roll=5, trash={0: 2}, straight=True)
    assert game.legal_moves(state, 0) == [STAY]
    assert game.timeout_move(state, 0) == STAY
    refused(state, move([0, 9]), "own_start_only")
    refused(state, move([5, 4]), "hole_square")
    refused(state, move([0, -1]), "off_board")
    after = game.apply(state, 0, STAY)
    assert after.positions == state.positions and after.turn == 1


def test_stay_is_refused_while_a_move_exists():
    state = position({0: [2, 2], 1: [9, 9]}, roll=3, trash={0: 3})
    refused(state, STAY, "must_move")


def test_badly_shaped_moves_are_malformed():
    state = position({0: [2, 2], 1: [9, 9]}, roll=2, trash={0: 3})
    refused(state, {"type": "jump", "to": [2, 4]}, "unknown_move_type", error=MalformedMove)
    refused(state, {"type": "move"}, "missing_destination", error=MalformedMove)
    for bad in ([2], [2, "4"], [True, 4], (2, 4), "middle", None):
        refused(state, move(bad), "bad_destination", error=MalformedMove)
    refused(state, move([2, 4]), "not_your_turn", seat=1, error=NotYourTurn)
    refused(state, move([10, 0]), "not_your_turn", seat=1, error=NotYourTurn)
    refused(state, move([10, 0]), "off_board")


def test_a_listed_move_applies_without_changing_its_input():
    state = position({0: [2, 2], 1: [9, 9]}, roll=4, trash={0: 3})
    before = game.dump(state)
    for listed in game.legal_moves(state, 0):
        game.apply(state, 0, listed)
    assert game.dump(state) == before
    assert game.timeout_move(state, 0) == game.legal_moves(state, 0)[0]


# --- forfeit -----------------------------------------------------------------------------------


def test_forfeit_with_two_players_hands_the_other_the_win():
    state = game.setup(2, {}, "forfeit")
    over = game.forfeit(state, 0)
    result = game.outcome(over)
    assert result.winners == (1,) and result.scores == (0.0, 1.0)
    assert result.reason == "last_player_standing"
    assert game.to_act(over) == () and game.forfeit(over, 1) == over


def test_forfeit_with_three_players_plays_on_without_the_seat():
    at = {0: [2, 2], 1: [6, 6], 2: [7, 1]}
    state = position(at, roll=2, carrier=1, turn=1, players=3)
    after = game.forfeit(state, 1)
    assert after.positions[1] is None and after.carrier is None  # good stuff back in the centre
    assert game.outcome(after) is None and game.to_act(after) == (2,)
    assert game.view(after, 0)["seats"][1]["at"] is None
    assert "P1: left the game" in game.render_text(after, 0)
    freed = position({0: [0, 7], 1: [5, 5], 2: [9, 9]}, roll=2, trash={0: 1})
    assert [0, 9] in targets(game.forfeit(freed, 1))  # its start point left with it
    last = game.forfeit(after, 0)
    assert game.outcome(last).winners == (2,) and game.outcome(last).scores == (0.0, 0.0, 1.0)


def test_forfeit_out_of_turn_keeps_the_turn_and_roll():
    state = position({0: [2, 2], 1: [6, 6], 2: [7, 1]}, roll=3, turn=0, players=3)
    after = game.forfeit(state, 2)
    assert after.turn == 0 and after.roll == 3
    assert game.apply(after, 0, move([0, 3])).turn == 1
    later = ScavengeState(**{**after.__dict__, "turn": 1})
    assert game.apply(later, 1, game.legal_moves(later, 1)[0]).turn == 0  # seat 2 is skipped


# --- views, samples, text ------------------------------------------------------------------------


def test_views_show_the_position_and_roll_but_no_seed_and_samples_agree():
    state = game.setup(3, {"straight_moves": True}, "secret-seed-123")
    seen = game.view(state, 2)
    assert "secret-seed-123" not in json.dumps(seen)
    assert seen["seats"][0] == {"seat": 0, "start": [0, 0], "at": [0, 0], "trash": 3}
    assert seen["turn"] == state.turn and seen["roll"] == state.roll
    sampled = game.sample_state(json.loads(json.dumps(seen)), 2, random.Random(5))
    assert game.view(sampled, 2) == seen and sampled.rng.seed != state.rng.seed
    assert game.legal_moves(sampled, state.turn) == game.legal_moves(state, state.turn)
    assert game.load(json.loads(json.dumps(game.dump(state)))) == state


def test_render_shows_the_grid_tokens_starts_centre_and_trash():
    state = position({0: [2, 3], 1: CENTRE}, roll=4, trash={0: 2, 1: 0}, carrier=1)
    picture = game.render_text(state, 0).splitlines()
    assert picture[4].split() == ["2", ".", ".", ".", "P0", ".", ".", ".", ".", ".", "."]
    assert picture[6].split()[5:7] == ["P1*", "P1*"]  # the carrier standing in the centre
    assert picture[2].split()[1] == "s0"
    assert "P0 (you) (start row 0, col 0): at row 2, col 3, trash 2" in picture
    assert "P0 to move, rolled 4." in picture
    assert max(len(line) for line in picture) <= 100


def test_ruling_straight_out_of_the_centre_is_one_line_that_a_token_or_the_edge_cuts():
    """RULINGS (Scavenge, `straight_moves`): the carrier's way out is one line from a hole square
    through the ring; a token on the line cuts it, and a roll no line fits leaves it staying."""
    free = position({0: CENTRE, 1: [9, 9]}, roll=2, carrier=0, straight=True)
    blocked = position({0: CENTRE, 1: [3, 4]}, roll=2, carrier=0, straight=True)
    cut = {tuple(t) for t in targets(free)} - {tuple(t) for t in targets(blocked)}
    # (3, 4) carries the line straight up from (4, 4) and the diagonal up-left from (4, 5)
    assert cut == {(2, 4), (2, 3)}
    assert [3, 4] not in targets(blocked)  # not a landing either: a line may not land on a token
    too_long = position({0: CENTRE, 1: [9, 9]}, roll=5, carrier=0, straight=True)
    assert game.legal_moves(too_long, 0) == [STAY]  # every line leaves the board within 5
