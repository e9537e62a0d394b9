"""Terrain Vague pawn actions (steps 2-5) on hand-built positions, the book's examples included.

Positions are built with `position()`: a 4-gang board (radius 5, range 3) filled with Brambles
wimpy turf unless a test says otherwise, the Toxic Waste at (0, 0), each gang's clubhouse where
the test puts it. Every scenario also checks that each listed action applies as listed.
"""

import json
import random

import pytest

from rules.errors import IllegalMove, MalformedMove
from rules.rng import Rng
from rules.terrain_vague import RULES, data, moves, slingshots, wheelbarrows
from rules.terrain_vague.actions import apply_action, legal_actions, start_turn
from rules.terrain_vague.data import (
    BIG_BROTHER,
)
from rules.terrain_vague.data import BRAMBLES as B
from rules.terrain_vague.data import CESSPOOLS as C
from rules.terrain_vague.data import LID
from rules.terrain_vague.data import RUBBLES as R
from rules.terrain_vague.data import SCRAPPERS as S
from rules.terrain_vague.data import SLINGSHOT, TOUGH, WHEELBARROW, WIMPY
from rules.terrain_vague.hexes import CENTRE, board_hexes
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.position import protection_of
from rules.terrain_vague.state import ACT, FrozenMap, Pawn, State, Turf
from rules.terrain_vague.territory import home_turf

SUPPLY = 10
# A small Rubbles home turf in the west: the clubhouse at (-3, 0), a line of own hexes to the
# Toxic Waste, and a few more.
R_HOME = [(-3, 0), (-2, 0), (-1, 0), (-4, 0), (-3, 1), (-3, 2), (-4, 1)]
R_CLUB = (-3, 0)
B_CLUB = (4, -4)


def position(
    *,
    players=4,
    fill=B,
    turf=None,
    tough=(),
    pawns=None,
    clubhouses=None,
    points=20,
    step=3,
    rip_off="whole",
    supplies=None,
    ledger=None,
):
    """A position in steps 2-5. `turf`: gang -> hexes (wimpy unless listed in `tough`);
    `pawns`: hex -> (gang, kind); `clubhouses`: gang -> hex (default Rubbles at R_CLUB with
    R_HOME, Brambles at B_CLUB)."""
    seats = (R, B, C, S)[:players]
    board = {h: Turf(fill, WIMPY) for h in board_hexes(data.BOARD_RADIUS[players])}
    board[CENTRE] = None
    for gang, hexes in (turf if turf is not None else {R: R_HOME}).items():
        for h in hexes:
            board[h] = Turf(gang, WIMPY)
    for h in tough:
        board[h] = board[h]._replace(strength=TOUGH)
    placed = {h: Pawn(*p) for h, p in (pawns or {}).items()}
    clubs = {g: None for g in seats}
    clubs.update(clubhouses if clubhouses is not None else {R: R_CLUB, B: B_CLUB})
    reserves = {
        (g, k): n - sum(1 for p in placed.values() if p == (g, k))
        for g in seats
        for k, n in data.PAWNS_PER_GANG.items()
    }
    supply = {(g, s): SUPPLY for g in data.GANGS for s in data.STRENGTHS}
    supply.update(supplies or {})
    return State(
        players=players,
        options=FrozenMap(
            {"board": "random", "gangs": data.DEFAULT_GANG_PAIR, "to_25": False, "rip_off": rip_off}
        ),
        seats=seats,
        phase=ACT,
        turn=2,
        step=step,
        order=seats,
        acting=R,
        board=FrozenMap(board),
        pawns=FrozenMap(placed),
        clubhouses=FrozenMap(clubs),
        reserves=FrozenMap(reserves),
        stacks=FrozenMap({(g, s): 0 for g in data.GANGS for s in data.STRENGTHS}),
        supplies=FrozenMap(supply),
        points=FrozenMap({g: points for g in seats}),
        challenges=FrozenMap(),
        eliminated=(),
        duels=(),
        wrestled=(),
        cancelled=FrozenMap(),
        ledger=ledger or Ledger.empty(),
        rng=Rng("test"),
    )


def act(state, move, gang=R):
    """Apply after checking that the move is listed and that every listed move applies."""
    listed = legal_actions(state, gang)
    for each in listed:
        apply_action(state, gang, each)
    assert move in listed, f"{move} not in {listed}"
    return apply_action(state, gang, move)


def refused(state, move, code, gang=R):
    assert move not in legal_actions(state, gang)
    with pytest.raises(IllegalMove) as caught:
        apply_action(state, gang, move)
    assert caught.value.code == code, caught.value.message
    return caught.value


def at_step(state, step):
    return state.with_(step=step)


# --- the shape of moves ----------------------------------------------------------------------


def test_action_types_and_malformed_moves():
    assert moves.ACTION_TYPES == {
        "call_out", "rebuild", "move", "clean_house", "shoot", "rip", "reinforce", "big_rip_off"
    }
    s = position(step=2)
    with pytest.raises(MalformedMove) as caught:
        apply_action(s, R, {"type": "dance"})
    assert caught.value.code == "unknown_move_type"
    with pytest.raises(MalformedMove) as caught:
        apply_action(s, R, {"type": "call_out", "kind": "tank", "to": [-2, 0]})
    assert caught.value.code == "bad_kind"
    with pytest.raises(MalformedMove) as caught:
        apply_action(s, R, {"type": "call_out", "kind": LID, "to": "here"})
    assert caught.value.code == "bad_hex"
    with pytest.raises(MalformedMove) as caught:
        apply_action(s, R, {"type": "call_out", "kind": LID})
    assert caught.value.code == "missing_field"


def test_an_action_outside_its_step_is_refused():
    s = position(step=3)
    refused(s, {"type": "call_out", "kind": LID, "to": [-2, 0]}, "wrong_step")
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-5, 0]}, "wrong_step")
    assert legal_actions(s.with_(step=1), R) == []


def test_ledger_round_trips_through_json():
    ledger = Ledger(
        moved=((1, 2),), fired=((0, 1),), rips=(((3, -1), 2),), changed=((2, 2),),
        beaned=((B, LID), (B, LID)), big_brother_out=(R,), destroyed=(C,), rebuilt=(S,), step=4,
    )
    assert Ledger.load(json.loads(json.dumps(ledger.dump()))) == ledger
    assert Ledger.load(Ledger.empty().dump()) == Ledger.empty()


