"""Terrain Vague frame: setup (building, clubhouses, eliminations, picks), turns, home turf, the
end, timeouts, forfeits and the text board, on hand-built positions."""

from __future__ import annotations

import random

import pytest

from rules.errors import IllegalMove, InvalidOptions, MalformedMove, NotYourTurn
from rules.rng import Rng
from rules.terrain_vague import RULES, data, turns, wrestling
from rules.terrain_vague.hexes import CENTRE, board_hexes, neighbours_on_board
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.state import (
    ACT,
    BUILD,
    CLUBHOUSE_PLACEMENT,
    OVER,
    PICK,
    WRESTLE,
    FrozenMap,
    Pawn,
    State,
    Turf,
)
from rules.terrain_vague.territory import home_turf, is_isolated

R, B, C, S = data.RUBBLES, data.BRAMBLES, data.CESSPOOLS, data.SCRAPPERS
W, T = data.WIMPY, data.TOUGH


def make_state(
    seats=(R, B),
    own=None,
    clubhouses=None,
    phase=ACT,
    turn=1,
    step=2,
    acting=None,
    order=None,
    options=None,
    filler=Turf(S, W),
    points=None,
    built=None,
) -> State:
    """A position: every hex `filler` turf unless `own` says otherwise ({hex: Turf})."""
    players = len(seats)
    positions = board_hexes(data.BOARD_RADIUS[players]) if built is None else built
    board = {h: filler for h in positions}
    board.update(own or {})
    board[CENTRE] = None
    order = order or tuple(seats)
    return State(
        players=players,
        options=FrozenMap(RULES.normalize_options(players, options or {})),
        seats=tuple(seats),
        phase=phase,
        turn=turn,
        step=step,
        order=order,
        acting=acting if acting is not None else (order[0] if phase != WRESTLE else None),
        board=FrozenMap(board),
        pawns=FrozenMap(),
        clubhouses=FrozenMap({g: (clubhouses or {}).get(g) for g in seats}),
        reserves=FrozenMap({(g, k): n for g in seats for k, n in data.PAWNS_PER_GANG.items()}),
        stacks=FrozenMap({(g, s): 0 for g in data.GANGS for s in data.STRENGTHS}),
        supplies=FrozenMap({(g, s): 10 for g in data.GANGS for s in data.STRENGTHS}),
        points=FrozenMap(points or {g: 5 for g in seats}),
        challenges=FrozenMap(),
        eliminated=(),
        duels=(),
        wrestled=(),
        cancelled=FrozenMap(),
        ledger=Ledger.empty(),
        rng=Rng("test-seed"),
    )


FOUR_HOMES = {
    R: [(1, 0), (2, 0)],
    B: [(-1, 0), (-2, 0)],
    C: [(0, 2), (0, 3)],
    S: [(0, -2), (0, -3)],
}


def four_gangs(seats=(R, B, C, S), **kwargs) -> State:
    """Four gangs with two-hex home turfs on an otherwise unbuilt board."""
    own = {h: Turf(g, W) for g in seats for h in FOUR_HOMES[g]}
    clubs = {g: FOUR_HOMES[g][0] for g in seats}
    return make_state(seats=seats, own=own, clubhouses=clubs, built=(), **kwargs)


def place(hex_, gang, strength):
    return {"type": "place_hex", "hex": hex_, "gang": gang, "strength": strength}


def turf_block(gang, hexes_, strength=W):
    return {h: Turf(gang, strength) for h in hexes_}


def seat(state, gang):
    return state.seat_of(gang)


# --- setup: options and building ---------------------------------------------------------


def test_options_fit_the_player_count():
    with pytest.raises(InvalidOptions) as error:
        RULES.setup(3, {"gangs": "rubbles-cesspools"}, "s")
    assert error.value.option == "gangs"
    with pytest.raises(InvalidOptions) as error:
        RULES.setup(2, {"to_25": True}, "s")
    assert error.value.option == "to_25"
    state = RULES.setup(2, {"gangs": "cesspools-scrappers"}, "s")
    assert state.seats == (C, S)