# --- step 2: call-out ------------------------------------------------------------------------


def test_call_out_onto_empty_own_hex_in_range_of_the_clubhouse_pays_the_cost():
    s = position(step=2)
    after = act(s, {"type": "call_out", "kind": LID, "to": [-1, 0]})
    assert after.pawns[(-1, 0)] == Pawn(R, LID)
    assert after.points[R] == 20 - 3
    assert after.reserve(R, LID) == 3
    assert s.pawns == FrozenMap() and s.points[R] == 20  # the input is untouched


def test_call_out_costs_per_kind():
    s = position(step=2)
    for kind, cost in ((WHEELBARROW, 2), (SLINGSHOT, 2), (LID, 3), (BIG_BROTHER, 4)):
        assert act(s, {"type": "call_out", "kind": kind, "to": [-2, 0]}).points[R] == 20 - cost


def test_call_out_refusals():
    s = position(step=2, turf={R: R_HOME + [(-2, 1)]}, pawns={(-2, 0): (R, LID)})
    refused(s, {"type": "call_out", "kind": LID, "to": [-2, 0]}, "occupied")
    refused(s, {"type": "call_out", "kind": LID, "to": [-3, -1]}, "not_own_turf")
    refused(s, {"type": "call_out", "kind": LID, "to": [0, 0]}, "toxic_waste")
    refused(s, {"type": "call_out", "kind": LID, "to": [9, 9]}, "off_board")
    refused(s, {"type": "call_out", "kind": LID, "to": [-2, 1]}, "out_of_range")  # not a line
    poor = s.with_(points=s.points.set(R, 3))
    refused(poor, {"type": "call_out", "kind": BIG_BROTHER, "to": [-1, 0]}, "not_enough_points")
    none_left = s.with_(reserves=s.reserves.set((R, LID), 0))
    refused(none_left, {"type": "call_out", "kind": LID, "to": [-1, 0]}, "none_in_reserve")


def test_call_out_passes_own_pawns_but_not_other_turf_and_reaches_through_the_toxic_waste():
    # The clubhouse's east line: own pawn on (-2, 0), empty (-1, 0), then the Toxic Waste,
    # which relays on to the far side: (1, 0) is Rubbles' turf too.
    s = position(step=2, turf={R: R_HOME + [(1, 0), (1, -1), (-2, 1)]}, pawns={(-2, 0): (R, LID)})
    listed = {tuple(m["to"]) for m in legal_actions(s, R) if m["kind"] == LID}
    assert (-1, 0) in listed and (1, 0) in listed
    assert (1, -1) in listed  # from the Toxic Waste along its north-east line
    assert (-2, 0) not in listed
    # (-2, 1) is own turf next to the clubhouse's line but on none of its lines
    assert (-2, 1) not in listed


def test_call_out_through_the_toxic_waste_when_the_clubhouse_is_hemmed_in():
    # The clubhouse sits on (-2, 0) with own turf only towards the Toxic Waste.
    turf = {R: [(-2, 0), (-1, 0), (1, 0), (2, 0), (0, -1), (0, -2)]}
    s = position(step=2, turf=turf, clubhouses={R: (-2, 0), B: B_CLUB})
    listed = {tuple(m["to"]) for m in legal_actions(s, R) if m["kind"] == WHEELBARROW}
    assert listed == {(-1, 0), (1, 0), (2, 0), (0, -1), (0, -2)}
    blocked = position(
        step=2, turf={R: [(-2, 0), (1, 0), (2, 0)]}, clubhouses={R: (-2, 0), B: B_CLUB}
    )
    refused(blocked, {"type": "call_out", "kind": LID, "to": [1, 0]}, "out_of_range")


def test_nothing_goes_through_another_gangs_clubhouse():
    # Rubbles' slingshot on (-4, 0), Cesspools' clubhouse on (-3, -1), a Brambles lid on
    # (-1, -3): one line, and no relay reaches the lid another way.
    s = position(
        step=4,
        turf={R: R_HOME, C: [(-3, -1)]},
        pawns={(-4, 0): (R, SLINGSHOT), (-1, -3): (B, LID)},
        clubhouses={R: R_CLUB, C: (-3, -1), B: B_CLUB},
    )
    refused(s, {"type": "shoot", "from": [-4, 0], "at": [-1, -3]}, "out_of_range")
    assert {"type": "shoot", "from": [-4, 0], "at": [-3, -1]} in legal_actions(s, R)
    without = position(
        step=4, turf={R: R_HOME, C: [(-3, -1)]}, pawns={(-4, 0): (R, SLINGSHOT), (-1, -3): (B, LID)}
    )
    act(without, {"type": "shoot", "from": [-4, 0], "at": [-1, -3]})


# --- step 2: the clubhouse rebuild ------------------------------------------------------------


def test_rebuild_is_the_only_call_out_of_a_gang_whose_clubhouse_was_beaned():
    s = position(step=2, clubhouses={R: None, B: B_CLUB}, pawns={(-2, 0): (R, LID)})
    listed = legal_actions(s, R)
    assert {m["type"] for m in listed} == {"rebuild"}
    assert {tuple(m["to"]) for m in listed} == set(R_HOME) - {(-2, 0)}
    refused(s, {"type": "call_out", "kind": LID, "to": [-1, 0]}, "clubhouse_destroyed")
    refused(s, {"type": "rebuild", "to": [-2, 0]}, "occupied")
    refused(s, {"type": "rebuild", "to": [5, -5]}, "not_own_turf")
    after = act(s, {"type": "rebuild", "to": [-4, 1]})
    assert after.clubhouses[R] == (-4, 1) and after.points[R] == 20  # free
    assert legal_actions(after, R) == []  # and nothing else called out this step
    refused(after, {"type": "call_out", "kind": LID, "to": [-3, 1]}, "rebuilt_this_step")
    refused(after, {"type": "rebuild", "to": [-3, 1]}, "clubhouse_standing")


# --- step 3: moves ---------------------------------------------------------------------------