def test_building_starts_in_turn_one_points_order_from_the_toxic_waste():
    state = RULES.setup(4, {}, "build-seed")
    assert state.phase == BUILD
    assert state.order == (R, C, S, B)  # 20, 12, 10, 6 points on turn 1
    assert state.acting == R
    assert sorted(state.seats) == sorted(data.GANGS)
    moves = RULES.legal_moves(state, seat(state, R))
    assert len(moves) == 6 * 6  # six positions round the Toxic Waste, six foreign stacks
    assert all(m["gang"] != R for m in moves)
    assert {tuple(m["hex"]) for m in moves} == {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}


def test_placing_a_hex_takes_it_from_the_stack_and_passes_to_the_next_builder():
    state = RULES.setup(4, {}, "build-seed")
    after = RULES.apply(state, seat(state, R), place([1, 0], B, T))
    assert after.board[(1, 0)] == Turf(B, T)
    assert after.stacks[(B, T)] == 10
    assert after.acting == C
    assert {tuple(m["hex"]) for m in RULES.legal_moves(after, seat(after, C))} >= {(2, 0), (2, -1)}


@pytest.mark.parametrize(
    "move, code",
    [
        ({"hex": [1, 0], "gang": R, "strength": W}, "own_stack"),
        ({"hex": [2, 0], "gang": B, "strength": W}, "not_adjacent"),
        ({"hex": [6, 0], "gang": B, "strength": W}, "off_board"),
        ({"hex": [0, 0], "gang": B, "strength": W}, "position_taken"),
    ],
)
def test_illegal_placements_are_refused_with_codes(move, code):
    state = RULES.setup(4, {}, "build-seed")
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, R), {"type": "place_hex", **move})
    assert error.value.code == code


def test_malformed_placements_and_other_seats_are_refused():
    state = RULES.setup(4, {}, "build-seed")
    with pytest.raises(MalformedMove) as error:
        RULES.apply(state, seat(state, R), place([1, 0], "elves", W))
    assert error.value.code == "bad_gang"
    with pytest.raises(MalformedMove) as error:
        RULES.apply(state, seat(state, R), place("1,0", B, W))
    assert error.value.code == "bad_hex"
    with pytest.raises(NotYourTurn):
        RULES.apply(state, seat(state, B), place([1, 0], R, W))
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, R), {"type": "place_clubhouse", "hex": [1, 0]})
    assert error.value.code == "wrong_phase"


def test_an_empty_stack_cannot_be_placed():
    state = RULES.setup(4, {}, "build-seed")
    state = state.with_(stacks=state.stacks.set((B, T), 0))
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, R), place([1, 0], B, T))
    assert error.value.code == "stack_empty"


def test_a_builder_left_with_only_its_own_stacks_is_skipped():
    positions = board_hexes(3)
    missing = [(3, 0), (3, -1)]
    built = [h for h in positions if h not in missing]
    state = make_state(phase=BUILD, turn=0, step=0, built=built, acting=B, order=(R, B))
    state = state.with_(
        board=state.board.without((3, 0)).without((3, -1)), stacks=state.stacks.set((R, W), 2)
    )
    after = RULES.apply(state, seat(state, B), place([3, -1], R, W))
    assert after.acting == B  # rubbles may not place its own turf: brambles places again
    done = RULES.apply(after, seat(after, B), place([3, 0], R, W))
    assert done.phase == CLUBHOUSE_PLACEMENT and done.acting == R
    assert len(done.board) == 37


def test_with_four_gangs_the_two_missing_hexes_come_from_the_supply():
    state = RULES.setup(4, {}, "fill-seed")
    supply_before = sum(state.supplies.values())
    empties = [h for h in board_hexes(5) if h not in state.board]
    # Pretend all but three positions are built and one stack hex is left.
    board = state.board.updated({h: Turf(C, W) for h in empties[3:]})
    stacks = FrozenMap({k: 0 for k in state.stacks}).set((B, W), 1)
    state = state.with_(board=board, stacks=stacks, acting=R)
    target = next(h for h in empties[:3] if any(n in board for n in neighbours_on_board(h, 5)))
    after = RULES.apply(state, seat(state, R), place(list(target), B, W))
    assert len(after.board) == 91
    assert after.phase == CLUBHOUSE_PLACEMENT
    assert sum(after.supplies.values()) == supply_before - 2