def test_move_along_a_line_once_per_step_and_again_next_step():
    s = position(pawns={(-4, 0): (R, WHEELBARROW)})
    after = act(s, {"type": "move", "from": [-4, 0], "to": [-2, 0]})
    assert after.pawns == FrozenMap({(-2, 0): Pawn(R, WHEELBARROW)}) and after.points[R] == 18
    refused(after, {"type": "move", "from": [-2, 0], "to": [-1, 0]}, "already_moved")
    # the ledger's `moved` belongs to step 3 only: next turn's step 3 starts afresh
    later = start_turn(after).with_(step=3)
    act(later, {"type": "move", "from": [-2, 0], "to": [-1, 0]})


def test_move_costs_per_kind():
    for kind, cost in ((WHEELBARROW, 2), (SLINGSHOT, 2), (LID, 4), (BIG_BROTHER, 5)):
        s = position(pawns={(-4, 0): (R, kind)})
        assert act(s, {"type": "move", "from": [-4, 0], "to": [-1, 0]}).points[R] == 20 - cost


def test_move_refusals():
    s = position(
        turf={R: R_HOME + [(-2, 1)]},
        pawns={(-4, 0): (R, WHEELBARROW), (-2, 0): (R, LID), (-3, -1): (B, LID)},
    )
    refused(s, {"type": "move", "from": [-4, 0], "to": [-2, 0]}, "occupied")
    refused(s, {"type": "move", "from": [-4, 0], "to": [-3, -1]}, "occupied")
    refused(s, {"type": "move", "from": [-4, 0], "to": [-4, -1]}, "not_own_turf")
    refused(s, {"type": "move", "from": [-3, 1], "to": [-1, 0]}, "no_such_pawn")
    refused(s, {"type": "move", "from": [-3, -1], "to": [-3, -2]}, "no_such_pawn")
    refused(s, {"type": "move", "from": [-4, 0], "to": [-2, 1]}, "out_of_range")  # not a line
    # passing its own lid and then the Toxic Waste: (1, 0) is five away, beyond range
    far = position(turf={R: R_HOME + [(1, 0)]}, pawns={(-4, 0): (R, WHEELBARROW)})
    assert {"type": "move", "from": [-4, 0], "to": [-1, 0]} in legal_actions(far, R)
    poor = s.with_(points=s.points.set(R, 1))
    refused(poor, {"type": "move", "from": [-4, 0], "to": [-1, 0]}, "not_enough_points")


def test_move_blocked_by_other_turf_even_to_own_turf_beyond():
    turf = {R: [(-3, 0), (-4, 0), (-5, 0), (-2, 0)] + [(-4, 2), (-4, 1)], C: [(-3, 1)]}
    s = position(turf={R: turf[R] + [(-2, 1)], C: [(-3, 1)]}, pawns={(-4, 1): (R, SLINGSHOT)})
    refused(s, {"type": "move", "from": [-4, 1], "to": [-2, 1]}, "out_of_range")
    act(s, {"type": "move", "from": [-4, 1], "to": [-4, 2]})


def test_move_through_clubhouse_and_toxic_waste_relays():
    # The lid on (-3, 2) links to the clubhouse (-3, 0), which links to the Toxic Waste; from
    # there (2, -2) is two hexes away on its north-east line.
    s = position(turf={R: R_HOME + [(1, -1), (2, -2)]}, pawns={(-3, 2): (R, LID)})
    act(s, {"type": "move", "from": [-3, 2], "to": [2, -2]})
    broken = position(
        turf={R: R_HOME + [(1, -1), (2, -2)], C: [(-2, 0)]}, pawns={(-3, 2): (R, LID)}
    )
    refused(broken, {"type": "move", "from": [-3, 2], "to": [2, -2]}, "out_of_range")


def test_no_piece_may_stop_on_the_toxic_waste():
    s = position(pawns={(-2, 0): (R, WHEELBARROW)})
    refused(s, {"type": "move", "from": [-2, 0], "to": [0, 0]}, "toxic_waste")


def test_isolated_pawns_do_nothing_until_reconnected():
    # (-1, 2) and (0, 2) are Rubbles' hexes cut off from the home turf.
    turf = {R: R_HOME + [(-1, 2), (0, 2)]}
    s = position(turf=turf, pawns={(-1, 2): (R, WHEELBARROW)})
    assert (-1, 2) not in home_turf(s, R)
    assert legal_actions(s, R) == [m for m in legal_actions(s, R) if m["from"] == list(R_CLUB)]
    refused(s, {"type": "move", "from": [-1, 2], "to": [0, 2]}, "isolated")
    # reconnected through (-2, 2): it moves again
    joined = position(
        turf={R: R_HOME + [(-1, 2), (0, 2), (-2, 2)]}, pawns={(-1, 2): (R, WHEELBARROW)}
    )
    act(joined, {"type": "move", "from": [-1, 2], "to": [0, 2]})


def test_the_clubhouse_moves_to_any_empty_own_hex_and_the_home_turf_follows():
    # (0, 3), (1, 3) and (2, 3) are isolated Rubbles hexes with a wheelbarrow on (2, 3).
    turf = {R: R_HOME + [(0, 3), (1, 3), (2, 3)]}
    s = position(turf=turf, pawns={(2, 3): (R, WHEELBARROW), (-2, 0): (R, SLINGSHOT)})
    assert not any(m["from"] == [2, 3] for m in legal_actions(s, R))
    after = act(s, {"type": "move", "from": list(R_CLUB), "to": [1, 3]})
    assert after.clubhouses[R] == (1, 3) and after.points[R] == 16
    assert home_turf(after, R) == {(0, 3), (1, 3), (2, 3)}
    assert {tuple(m["from"]) for m in legal_actions(after, R)} == {(2, 3)}  # the slingshot idles
    refused(after, {"type": "move", "from": [-2, 0], "to": [-1, 0]}, "isolated")
    refused(after, {"type": "move", "from": [1, 3], "to": [0, 3]}, "already_moved")
    refused(s, {"type": "move", "from": list(R_CLUB), "to": [2, 3]}, "occupied")
    refused(s, {"type": "move", "from": list(R_CLUB), "to": [4, 0]}, "not_own_turf")


# --- step 3: the big brother ----------------------------------------------------------------