def test_a_random_board_is_dealt_whole():
    state = RULES.setup(4, {"board": "random"}, "deal-seed")
    assert state.phase == CLUBHOUSE_PLACEMENT and len(state.board) == 91
    assert not any(state.stacks.values())
    on_board = sum(1 for t in state.board.values() if t is not None)
    assert on_board == 90
    assert sum(state.supplies.values()) == 4 * 2 * data.SUPPLY_PER_STRENGTH - 90
    assert RULES.setup(4, {"board": "random"}, "deal-seed") == state


# --- clubhouses, eliminations, picks -----------------------------------------------------


def clubhouse_position():
    own = {**turf_block(R, [(1, 0)]), **turf_block(B, [(-1, 0), (-2, 0)])}
    return make_state(own=own, phase=CLUBHOUSE_PLACEMENT, turn=0, step=0, order=(R, B))


def test_clubhouse_sites_are_own_turf_or_enemy_turf_touching_it():
    state = clubhouse_position()
    sites = {tuple(m["hex"]) for m in RULES.legal_moves(state, seat(state, R))}
    assert (1, 0) in sites and (2, 0) in sites and (1, -1) in sites
    assert (3, 0) not in sites and CENTRE not in sites
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, R), {"type": "place_clubhouse", "hex": [3, 0]})
    assert error.value.code == "not_next_to_own_turf"
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, R), {"type": "place_clubhouse", "hex": [0, 0]})
    assert error.value.code == "not_turf"


def test_a_clubhouse_on_enemy_turf_makes_it_tough_own_turf_and_returns_the_old_hex():
    state = clubhouse_position()
    after = RULES.apply(state, seat(state, R), {"type": "place_clubhouse", "hex": [2, 0]})
    assert after.board[(2, 0)] == Turf(R, T)
    assert after.clubhouses[R] == (2, 0)
    assert after.supply(R, T) == 9 and after.supply(S, W) == 11
    assert after.acting == B
    assert home_turf(after, R) == {(1, 0), (2, 0)}
    with pytest.raises(IllegalMove) as error:
        RULES.apply(after, seat(after, B), {"type": "place_clubhouse", "hex": [2, 0]})
    assert error.value.code == "occupied"


def test_a_gang_with_a_one_hex_home_turf_is_eliminated_when_turn_one_step_two_begins():
    state = clubhouse_position()
    state = RULES.apply(state, seat(state, R), {"type": "place_clubhouse", "hex": [1, 0]})
    state = RULES.apply(state, seat(state, B), {"type": "place_clubhouse", "hex": [-1, 0]})
    assert state.eliminated == (R,)
    assert state.phase == OVER and state.winners == (B,)
    assert RULES.outcome(state).winners == (seat(state, B),)
    assert RULES.outcome(state).reason == "last_gang_standing"


def three_gang_clubhouses():
    own = {
        **turf_block(R, [(1, 0), (2, 0)]),
        **turf_block(B, [(-1, 0), (-2, 0)]),
        **turf_block(C, [(0, 2), (0, 3)]),
    }
    state = make_state(
        seats=(R, B, C), own=own, phase=CLUBHOUSE_PLACEMENT, turn=0, step=0, order=(R, C, B)
    )
    for gang, site in ((R, [1, 0]), (C, [0, 2]), (B, [-1, 0])):
        state = RULES.apply(state, seat(state, gang), {"type": "place_clubhouse", "hex": site})
    return state


def test_with_three_gangs_the_lone_gang_picks_its_opponent_at_setup():
    state = three_gang_clubhouses()
    assert state.phase == PICK and state.acting == C
    moves = RULES.legal_moves(state, seat(state, C))
    assert moves == [{"type": "choose_opponent", "gang": R}, {"type": "choose_opponent", "gang": B}]
    with pytest.raises(IllegalMove) as error:
        RULES.apply(state, seat(state, C), {"type": "choose_opponent", "gang": S})
    assert error.value.code == "bad_opponent"
    after = RULES.apply(state, seat(state, C), {"type": "choose_opponent", "gang": R})
    assert after.challenges[C] == R
    assert after.phase == ACT and after.turn == 1 and after.step == 2