def test_cleaning_house_on_empty_turf_makes_it_tough_and_the_big_brother_leaves_until_next_turn():
    s = position(pawns={(-4, 0): (R, BIG_BROTHER)}, tough=[], clubhouses={R: R_CLUB, B: B_CLUB})
    after = act(s, {"type": "clean_house", "from": [-4, 0], "to": [-4, -1]})
    assert after.board[(-4, -1)] == Turf(R, TOUGH)
    assert (-4, 0) not in after.pawns and after.points[R] == 15
    assert after.supply(R, TOUGH) == SUPPLY - 1 and after.supply(B, WIMPY) == SUPPLY + 1
    assert after.reserve(R, BIG_BROTHER) == 0
    assert start_turn(after).reserve(R, BIG_BROTHER) == 1  # back in the reserve next turn


def test_book_big_brother_replaces_a_pawn_with_one_of_its_own():
    # The Brambles wheelbarrow on (-3, -1) is protected by a lid: cleaning house ignores lids.
    s = position(pawns={(-4, 0): (R, BIG_BROTHER), (-3, -1): (B, WHEELBARROW), (-3, -2): (B, LID)})
    assert protection_of(s, B)[(-3, -1)] == 1
    after = act(s, {"type": "clean_house", "from": [-4, 0], "to": [-3, -1]})
    assert after.board[(-3, -1)] == Turf(R, TOUGH)
    assert after.pawns[(-3, -1)] == Pawn(R, WHEELBARROW)
    assert after.points[R] == 15  # 5, never multiplied
    assert after.reserve(R, WHEELBARROW) == 3
    refused(at_step(after, 3), {"type": "move", "from": [-3, -1], "to": [-3, 0]}, "already_moved")
    nxt = start_turn(after)
    assert nxt.reserve(B, WHEELBARROW) == 4 and nxt.reserve(R, BIG_BROTHER) == 1


def test_cleaning_house_removes_the_pawn_when_no_replacement_is_left():
    s = position(pawns={(-4, 0): (R, BIG_BROTHER), (-3, -1): (B, SLINGSHOT)})
    s = s.with_(reserves=s.reserves.set((R, SLINGSHOT), 0))
    after = act(s, {"type": "clean_house", "from": [-4, 0], "to": [-3, -1]})
    assert (-3, -1) not in after.pawns and after.board[(-3, -1)] == Turf(R, TOUGH)


def test_big_brother_against_big_brother_the_attacker_stays():
    s = position(pawns={(-4, 0): (R, BIG_BROTHER), (-4, -1): (B, BIG_BROTHER)})
    after = act(s, {"type": "clean_house", "from": [-4, 0], "to": [-4, -1]})
    assert after.pawns == FrozenMap({(-4, -1): Pawn(R, BIG_BROTHER)})
    assert after.ledger.big_brother_out == ()
    nxt = start_turn(after)
    assert nxt.reserve(B, BIG_BROTHER) == 1 and nxt.reserve(R, BIG_BROTHER) == 0


def test_cleaning_house_reach_and_refusals():
    # The big brother on (-2, 0): north, the Brambles' clubhouse on (-2, -1); north-east an
    # empty Brambles hex, then a wheelbarrow on (0, -2); east its own (-1, 0), the Toxic Waste
    # and an empty Brambles hex (1, 0).
    s = position(
        pawns={(-2, 0): (R, BIG_BROTHER), (0, -2): (B, WHEELBARROW)},
        clubhouses={R: R_CLUB, B: (-2, -1)},
    )
    listed = {tuple(m["to"]) for m in legal_actions(s, R) if m["type"] == "clean_house"}
    assert {(-1, -1), (0, -2), (1, 0)} <= listed
    assert (1, -3) not in listed  # beyond the occupied (0, -2)
    refused(s, {"type": "clean_house", "from": [-2, 0], "to": [-2, -1]}, "clubhouse")
    # behind the clubhouse
    refused(s, {"type": "clean_house", "from": [-2, 0], "to": [-2, -2]}, "out_of_range")
    refused(s, {"type": "clean_house", "from": [-2, 0], "to": [-1, 0]}, "own_turf")
    refused(s, {"type": "clean_house", "from": [-2, 0], "to": [0, 0]}, "toxic_waste")
    moved = s.with_(ledger=Ledger(moved=((-2, 0),), step=3))
    refused(moved, {"type": "clean_house", "from": [-2, 0], "to": [-1, -1]}, "already_moved")
    changed = s.with_(ledger=Ledger(changed=((-1, -1),)))
    clean = {"type": "clean_house", "from": [-2, 0], "to": [-1, -1]}
    refused(changed, clean, "hex_changed_this_turn")
    poor = s.with_(points=s.points.set(R, 4))
    refused(poor, {"type": "clean_house", "from": [-2, 0], "to": [-1, -1]}, "not_enough_points")
    no_turf = s.with_(supplies=s.supplies.set((R, TOUGH), 0).set((R, WIMPY), 0))
    refused(no_turf, {"type": "clean_house", "from": [-2, 0], "to": [-1, -1]}, "no_supply")
    wimpy_only = s.with_(supplies=s.supplies.set((R, TOUGH), 0))
    assert act(wimpy_only, clean).board[(-1, -1)] == Turf(R, WIMPY)
    refused(s, {"type": "clean_house", "from": [-3, 0], "to": [-3, -1]}, "no_such_pawn")


def test_cleaning_house_through_clubhouse_and_toxic_waste_relays():
    # The big brother on (-3, 2) links to the clubhouse (-3, 0), then the Toxic Waste; from
    # there the empty Brambles hex (1, -1) is on the north-east line.
    s = position(pawns={(-3, 2): (R, BIG_BROTHER)})
    after = act(s, {"type": "clean_house", "from": [-3, 2], "to": [1, -1]})
    assert after.board[(1, -1)] == Turf(R, TOUGH)
    broken = position(turf={R: R_HOME, C: [(-1, 0)]}, pawns={(-3, 2): (R, BIG_BROTHER)})
    refused(broken, {"type": "clean_house", "from": [-3, 2], "to": [1, -1]}, "out_of_range")


def test_big_brother_plain_move_or_cleaning_house_not_both():
    s = position(pawns={(-4, 0): (R, BIG_BROTHER)})
    after = act(s, {"type": "move", "from": [-4, 0], "to": [-4, 1]})
    assert after.points[R] == 15
    refused(after, {"type": "clean_house", "from": [-4, 1], "to": [-5, 1]}, "already_moved")


def test_big_brother_acts_only_in_step_3():
    s = position(step=5, pawns={(-4, 0): (R, BIG_BROTHER)})
    assert legal_actions(s, R) == []


# --- step 4: slingshots ----------------------------------------------------------------------

# The book's slingshot example. Brambles' lid on (2, -2) protects its wheelbarrow on (1, -2).
# Slingshot A on (-1, -2) sees only the wheelbarrow; slingshot B on (-3, 2) reaches the lid
# through the clubhouse (-3, 0) and the Toxic Waste.
BOOK_R = R_HOME + [(-1, -1), (-1, -2)]
BOOK_PAWNS = {
    (-1, -2): (R, SLINGSHOT),
    (-3, 2): (R, SLINGSHOT),
    (1, -2): (B, WHEELBARROW),
    (2, -2): (B, LID),
}


def test_book_slingshot_screened_by_a_wheelbarrow_and_reaching_through_clubhouse_and_toxic_waste():
    s = position(step=4, turf={R: BOOK_R}, pawns=BOOK_PAWNS)
    listed = legal_actions(s, R)
    assert {"type": "shoot", "from": [-1, -2], "at": [1, -2]} in listed
    refused(s, {"type": "shoot", "from": [-1, -2], "at": [2, -2]}, "out_of_range")
    assert {"type": "shoot", "from": [-3, 2], "at": [2, -2]} in listed


def test_book_shooting_the_lid_first_makes_the_wheelbarrow_cost_1_instead_of_2():
    s = position(step=4, turf={R: BOOK_R}, pawns=BOOK_PAWNS)
    assert slingshots.bean_cost(s, (1, -2)) == 2  # 1 x (1 lid + 1)
    assert slingshots.bean_cost(s, (2, -2)) == 2  # a lid does not protect itself
    after_lid = act(s, {"type": "shoot", "from": [-3, 2], "at": [2, -2]})
    assert (2, -2) not in after_lid.pawns and after_lid.points[R] == 18
    after = act(after_lid, {"type": "shoot", "from": [-1, -2], "at": [1, -2]})
    assert after.points[R] == 17 and (1, -2) not in after.pawns


def test_each_slingshot_fires_once_per_turn():
    s = position(step=4, turf={R: BOOK_R}, pawns=BOOK_PAWNS)
    after = act(s, {"type": "shoot", "from": [-1, -2], "at": [1, -2]})
    # the wheelbarrow is gone: the lid behind it is now in the line of fire, but not this turn
    refused(after, {"type": "shoot", "from": [-1, -2], "at": [2, -2]}, "already_fired")
    again = start_turn(after).with_(step=4)
    act(again, {"type": "shoot", "from": [-1, -2], "at": [2, -2]})


def test_shot_refusals():
    s = position(step=4, turf={R: BOOK_R}, pawns={**BOOK_PAWNS, (-2, 0): (R, LID)})
    refused(s, {"type": "shoot", "from": [-3, 2], "at": [-2, 0]}, "own_gang")
    refused(s, {"type": "shoot", "from": [-3, 2], "at": [3, -3]}, "no_target")
    refused(s, {"type": "shoot", "from": [-2, 0], "at": [1, -2]}, "wrong_pawn")
    poor = s.with_(points=s.points.set(R, 1))
    refused(poor, {"type": "shoot", "from": [-1, -2], "at": [1, -2]}, "not_enough_points")


def test_slingshot_flies_over_empty_enemy_turf_and_own_pawns():
    s = position(
        step=4,
        pawns={(-4, 0): (R, SLINGSHOT), (-3, -1): (R, LID), (-1, -3): (B, LID)},
        turf={R: R_HOME + [(-3, -1)]},
    )
    # (-4, 0) -> (-3, -1) own lid -> (-2, -2) empty enemy turf -> (-1, -3) the target
    act(s, {"type": "shoot", "from": [-4, 0], "at": [-1, -3]})


def test_beaned_pawns_leave_and_return_to_the_reserve_next_turn():
    s = position(step=4, turf={R: BOOK_R}, pawns=BOOK_PAWNS)
    after = act(s, {"type": "shoot", "from": [-1, -2], "at": [1, -2]})
    assert (1, -2) not in after.pawns and after.reserve(B, WHEELBARROW) == 3
    assert start_turn(after).reserve(B, WHEELBARROW) == 4


def test_lids_protect_a_big_brother_from_slingshots():
    s = position(step=4, turf={R: BOOK_R}, pawns={**BOOK_PAWNS, (1, -2): (B, BIG_BROTHER)})
    assert slingshots.bean_cost(s, (1, -2)) == 3 * 2


def test_a_beaned_clubhouse_and_everything_that_follows():
    # Brambles' clubhouse on (1, -2) guards nothing (never protected): 8 points.
    pawns = {
        (-1, -2): (R, SLINGSHOT),
        (-3, 2): (R, SLINGSHOT),
        (3, -2): (B, LID),
        (2, -2): (B, WHEELBARROW),
    }
    s = position(step=4, turf={R: BOOK_R}, pawns=pawns, clubhouses={R: R_CLUB, B: (1, -2)})
    assert slingshots.bean_cost(s, (1, -2)) == 8
    assert slingshots.bean_cost(s, (2, -2)) == 2  # the lid protects the wheelbarrow...
    after = act(s, {"type": "shoot", "from": [-1, -2], "at": [1, -2]})
    assert after.clubhouses[B] is None and after.points[R] == 12
    assert after.ledger.destroyed == (B,)
    assert home_turf(after, B) == frozenset()  # its home turf counts 0
    assert slingshots.bean_cost(after, (2, -2)) == 1  # ...and stops protecting
    assert legal_actions(after, B) == []  # the gang does nothing more this turn
    assert legal_actions(at_step(after, 5), B) == []
    # next turn, step 2: it rebuilds on an empty hex of its own colour for 0, and only that
    nxt = at_step(start_turn(after), 2)
    listed = legal_actions(nxt, B)
    assert listed and {m["type"] for m in listed} == {"rebuild"}
    rebuilt = act(nxt, {"type": "rebuild", "to": [1, -2]}, gang=B)
    assert rebuilt.clubhouses[B] == (1, -2) and rebuilt.points[B] == 20
    assert legal_actions(rebuilt, B) == []