def test_the_picked_opponent_defends_with_the_pickers_sworn_enemys_red_number():
    state = three_gang_clubhouses()
    state = RULES.apply(state, seat(state, C), {"type": "choose_opponent", "gang": R})
    state = state.with_(turn=6)
    duels = wrestling.build_duels(state)
    assert [(d.attacker, d.defender, d.attack_number, d.defence_number) for d in duels] == [
        (R, B, 2, 2),
        (B, R, 2, 2),
        (C, R, 1, 3),  # rubbles defends with the scrappers' 3, not its own 2
    ]


def test_a_gang_whose_sworn_enemy_is_gone_picks_before_the_next_duels():
    own = {
        **turf_block(B, [(-1, 0), (-2, 0)]),
        **turf_block(C, [(0, 2), (0, 3)]),
        **turf_block(S, [(3, 0), (3, -1)]),
    }
    clubs = {B: (-1, 0), C: (0, 2), S: (3, 0)}
    state = make_state(
        seats=(R, B, C, S), own=own, clubhouses=clubs, turn=2, step=5, acting=S, filler=Turf(R, W)
    )
    state = state.with_(eliminated=(R,))
    state = RULES.apply(state, seat(state, S), {"type": "end_step"})
    assert state.turn == 3 and state.phase == PICK and state.acting == B
    state = RULES.apply(state, seat(state, B), {"type": "choose_opponent", "gang": S})
    assert state.phase == WRESTLE
    assert [(d.attacker, d.defender) for d in state.duels] == [(C, S), (S, C), (B, S)]


# --- turns and steps ---------------------------------------------------------------------


def test_white_turns_give_hideout_points_and_set_the_play_order():
    state = four_gangs(seats=(B, R, S, C), turn=1, step=5, acting=C, order=(R, B, S, C))
    state = RULES.apply(state, seat(state, C), {"type": "end_step"})
    assert state.turn == 2 and state.step == 2 and state.phase == ACT
    assert dict(state.points) == {R: 16, B: 8, C: 14, S: 11}  # unspent points were lost
    assert state.order == (R, C, S, B)
    assert state.acting == R


def test_each_gang_ends_its_step_in_order_then_the_next_step_begins():
    state = make_state(seats=(R, B), turn=1, step=2, order=(R, B))
    state = RULES.apply(state, 0, {"type": "end_step"})
    assert (state.step, state.acting) == (2, B)
    assert RULES.to_act(state) == (1,)
    assert {"type": "end_step"} in RULES.legal_moves(state, 1)
    assert RULES.legal_moves(state, 0) == []
    state = RULES.apply(state, 1, {"type": "end_step"})
    assert (state.step, state.acting) == (3, R)


def test_play_order_ties_go_to_fewer_cancelled_digits_then_the_fixed_order():
    state = make_state(seats=(R, B, C, S), points={R: 7, B: 7, C: 7, S: 9})
    state = state.with_(cancelled=FrozenMap({R: 2, B: 1, C: 1, S: 3}))
    assert turns.play_order(state) == (S, B, C, R)


def test_turn_one_step_two_eliminates_gangs_without_a_two_hex_home_turf_only_on_turn_one():
    own = {
        **turf_block(R, [(1, 0)]),
        **turf_block(B, [(-1, 0), (-2, 0)]),
        **turf_block(C, [(0, 2), (0, 3)]),
    }
    clubs = {R: (1, 0), B: (-1, 0), C: (0, 2)}
    state = make_state(seats=(R, B, C), own=own, clubhouses=clubs, turn=1, step=5, acting=C)
    later = RULES.apply(state, seat(state, C), {"type": "end_step"})
    assert later.turn == 2 and later.eliminated == ()


def test_a_gang_without_clubhouse_or_free_own_hex_is_eliminated_at_step_two():
    own = {
        **turf_block(B, [(-1, 0), (-2, 0)]),
        **turf_block(C, [(0, 2), (0, 3)]),
        **turf_block(R, [(2, 0)]),
    }
    clubs = {R: None, B: (-1, 0), C: (0, 2)}
    state = make_state(seats=(R, B, C), own=own, clubhouses=clubs, turn=4, step=5, acting=C)
    pawns = {(2, 0): Pawn(B, data.WHEELBARROW), (1, 0): Pawn(R, data.LID)}
    state = state.with_(pawns=FrozenMap(pawns))
    after = RULES.apply(state, seat(state, C), {"type": "end_step"})
    assert after.eliminated == (R,)
    assert (1, 0) not in after.pawns and after.board[(2, 0)] == Turf(R, W)  # turf stays
    assert after.order[0] != R and after.acting in (B, C)