# --- step 5: wheelbarrows --------------------------------------------------------------------

W_HOME = [(-5, 0), (-4, 0), (-5, 1), (-5, 2), (-4, 1)]
W_CLUB = (-5, 1)


def wheel(**kwargs):
    kwargs.setdefault("turf", {R: W_HOME})
    kwargs.setdefault("clubhouses", {R: W_CLUB, B: B_CLUB})
    kwargs.setdefault("pawns", {(-4, 0): (R, WHEELBARROW)})
    return position(step=5, **kwargs)


def test_book_wheelbarrow_may_not_take_the_second_hex_before_the_first():
    s = wheel()
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-2, 0]}, "out_of_range")
    first = act(s, {"type": "rip", "from": [-4, 0], "at": [-3, 0]})
    assert first.board[(-3, 0)] == Turf(R, WIMPY)
    second = act(first, {"type": "rip", "from": [-4, 0], "at": [-2, 0]})
    assert second.board[(-2, 0)] == Turf(R, WIMPY)
    refused(second, {"type": "rip", "from": [-4, 0], "at": [-1, 0]}, "no_rips_left")


def test_rip_costs_by_relation_and_strength_and_supplies_move():
    s = wheel(turf={R: W_HOME, C: [(-3, 0)], S: [(-3, -1)]}, tough=[(-4, -1), (-3, -1)])
    cases = {(-3, 0): 2, (-3, -1): 3, (-4, 2): 3, (-4, -1): 5}  # C wimpy, S tough, B wimpy, B tough
    for at, cost in cases.items():
        after = act(s, {"type": "rip", "from": [-4, 0], "at": list(at)})
        old = s.board[at]
        assert after.points[R] == 20 - cost, at
        assert after.board[at] == Turf(R, old.strength)
        assert after.supply(R, old.strength) == SUPPLY - 1
        assert after.supply(old.gang, old.strength) == SUPPLY + 1


def test_an_absent_gangs_or_an_eliminated_sworn_enemys_hex_costs_the_ordinary_price():
    two = position(  # radius 3, range 2; Cesspools are absent
        players=2,
        step=5,
        turf={R: [(-3, 0), (-3, 1), (-2, 1), (-3, 2)], C: [(-2, 0)]},
        clubhouses={R: (-3, 1), B: (3, -3)},
        pawns={(-3, 0): (R, WHEELBARROW)},
    )
    assert two.reach == 2
    assert act(two, {"type": "rip", "from": [-3, 0], "at": [-2, 0]}).points[R] == 18
    assert act(two, {"type": "rip", "from": [-3, 0], "at": [-2, -1]}).points[R] == 17  # sworn
    gone = wheel().with_(eliminated=(B,))
    assert act(gone, {"type": "rip", "from": [-4, 0], "at": [-3, 0]}).points[R] == 18


def test_rip_falls_back_on_the_other_strength_and_needs_a_supply():
    s = wheel(supplies={(R, WIMPY): 0})
    assert act(s, {"type": "rip", "from": [-4, 0], "at": [-3, 0]}).board[(-3, 0)] == Turf(R, TOUGH)
    empty = wheel(supplies={(R, WIMPY): 0, (R, TOUGH): 0})
    refused(empty, {"type": "rip", "from": [-4, 0], "at": [-3, 0]}, "no_supply")


def test_rip_refusals():
    s = wheel(pawns={(-4, 0): (R, WHEELBARROW), (-3, 0): (B, LID), (-5, 1): (R, LID)})
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-3, 0]}, "occupied")
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-2, 0]}, "out_of_range")  # behind a pawn
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-5, 2]}, "own_turf")
    refused(s, {"type": "rip", "from": [-5, 1], "at": [-4, 2]}, "wrong_pawn")
    refused(s, {"type": "rip", "from": [-4, 0], "at": [-1, 0]}, "out_of_range")  # beyond range
    poor = s.with_(points=s.points.set(R, 2))
    refused(poor, {"type": "rip", "from": [-4, 0], "at": [-4, -1]}, "not_enough_points")
    changed = s.with_(ledger=Ledger(changed=((-4, -1),)))
    refused(changed, {"type": "rip", "from": [-4, 0], "at": [-4, -1]}, "hex_changed_this_turn")
    near_toxic = wheel(
        turf={R: W_HOME + [(-3, 0), (-2, 0), (-1, 0)]}, pawns={(-1, 0): (R, WHEELBARROW)}
    )
    refused(near_toxic, {"type": "rip", "from": [-1, 0], "at": [0, 0]}, "toxic_waste")
    # the Toxic Waste is passed: the first other hex beyond it is (1, 0)
    assert {"type": "rip", "from": [-1, 0], "at": [1, 0]} in legal_actions(near_toxic, R)


def test_reinforcing_own_home_turf_costs_2_flat_and_uses_a_rip():
    turf = {R: W_HOME + [(-3, 1)]}
    s = wheel(turf=turf, pawns={(-4, 0): (R, WHEELBARROW), (-4, 2): (R, LID)})
    after = act(s, {"type": "reinforce", "from": [-4, 0], "at": [-5, 0]})
    assert after.board[(-5, 0)] == Turf(R, TOUGH) and after.points[R] == 18
    assert after.supply(R, TOUGH) == SUPPLY - 1 and after.supply(R, WIMPY) == SUPPLY + 1
    refused(after, {"type": "reinforce", "from": [-4, 0], "at": [-5, 0]}, "already_tough")
    twice = act(after, {"type": "reinforce", "from": [-4, 0], "at": [-4, 1]})
    refused(twice, {"type": "reinforce", "from": [-4, 0], "at": [-3, 1]}, "no_rips_left")
    refused(s, {"type": "reinforce", "from": [-4, 0], "at": [-5, 1]}, "occupied")  # the clubhouse
    refused(s, {"type": "reinforce", "from": [-4, 0], "at": [-3, 0]}, "not_home_turf")
    no_tough = s.with_(supplies=s.supplies.set((R, TOUGH), 0))
    refused(no_tough, {"type": "reinforce", "from": [-4, 0], "at": [-5, 0]}, "no_supply")