# --- home turf ---------------------------------------------------------------------------


def test_home_turf_connects_through_the_toxic_waste_but_never_counts_it():
    own = turf_block(R, [(1, 0), (-1, 0), (-2, 0), (3, -3)])
    state = make_state(own=own, clubhouses={R: (1, 0)})
    assert home_turf(state, R) == {(1, 0), (-1, 0), (-2, 0)}
    assert is_isolated(state, (3, -3)) and not is_isolated(state, (-2, 0))
    assert not is_isolated(state, CENTRE)
    assert RULES.view(state, 0)["home_turf"][R] == 3


def test_a_destroyed_or_lonely_clubhouse_has_no_home_turf():
    own = turf_block(R, [(1, 0), (2, 0), (3, -3)])
    assert home_turf(make_state(own=own, clubhouses={R: None}), R) == frozenset()
    lonely = make_state(own=own, clubhouses={R: (3, -3)})
    assert home_turf(lonely, R) == frozenset()
    assert not is_isolated(lonely, (3, -3))  # a clubhouse is never isolated
    assert is_isolated(lonely, (1, 0))


# --- the end -----------------------------------------------------------------------------


def big_turf(gang, count):
    return [h for h in board_hexes(5) if h != CENTRE][:count]


def test_with_four_gangs_25_home_hexes_at_the_end_of_a_turn_win():
    own = turf_block(R, big_turf(R, 25))
    clubs = {R: big_turf(R, 1)[0], B: None, C: None, S: None}
    state = make_state(
        seats=(R, B, C, S), own=own, clubhouses=clubs, filler=Turf(B, W), turn=5, step=5, acting=S
    )
    assert len(home_turf(state, R)) == 25
    state = RULES.apply(state, seat(state, S), {"type": "end_step"})
    assert state.phase == OVER and state.winners == (R,) and state.end_reason == "home_turf_25"
    outcome = RULES.outcome(state)
    assert outcome.scores[seat(state, R)] == 1.0 and sum(outcome.scores) == 1.0
    assert RULES.to_act(state) == () and RULES.legal_moves(state, 0) == []


def test_after_turn_twelve_the_largest_home_turf_wins():
    own = {**turf_block(R, [(1, 0), (2, 0)]), **turf_block(B, [(-1, 0), (-2, 0), (-3, 0)])}
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    state = RULES.apply(state, seat(state, B), {"type": "end_step"})
    assert state.phase == OVER and state.winners == (B,) and state.end_reason == "largest_home_turf"


def test_home_turf_ties_go_to_most_own_hexes_then_are_shared():
    own = {**turf_block(R, [(1, 0), (2, 0), (3, -3)]), **turf_block(B, [(-1, 0), (-2, 0)])}
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    assert RULES.apply(state, 1, {"type": "end_step"}).winners == (R,)
    own[(3, -3)] = Turf(S, W)
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    over = RULES.apply(state, 1, {"type": "end_step"})
    assert over.winners == (R, B)
    assert RULES.outcome(over).scores == (0.5, 0.5)