def test_reinforcing_isolated_own_turf_is_refused():
    s = wheel(turf={R: W_HOME + [(-2, 0)]})
    assert (-2, 0) not in home_turf(s, R)
    refused(s, {"type": "reinforce", "from": [-4, 0], "at": [-2, 0]}, "not_home_turf")


def test_no_hex_changes_twice_in_a_turn():
    s = wheel(pawns={(-4, 0): (R, WHEELBARROW), (-5, 2): (R, WHEELBARROW)})
    after = act(s, {"type": "rip", "from": [-4, 0], "at": [-4, -1]})
    assert after.board[(-4, -1)] == Turf(R, WIMPY)
    # (-4, -1) is now Rubbles' wimpy home turf, but it changed this turn
    refused(after, {"type": "reinforce", "from": [-4, 0], "at": [-4, -1]}, "hex_changed_this_turn")
    assert start_turn(after).ledger == Ledger.empty()


def test_isolated_wheelbarrow_does_nothing():
    s = wheel(turf={R: W_HOME + [(2, 2)]}, pawns={(2, 2): (R, WHEELBARROW)})
    assert legal_actions(s, R) == []
    refused(s, {"type": "rip", "from": [2, 2], "at": [3, 2]}, "isolated")


def test_rip_through_a_relay():
    # The wheelbarrow on (-4, 1) links to the clubhouse (-5, 1); from there (-3, -1) is first
    # on the north-east line after own (-4, 0).
    s = wheel(pawns={(-4, 1): (R, WHEELBARROW)})
    act(s, {"type": "rip", "from": [-4, 1], "at": [-3, -1]})


# --- lids ------------------------------------------------------------------------------------


def test_lids_multiply_rip_costs_x2_to_x5():
    # Brambles' wimpy (-3, 0) is ripped by Rubbles (sworn: 3); lids on (-3, -1), (-2, -1),
    # (-2, 0) and (-3, 1) all cover it.
    lids = [(-3, -1), (-2, -1), (-2, 0), (-3, 1)]
    for n in range(5):
        pawns = {(-4, 0): (R, WHEELBARROW), **{lid: (B, LID) for lid in lids[:n]}}
        s = wheel(pawns=pawns)
        assert protection_of(s, B)[(-3, 0)] == n
        assert wheelbarrows.rip_cost(s, R, (-3, 0)) == 3 * (n + 1)


def test_two_lids_protect_each_other_and_a_lid_never_itself():
    s = position(pawns={(2, 2): (B, LID), (3, 2): (B, LID)})
    covered = protection_of(s, B)
    assert covered[(2, 2)] == 1 and covered[(3, 2)] == 1
    alone = position(pawns={(2, 2): (B, LID)})
    assert protection_of(alone, B)[(2, 2)] == 0


def test_what_a_lid_may_never_protect():
    # a clubhouse
    s = position(pawns={(3, -4): (B, LID)})
    assert protection_of(s, B)[B_CLUB] == 0 and protection_of(s, B)[(3, -3)] == 1
    assert slingshots.bean_cost(s.with_(step=4), B_CLUB) == 8
    # another gang's turf or pawns, nor past them
    mixed = position(turf={R: R_HOME + [(3, 2)]}, pawns={(1, 2): (B, LID), (2, 2): (C, LID)})
    covered = protection_of(mixed, B)
    assert covered[(3, 2)] == 0 and covered[(2, 2)] == 0 and covered[(4, 2)] == 0
    assert covered[(1, 3)] == 1
    # isolated pieces: a lid on an isolated Brambles pair protects nothing, and nothing
    # isolated is protected
    island = position(
        fill=R, turf={R: [], B: [(3, 0), (4, 0), (4, -4), (4, -3)]}, pawns={(3, 0): (B, LID)}
    )
    assert (3, 0) not in home_turf(island, B)
    assert protection_of(island, B)[(4, 0)] == 0
    # nothing while its clubhouse is destroyed
    gone = position(pawns={(2, 2): (B, LID), (3, 2): (B, LID)}, clubhouses={R: R_CLUB, B: None})
    assert protection_of(gone, B) == {}


def test_lid_protection_reaches_through_relays():
    # Rubbles' lid on (-3, 2) links to its clubhouse, then the Toxic Waste, then covers (2, 0).
    s = position(turf={R: R_HOME + [(1, 0), (2, 0)]}, pawns={(-3, 2): (R, LID)})
    covered = protection_of(s, R)
    assert covered[(2, 0)] == 1 and covered[(-1, 0)] == 1
    assert covered[R_CLUB] == 0


def test_the_book_lid_quiz_turf_beyond_other_turf_is_not_protected():
    s = position(turf={R: R_HOME, C: [(2, 1)]}, pawns={(1, 1): (B, LID)})
    covered = protection_of(s, B)
    assert covered[(3, 1)] == 0 and covered[(2, 1)] == 0 and covered[(1, 2)] == 1


# --- the big rip-off -------------------------------------------------------------------------


def rip_off_position(rip_off="whole", pawns=None):
    # Rubbles own everything but: a Brambles-Cesspools pocket (2, 2)+(3, 2), a Brambles pocket
    # with a pawn (-2, 4), and the Brambles' home corner around its clubhouse.
    turf = {B: [(2, 2), (-2, 4), (4, -4), (5, -5), (5, -4)], C: [(3, 2)]}
    return position(
        step=5,
        fill=R,
        turf=turf,
        tough=[(3, 2)],
        pawns={(-2, 4): (B, LID), **(pawns or {})},
        rip_off=rip_off,
    )


def test_big_rip_off_of_an_enclosed_empty_area():
    s = rip_off_position()
    listed = [m for m in legal_actions(s, R) if m["type"] == "big_rip_off"]
    assert listed == [{"type": "big_rip_off", "at": [2, 2]}]  # not the pawn's nor the clubhouse's
    assert apply_action(s, R, {"type": "big_rip_off", "at": [3, 2]}) == act(s, listed[0])
    after = act(s, listed[0])
    assert after.board[(2, 2)] == Turf(R, WIMPY) and after.board[(3, 2)] == Turf(R, TOUGH)
    assert after.points[R] == 20 - 3  # (sworn wimpy 3 + other tough 3) / 2
    assert set(after.ledger.changed) == {(2, 2), (3, 2)}
    refused(s, {"type": "big_rip_off", "at": [-2, 4]}, "not_enclosed")
    refused(s, {"type": "big_rip_off", "at": [0, 3]}, "not_enclosed")


def test_big_rip_off_may_hold_the_toxic_waste_which_stays_unowned():
    s = position(step=5, fill=R, turf={B: [(1, 0), (4, -4), (5, -5)]})
    area = [m for m in legal_actions(s, R) if m["type"] == "big_rip_off"]
    assert area == [{"type": "big_rip_off", "at": [1, 0]}]
    after = act(s, area[0])
    assert after.board[CENTRE] is None and after.board[(1, 0)] == Turf(R, WIMPY)
    assert after.points[R] == 20 - 2  # ceil(3 / 2)


def test_big_rip_off_refusals_and_the_halved_option():
    s = rip_off_position()
    changed = s.with_(ledger=Ledger(changed=((3, 2),)))
    refused(changed, {"type": "big_rip_off", "at": [2, 2]}, "hex_changed_this_turn")
    short = s.with_(supplies=s.supplies.set((R, WIMPY), 0).set((R, TOUGH), 1))
    refused(short, {"type": "big_rip_off", "at": [2, 2]}, "no_supply")
    poor = s.with_(points=s.points.set(R, 2))
    refused(poor, {"type": "big_rip_off", "at": [2, 2]}, "not_enough_points")
    halved = rip_off_position("halved", pawns={(1, 2): (R, WHEELBARROW)})
    refused(halved, {"type": "big_rip_off", "at": [2, 2]}, "no_big_rip_off")
    after = act(halved, {"type": "rip", "from": [1, 2], "at": [2, 2]})
    assert after.points[R] == 20 - 2  # sworn wimpy 3, halved and rounded up
    whole = rip_off_position(pawns={(1, 2): (R, WHEELBARROW)})
    assert act(whole, {"type": "rip", "from": [1, 2], "at": [2, 2]}).points[R] == 20 - 3


# --- legal moves stay complete ---------------------------------------------------------------


def test_every_listed_action_applies_and_points_never_go_negative():
    scenes = [
        position(step=2),
        position(step=3, turf={R: BOOK_R}, pawns={**BOOK_PAWNS, (-4, 0): (R, BIG_BROTHER)}),
        position(step=4, turf={R: BOOK_R}, pawns=BOOK_PAWNS),
        wheel(),
        rip_off_position(),
    ]
    for scene in scenes:
        for points in (0, 1, 3, 5, 20):
            poor = scene.with_(points=scene.points.set(R, points))
            for move in legal_actions(poor, R):
                assert apply_action(poor, R, move).points[R] >= 0
            if points == 0:
                assert all(m["type"] == "rebuild" for m in legal_actions(poor, R))


def candidate_moves(state, gang):
    """Every well-formed action naming hexes of the board (and pieces of the gang)."""
    cells = [list(hex_) for hex_ in state.board]
    own = [list(hex_) for hex_, piece in state.occupants.items() if piece.gang == gang]
    moves = [{"type": "call_out", "kind": k, "to": c} for k in data.PAWN_KINDS for c in cells]
    moves += [{"type": "rebuild", "to": c} for c in cells]
    targeted = (
        ("move", "to"), ("clean_house", "to"), ("shoot", "at"), ("rip", "at"), ("reinforce", "at")
    )
    for kind, key in targeted:
        moves += [{"type": kind, "from": f, key: c} for f in own for c in cells]
    return moves


def accepted(state, gang, move):
    try:
        apply_action(state, gang, move)
    except IllegalMove:
        return False
    return True


@pytest.mark.parametrize("step", [2, 3, 4, 5])
def test_legal_actions_list_exactly_what_apply_accepts(step):
    # a position reached by random play through the whole game (turn 3 or later, this step)
    state, rnd = RULES.setup(4, {"board": "random"}, "complete"), random.Random(step)
    while not (
        state.phase == ACT and state.step == step and state.turn >= 3
        and legal_actions(state, state.acting)
    ):
        seat = RULES.to_act(state)[0]
        moves = RULES.legal_moves(state, seat)
        acts = [m for m in moves if m["type"] != "end_step"]
        move = rnd.choice(acts) if acts and rnd.random() < 0.8 else rnd.choice(moves)
        state = RULES.apply(state, seat, move)
    gang = state.acting
    listed = legal_actions(state, gang)
    for move in candidate_moves(state, gang):
        assert accepted(state, gang, move) == (move in listed), move


def test_ruling_a_slingshot_fires_over_its_own_clubhouse_and_pawns_at_the_first_other_piece():
    """RULINGS ("Slingshots and own pieces"): own pawns and the own clubhouse are passed as empty
    hexes; the first other gang's pawn or clubhouse on a line is that line's only target."""
    from rules.terrain_vague.lines import SHOOT, direct_targets
    from rules.terrain_vague.position import board_of

    # East of the slingshot on (-4, 0): the own clubhouse (-3, 0), then what the case puts on
    # (-2, 0) and (-1, 0). Direct lines only, so no relay through the clubhouse can hide a stop.
    cases = [
        ({(-2, 0): (R, LID), (-1, 0): (B, WHEELBARROW)}, {}, (-1, 0), ()),
        ({(-2, 0): (B, WHEELBARROW), (-1, 0): (C, WHEELBARROW)}, {}, (-2, 0), ((-1, 0),)),
        ({(-1, 0): (C, WHEELBARROW)}, {B: (-2, 0)}, (-2, 0), ((-1, 0),)),
    ]
    for pawns, clubs, target, screened in cases:
        s = position(step=4, pawns={(-4, 0): (R, SLINGSHOT), **pawns},
                     clubhouses={R: R_CLUB, B: B_CLUB, **clubs})
        reached = direct_targets(board_of(s), R, SHOOT, (-4, 0))
        assert target in reached and not set(screened) & reached
        act(s, {"type": "shoot", "from": [-4, 0], "at": list(target)})