def test_the_ending_names_the_own_hexes_where_they_split_a_tied_home_turf():
    own = {**turf_block(R, [(1, 0), (2, 0)]), **turf_block(B, [(-1, 0), (-2, 0), (-3, 0)])}
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    assert RULES.presentation(state, 0)["ending"] is None
    clear = RULES.apply(state, 1, {"type": "end_step"})
    assert RULES.presentation(clear, 0)["ending"] == "the largest home turf after the last turn; home turf Rubbles 2, Brambles 3 (won)"

    own = {**turf_block(R, [(1, 0), (2, 0), (3, -3)]), **turf_block(B, [(-1, 0), (-2, 0)])}
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    split = RULES.apply(state, 1, {"type": "end_step"})
    words = "the largest home turf after the last turn, tied at 2; most own hexes on the board, 3 to 2"
    ending = "the largest home turf after the last turn; home turf Rubbles 2 (won), Brambles 2; most own hexes on the board, 3 to 2"
    assert RULES.presentation(split, None)["ending"] == RULES.presentation(split, 1)["ending"] == ending
    assert [p["score_parts"] for p in RULES.presentation(split, 0)["panels"]] == [
        [{"label": "home turf", "value": 2}, {"label": "own hexes", "value": 3}],
        [{"label": "home turf", "value": 2}, {"label": "own hexes", "value": 2}],
    ]
    assert f"Game over, {words}: winner(s) rubbles" in " ".join(RULES.render_text(split, 0).split())  # wrapped at 80

    own[(3, -3)] = Turf(S, W)
    state = make_state(own=own, clubhouses={R: (1, 0), B: (-1, 0)}, turn=12, step=5, acting=B)
    shared = RULES.apply(state, 1, {"type": "end_step"})
    assert RULES.presentation(shared, 0)["ending"] == (
        "the largest home turf after the last turn; home turf Rubbles 2 (won), Brambles 2 (won); own hexes tied too (2): a shared win")
    assert "Game over, the largest home turf after the last turn, tied at 2, and own hexes too (2): a shared win: winner(s)" \
        in " ".join(RULES.render_text(shared, 0).split())


def test_option_to_25_plays_past_turn_twelve_with_the_hideout_from_turn_one():
    state = four_gangs(options={"to_25": True}, turn=12, step=5, acting=S)
    state = RULES.apply(state, seat(state, S), {"type": "end_step"})
    assert state.phase == ACT and state.turn == 13
    assert state.points[C] == data.HIDEOUT[C][0]


# --- timeouts, forfeits, views, text -----------------------------------------------------


def test_timeout_ends_the_step():
    state = make_state()
    assert RULES.timeout_move(state, 0) == {"type": "end_step"}


def test_a_forfeit_with_two_gangs_hands_the_win_to_the_other():
    state = make_state()
    over = RULES.forfeit(state, 0)
    assert over.phase == OVER and RULES.outcome(over).winners == (1,)


def test_a_forfeit_with_more_gangs_lets_play_go_on():
    state = make_state(seats=(R, B, C), order=(R, B, C), acting=R)
    after = RULES.forfeit(state, seat(state, R))
    assert after.eliminated == (R,) and after.acting == B and after.phase == ACT
    assert RULES.to_act(after) == (seat(after, B),)
    assert RULES.outcome(after) is None


def test_the_text_board_shows_turf_pawns_points_and_home_turf():
    own = turf_block(R, [(1, 0), (2, 0)], strength=T)
    state = make_state(own=own, clubhouses={R: (1, 0)}, points={R: 12, B: 3})
    state = state.with_(pawns=FrozenMap({(2, 0): Pawn(B, data.SLINGSHOT)}))
    text = RULES.render_text(state, 0)
    assert "RRH" in text and "RBs" in text and "~~~" in text
    assert "12 pts" in text and "home turf  2" in text and "You are rubbles" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_views_round_trip_into_the_same_state_except_the_seed():
    state = RULES.setup(3, {"board": "random"}, "view-seed")
    seen = RULES.view(state, 0)
    assert "view-seed" not in str(seen)
    sampled = RULES.sample_state(seen, 0, random.Random(3))
    assert RULES.view(sampled, 0) == seen
    assert RULES.load(RULES.dump(state)) == state


def test_a_builder_who_forfeits_is_skipped_and_setup_timeouts_are_legal_moves():
    state = RULES.setup(3, {}, "forfeit-build")
    builder = state.acting
    builder_seat = seat(state, builder)
    assert RULES.timeout_move(state, builder_seat) in RULES.legal_moves(state, builder_seat)
    after = RULES.forfeit(state, seat(state, builder))
    assert after.phase == BUILD and after.acting == state.order[1]
    assert RULES.legal_moves(after, seat(after, builder)) == []


def test_a_positions_cells_are_worked_out_once_and_each_caller_gets_its_own_copy():
    state = RULES.setup(3, {}, "cells-seed")
    first = RULES.cells(state, 0)
    assert first and first == RULES.cells(state, None) == RULES.cells(state, 2)  # every hex is public
    first.clear()
    assert RULES.cells(state, 1) == RULES.cells(state, None) != {}
    assert state.__dict__["_cells"] is not RULES.cells(state, 1)
