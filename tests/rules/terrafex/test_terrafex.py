"""Terrafex scenarios on hand-built positions: every action and interaction of the book.

Positions are written as {(row, col): code}; a code is a colour letter (g forest, y mountain,
r fire, b glacier) and a size (S, M, L), with "/xS" for what shares the square: "gL/bS" is a large
forest frosted by small frost, "bL/gM" a medium forest capped by a large glacier. The pool is the
supply less what is on the board, unless `pool` sets some counts.
"""

from __future__ import annotations

import pytest

from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.terrafex import RULES
from rules.terrafex.board import full_supply, pool_slot, square_at
from rules.terrafex.state import State

LETTERS = {"g": "green", "y": "yellow", "r": "red", "b": "blue"}
SIZE = {"S": 1, "M": 2, "L": 3}
NAME = {1: "S", 2: "M", 3: "L"}


def cell(code: str) -> tuple:
    main, _, inner = code.partition("/")
    return (LETTERS[main[0]], SIZE[main[1]], SIZE[inner[1]] if inner else 0)


def code_of(c) -> str | None:
    if c is None:
        return None
    colour, size, inner = c
    text = colour[0] + NAME[size]
    if inner:
        text += "/" + ("b" if colour == "green" else "g") + NAME[inner]
    return text


def position(
    pieces, *, mover=0, white=0, done=(), fire=0, pool=None, pit=(0, 0, 0), quiet=0
) -> State:
    board: list = [None] * 56
    supply = full_supply()
    for (row, col), code in pieces.items():
        colour, size, inner = board[square_at(row, col)] = cell(code)
        supply[pool_slot(colour, size)] -= 1
        if inner:
            supply[pool_slot("blue" if colour == "green" else "green", inner)] -= 1
    if fire:
        supply[pool_slot("red", fire)] -= 1
    for size, count in enumerate(pit, start=1):
        supply[pool_slot("red", size)] -= count
    for (colour, size), count in (pool or {}).items():
        supply[pool_slot(colour, SIZE[size])] = count
    return State(
        board=tuple(board), pool=tuple(supply), pit=tuple(pit), white=white, mover=mover,
        done=tuple(done), fire_in_hand=fire, quiet_turns=quiet,
    )


def at(state: State, row: int, col: int) -> str | None:
    return code_of(state.board[square_at(row, col)])


def in_pool(state: State, colour: str, size: str) -> int:
    return state.pool[pool_slot(colour, SIZE[size])]


def in_pit(state: State, size: str) -> int:
    return state.pit[SIZE[size] - 1]


def play(state: State, move: dict, seat: int | None = None) -> State:
    return RULES.apply(state, RULES.to_act(state)[0] if seat is None else seat, move)


def refused(state: State, move: dict, code: str, seat=None, error=IllegalMove) -> None:
    before = RULES.dump(state)
    with pytest.raises(error) as raised:
        play(state, move, seat)
    assert raised.value.code == code, raised.value.message
    assert raised.value.message
    assert RULES.dump(state) == before  # nothing changed


def glacier(frm, direction, place=None) -> dict:
    move = {"type": "glacier", "from": list(frm), "dir": direction}
    if place is not None:
        move["place"] = place
    return move


def spot(row, col, size="S", place=None) -> dict:
    entry = {"to": [row, col], "size": size}
    if place is not None:
        entry["place"] = place
    return entry


# A mountain at (3,2) lets the glacier at (3,3) move east, onto (3,4).
BEHIND = {(3, 2): "yS"}


def east(pieces) -> State:
    return position({**BEHIND, **pieces})


# --- forest --------------------------------------------------------------------------------------


def test_forest_grows_one_size_by_exchange_with_the_pool():
    state = position({(2, 2): "gS", (5, 5): "bS"})
    after = play(state, {"type": "forest", "action": "grow", "at": [2, 2]})
    assert at(after, 2, 2) == "gM"
    assert in_pool(after, "green", "S") == in_pool(state, "green", "S") + 1
    assert in_pool(after, "green", "M") == in_pool(state, "green", "M") - 1
    assert after.done == ("forest",)


def test_forest_grow_refusals():
    state = position({(2, 2): "gL", (2, 4): "gM/bS", (2, 6): "gS", (4, 4): "yS", (5, 5): "bS"},
                     pool={("green", "M"): 0})
    refused(state, {"type": "forest", "action": "grow", "at": [2, 2]}, "already_large")
    refused(state, {"type": "forest", "action": "grow", "at": [2, 4]}, "frosted")
    refused(state, {"type": "forest", "action": "grow", "at": [2, 6]}, "supply_empty")
    refused(state, {"type": "forest", "action": "grow", "at": [4, 4]}, "not_a_forest")
    refused(state, {"type": "forest", "action": "grow", "at": [9, 4]}, "off_board")


def test_forest_spreads_next_to_a_large_forest_frosted_or_not():
    state = position({(2, 2): "gL", (5, 5): "gL/bS", (0, 0): "bS"})
    spreads = {tuple(m["to"]) for m in RULES.legal_moves(state, 0) if m.get("action") == "spread"}
    assert spreads == {(1, 2), (3, 2), (2, 1), (2, 3), (4, 5), (6, 5), (5, 4), (5, 6)}
    after = play(state, {"type": "forest", "action": "spread", "to": [3, 2]})
    assert at(after, 3, 2) == "gS"
    refused(state, {"type": "forest", "action": "spread", "to": [4, 4]}, "not_beside_large")
    refused(state, {"type": "forest", "action": "spread", "to": [2, 2]}, "square_occupied")
    dry = position({(2, 2): "gL", (0, 0): "bS"}, pool={("green", "S"): 0})
    refused(dry, {"type": "forest", "action": "spread", "to": [3, 2]}, "supply_empty")


def test_capped_forest_is_not_a_forest():
    state = position({(2, 2): "bL/gS"})
    refused(state, {"type": "forest", "action": "grow", "at": [2, 2]}, "not_a_forest")
    assert not [m for m in RULES.legal_moves(state, 0) if m["type"] == "forest"]


# --- mountain ------------------------------------------------------------------------------------


def test_mountain_starts_on_any_empty_square_and_grows():
    state = position({(2, 2): "yM", (5, 5): "bS"})
    starts = [m for m in RULES.legal_moves(state, 0) if m.get("action") == "start"]
    assert len(starts) == 54
    after = play(state, {"type": "mountain", "action": "start", "to": [6, 7]})
    assert at(after, 6, 7) == "yS"
    grown = play(state, {"type": "mountain", "action": "grow", "at": [2, 2]})
    assert at(grown, 2, 2) == "yL"
    assert in_pool(grown, "yellow", "M") == in_pool(state, "yellow", "M") + 1
    refused(state, {"type": "mountain", "action": "start", "to": [2, 2]}, "square_occupied")
    refused(state, {"type": "mountain", "action": "grow", "at": [5, 5]}, "not_a_mountain")
    large = position({(2, 2): "yL", (5, 5): "bS"})
    refused(large, {"type": "mountain", "action": "grow", "at": [2, 2]}, "already_large")
    refused(grown, {"type": "mountain", "action": "start", "to": [0, 0]}, "action_taken")


def test_mountain_start_needs_a_small_piece():
    state = position({(5, 5): "bS"}, pool={("yellow", "S"): 0})
    refused(state, {"type": "mountain", "action": "start", "to": [0, 0]}, "supply_empty")
    assert not [m for m in RULES.legal_moves(state, 0) if m["type"] == "mountain"]


# --- fire: the mover chooses, the opponent places ------------------------------------------------


def test_fire_is_taken_by_the_mover_and_placed_by_the_opponent():
    state = position({(2, 2): "gM", (5, 5): "bS"})
    after = play(state, {"type": "fire", "size": "S"})
    assert in_pool(after, "red", "S") == in_pool(state, "red", "S") - 1
    assert RULES.to_act(after) == (1,)
    assert RULES.legal_moves(after, 0) == []
    places = RULES.legal_moves(after, 1)
    assert {"type": "place_fire", "to": [2, 2]} in places  # burn the forest
    assert all(m["type"] == "place_fire" for m in places)
    assert RULES.view(after, 0)["fire_in_hand"] == "S"
    placed = play(after, {"type": "place_fire", "to": [0, 0]}, seat=1)
    assert at(placed, 0, 0) == "rS"
    assert placed.done == ("fire",) and RULES.to_act(placed) == (0,)


def test_while_a_fire_is_in_hand_only_its_placement_may_be_played():
    state = position({(2, 2): "gM", (5, 5): "bS"}, fire=1)
    grow = {"type": "forest", "action": "grow", "at": [2, 2]}
    refused(state, grow, "not_your_turn", seat=0, error=NotYourTurn)
    refused(state, grow, "fire_in_hand", seat=1)
    refused(position({(5, 5): "bS"}), {"type": "place_fire", "to": [0, 0]}, "no_fire_in_hand")


def test_fire_start_needs_a_small_fire_and_grow_is_one_size():
    state = position({(2, 2): "rS", (5, 5): "bS"}, fire=2)
    refused(state, {"type": "place_fire", "to": [0, 0]}, "start_needs_small")
    grown = play(state, {"type": "place_fire", "to": [2, 2]})
    assert at(grown, 2, 2) == "rM" and in_pit(grown, "S") == 1
    large = position({(2, 2): "rS", (5, 5): "bS"}, fire=3)
    refused(large, {"type": "place_fire", "to": [2, 2]}, "grow_one_size")


def test_fire_spread_next_to_a_large_fire_is_a_start_there():
    state = position({(2, 2): "rL", (5, 5): "bS"}, fire=1)
    after = play(state, {"type": "place_fire", "to": [2, 3]})
    assert at(after, 2, 3) == "rS" and at(after, 2, 2) == "rL"


def test_fire_may_not_go_on_mountains_glaciers_or_capped_forests():
    state = position({(2, 2): "yS", (5, 5): "bS", (4, 4): "bL/gS"}, fire=1)
    for square in ([2, 2], [5, 5], [4, 4]):
        refused(state, {"type": "place_fire", "to": square}, "fire_cannot_go_there")


BURN_2_2 = {"type": "place_fire", "to": [2, 2]}


def test_burn_equal_sizes_removes_both():
    after = play(position({(2, 2): "gM", (5, 5): "bS"}, fire=2), BURN_2_2)
    assert at(after, 2, 2) is None
    assert in_pit(after, "M") == 1 and in_pool(after, "green", "M") == 5


def test_burn_smaller_fire_shrinks_the_forest():
    state = position({(2, 2): "gL", (5, 5): "bS"}, fire=1)
    after = play(state, {"type": "place_fire", "to": [2, 2]})
    assert at(after, 2, 2) == "gM"
    assert in_pit(after, "S") == 1
    assert in_pool(after, "green", "L") == in_pool(state, "green", "L") + 1
    assert in_pool(after, "green", "M") == in_pool(state, "green", "M") - 1


def test_burn_larger_fire_is_shrunk_onto_the_square():
    state = position({(2, 2): "gS", (5, 5): "bS"}, fire=3)
    after = play(state, {"type": "place_fire", "to": [2, 2]})
    assert at(after, 2, 2) == "rM"
    assert in_pit(after, "L") == 1 and in_pool(after, "red", "M") == in_pool(state, "red", "M") - 1


def test_burn_result_comes_from_the_fire_pit_when_the_pool_has_none():
    state = position({(2, 2): "gS", (5, 5): "bS"}, fire=3, pit=(0, 1, 0), pool={("red", "M"): 0})
    after = play(state, {"type": "place_fire", "to": [2, 2]})
    assert at(after, 2, 2) == "rM"
    assert after.pit == (0, 0, 1)


def test_burn_with_no_result_piece_in_pool_or_pit_is_illegal():
    state = position({(2, 2): "gS", (5, 5): "bS"}, fire=3, pool={("red", "M"): 0})
    refused(state, {"type": "place_fire", "to": [2, 2]}, "supply_empty")


def test_burn_shrinking_a_forest_needs_the_smaller_forest_in_the_pool():
    state = position({(2, 2): "gL", (5, 5): "bS"}, fire=1, pool={("green", "M"): 0})
    refused(state, {"type": "place_fire", "to": [2, 2]}, "supply_empty")


def test_fire_to_frosted_forest_burns_only_the_frost():
    smaller = play(position({(2, 2): "gL/bM", (5, 5): "bS"}, fire=1), BURN_2_2)
    assert at(smaller, 2, 2) == "gL/bS" and in_pit(smaller, "S") == 1
    equal = play(position({(2, 2): "gS/bS", (5, 5): "bS"}, fire=1), BURN_2_2)
    assert at(equal, 2, 2) == "gS"
    state = position({(2, 2): "gS/bS", (5, 5): "bS"}, fire=3)
    larger = play(state, {"type": "place_fire", "to": [2, 2]})
    assert at(larger, 2, 2) == "gS"  # the forest is not touched, whatever the fire's size
    assert in_pit(larger, "L") == 1
    assert in_pool(larger, "blue", "S") == in_pool(state, "blue", "S") + 1


def test_only_a_fire_that_can_be_placed_may_be_taken():
    state = position({(2, 2): "yS", (5, 5): "bS"})
    sizes = [m["size"] for m in RULES.legal_moves(state, 0) if m["type"] == "fire"]
    assert sizes == ["S"]  # a medium or large fire has no forest, frost or fire to go on
    refused(state, {"type": "fire", "size": "L"}, "fire_has_no_place")


def test_no_red_piece_in_the_pool_means_no_fire_action():
    no_red = {("red", "S"): 0, ("red", "M"): 0, ("red", "L"): 0}
    state = position({(2, 2): "gL", (5, 5): "bS"}, pool=no_red)
    assert not [m for m in RULES.legal_moves(state, 0) if m["type"] == "fire"]
    refused(state, {"type": "fire", "size": "S"}, "supply_empty")


# --- glacier moves -------------------------------------------------------------------------------


def test_glacier_moves_only_away_from_a_mountain_glacier_capped_forest_or_the_edge():
    alone = position({(3, 3): "bM"})
    refused(alone, glacier((3, 3), "E"), "not_moving_away")
    assert not [m for m in RULES.legal_moves(alone, 0) if m["type"] == "glacier"]
    for behind in ("yS", "bS", "bL/gS"):
        moved = play(position({(3, 2): behind, (3, 3): "bM"}), glacier((3, 3), "E"))
        assert at(moved, 3, 4) == "bM" and at(moved, 3, 3) is None
    frost = position({(3, 2): "gL/bS", (3, 3): "bM"})
    refused(frost, glacier((3, 3), "E"), "not_moving_away")
    edge = position({(3, 0): "bM"})
    assert at(play(edge, glacier((3, 0), "E")), 3, 1) == "bM"
    refused(edge, glacier((3, 0), "W"), "off_board")
    refused(edge, glacier((4, 4), "N"), "not_a_glacier")


def test_glacier_move_shape_errors_are_malformed():
    state = position({(3, 0): "bM"})
    refused(state, {"type": "glacier", "from": [3, 0]}, "missing_field", error=MalformedMove)
    up = {"type": "glacier", "from": [3, 0], "dir": "up"}
    refused(state, up, "bad_direction", error=MalformedMove)
    text = {"type": "glacier", "from": "3,0", "dir": "E"}
    refused(state, text, "bad_square", error=MalformedMove)
    refused(state, glacier((3, 0), "E", place="x"), "bad_placements", error=MalformedMove)
    refused(state, {"type": "pass"}, "unknown_move_type", error=MalformedMove)


def test_glacier_to_glacier_merges():
    state = east({(3, 3): "bS", (3, 4): "bM"})
    after = play(state, glacier((3, 3), "E"))
    assert at(after, 3, 4) == "bL" and at(after, 3, 3) is None
    assert in_pool(after, "blue", "L") == in_pool(state, "blue", "L") - 1


def test_merge_over_three_gives_a_large():
    state = east({(3, 3): "bL", (3, 4): "bM"})
    after = play(state, glacier((3, 3), "E"))
    assert at(after, 3, 4) == "bL"
    assert in_pool(after, "blue", "M") == in_pool(state, "blue", "M") + 1
    assert in_pool(after, "blue", "L") == in_pool(state, "blue", "L")  # back first, then taken


def test_merge_needs_the_merged_piece_in_the_pool():
    state = position({**BEHIND, (3, 3): "bS", (3, 4): "bS"}, pool={("blue", "M"): 0})
    refused(state, glacier((3, 3), "E"), "supply_empty")


def test_glacier_to_capped_forest_and_back_merge_with_the_forest_under():
    onto = play(east({(3, 3): "bS", (3, 4): "bM/gS"}), glacier((3, 3), "E"))
    assert at(onto, 3, 4) == "bL/gS"
    capped_moves = play(east({(3, 3): "bM/gS", (3, 4): "bS"}), glacier((3, 3), "E"))
    assert at(capped_moves, 3, 4) == "bL/gS" and at(capped_moves, 3, 3) is None


def test_capped_to_capped_keeps_a_single_medium_forest():
    state = east({(3, 3): "bL/gS", (3, 4): "bM/gS"})
    after = play(state, glacier((3, 3), "E"))
    assert at(after, 3, 4) == "bL/gM"
    assert in_pool(after, "green", "S") == in_pool(state, "green", "S") + 2
    assert in_pool(after, "green", "M") == in_pool(state, "green", "M") - 1


def test_capped_to_capped_without_a_medium_forest_is_illegal():
    state = position({**BEHIND, (3, 3): "bL/gS", (3, 4): "bM/gS"}, pool={("green", "M"): 0})
    refused(state, glacier((3, 3), "E"), "supply_empty")
    # A medium forest under one of the glaciers is available: it goes back first.
    under = position({**BEHIND, (3, 3): "bL/gM", (3, 4): "bM/gS"}, pool={("green", "M"): 0})
    assert at(play(under, glacier((3, 3), "E")), 3, 4) == "bL/gM"


def test_glacier_pushes_a_small_mountain_two_squares_beyond():
    state = east({(3, 3): "bM", (3, 4): "yS", (3, 5): "gS"})
    after = play(state, glacier((3, 3), "E"))
    assert (at(after, 3, 4), at(after, 3, 5), at(after, 3, 6)) == ("bM", "gS", "yS")
    refused(east({(3, 3): "bM", (3, 4): "yS", (3, 6): "gS"}), glacier((3, 3), "E"), "push_blocked")
    edge = position({(3, 4): "yS", (3, 5): "bM", (3, 6): "yS"})
    refused(edge, glacier((3, 5), "E"), "push_blocked")  # two beyond is off the board


def test_capped_forest_pushes_a_small_mountain_and_keeps_its_forest():
    after = play(east({(3, 3): "bL/gM", (3, 4): "yS"}), glacier((3, 3), "E"))
    assert at(after, 3, 4) == "bL/gM" and at(after, 3, 6) == "yS"


def test_medium_mountain_shrinks_and_a_small_glacier_is_played_beside_it():
    state = east({(3, 3): "bS", (3, 4): "yM"})
    moves = [m for m in RULES.legal_moves(state, 0) if m["type"] == "glacier" and m["dir"] == "E"]
    assert sorted(m["place"][0]["to"] for m in moves) == [[2, 4], [3, 3], [4, 4]]  # not [3, 5]
    after = play(state, glacier((3, 3), "E", [spot(2, 4)]))
    assert at(after, 3, 4) == "yS" and at(after, 2, 4) == "bS" and at(after, 3, 3) is None
    assert in_pool(after, "yellow", "M") == in_pool(state, "yellow", "M") + 1


def test_medium_mountain_splits_a_medium_glacier_in_two_smalls():
    state = east({(3, 3): "bM", (3, 4): "yM"})
    after = play(state, glacier((3, 3), "E", [spot(2, 4), spot(4, 4)]))
    assert (at(after, 2, 4), at(after, 4, 4), at(after, 3, 4)) == ("bS", "bS", "yS")
    assert in_pool(after, "blue", "S") == in_pool(state, "blue", "S") - 2
    moves = [m for m in RULES.legal_moves(state, 0) if m["type"] == "glacier" and m["dir"] == "E"]
    assert len(moves) == 3  # two of the three squares


def test_medium_mountain_splits_a_large_glacier_into_small_and_medium():
    state = east({(3, 3): "bL", (3, 4): "yM"})
    after = play(state, glacier((3, 3), "E", [spot(3, 3, "M"), spot(4, 4, "S")]))
    assert (at(after, 3, 3), at(after, 4, 4), at(after, 3, 4)) == ("bM", "bS", "yS")
    moves = [m for m in RULES.legal_moves(state, 0) if m["type"] == "glacier" and m["dir"] == "E"]
    assert len(moves) == 6


def test_large_mountain_splits_a_glacier_into_as_many_smalls_as_its_size():
    state = east({(3, 3): "bL", (3, 4): "yL"})
    after = play(state, glacier((3, 3), "E", [spot(2, 4), spot(3, 3), spot(4, 4)]))
    around = (at(after, 2, 4), at(after, 3, 3), at(after, 4, 4))
    assert around == ("bS", "bS", "bS") and at(after, 3, 4) == "yM"
    assert in_pool(after, "blue", "S") == in_pool(state, "blue", "S") - 3
    two = glacier((3, 3), "E", [spot(2, 4), spot(4, 4)])
    medium = play(east({(3, 3): "bM", (3, 4): "yL"}), two)
    assert (at(medium, 2, 4), at(medium, 4, 4)) == ("bS", "bS")


def test_split_needs_room_and_pieces():
    corner = position({(0, 0): "yL", (0, 1): "bL", (0, 2): "yS"})
    refused(corner, glacier((0, 1), "W", [spot(1, 0), spot(0, 1), spot(0, 1)]), "no_room_to_split")
    no_smalls = position({**BEHIND, (3, 3): "bL", (3, 4): "yL"}, pool={("blue", "S"): 2})
    refused(no_smalls, glacier((3, 3), "E", [spot(2, 4), spot(3, 3), spot(4, 4)]), "supply_empty")
    no_yellow = position({**BEHIND, (3, 3): "bL", (3, 4): "yL"}, pool={("yellow", "M"): 0})
    refused(no_yellow, glacier((3, 3), "E", [spot(2, 4), spot(3, 3), spot(4, 4)]), "supply_empty")


def test_split_placement_refusals():
    state = east({(3, 3): "bM", (3, 4): "yM"})
    refused(state, glacier((3, 3), "E"), "placements_needed")
    refused(state, glacier((3, 3), "E", [spot(2, 4, "M")]), "wrong_split_sizes")
    refused(state, glacier((3, 3), "E", [spot(2, 4), spot(2, 4)]), "square_used_twice")
    refused(state, glacier((3, 3), "E", [spot(2, 4), spot(3, 5)]), "not_beside_mountain")
    refused(east({(3, 3): "bM"}), glacier((3, 3), "E", [spot(2, 4)]), "placements_not_wanted")


def test_capped_forest_returns_where_its_glacier_was_when_it_splits():
    state = east({(3, 3): "bM/gS", (3, 4): "yM"})
    after = play(state, glacier((3, 3), "E", [spot(2, 4), spot(4, 4)]))
    assert (at(after, 3, 3), at(after, 2, 4), at(after, 4, 4)) == ("gS", "bS", "bS")
    # A piece of the split may land on the returned forest: it shrinks away under the glacier.
    onto = play(state, glacier((3, 3), "E", [spot(2, 4), spot(3, 3)]))
    assert at(onto, 3, 3) == "bS"


def test_a_split_glacier_landing_on_a_piece_acts_as_if_moved_there():
    state = east({(3, 3): "bM", (3, 4): "yM", (2, 4): "rS", (4, 4): "gM"})
    after = play(state, glacier((3, 3), "E", [spot(2, 4), spot(4, 4)]))
    assert at(after, 2, 4) is None  # met the fire: both melted
    assert at(after, 4, 4) == "gS/bS"  # shrank the forest and frosted it
    assert after.melted


def test_a_split_glacier_landing_on_another_mountain_splits_again():
    state = east({(3, 3): "bS", (3, 4): "yL", (2, 4): "yM"})
    nested = [spot(2, 4, "S", [spot(2, 3)])]
    after = play(state, glacier((3, 3), "E", nested))
    assert (at(after, 3, 4), at(after, 2, 4), at(after, 2, 3)) == ("yM", "yS", "bS")
    assert glacier((3, 3), "E", nested) in RULES.legal_moves(state, 0)
    refused(state, glacier((3, 3), "E", [spot(2, 4)]), "placements_needed")
    # A split glacier landing on a small mountain pushes it on, away from the first mountain.
    push = glacier((3, 3), "E", [spot(4, 4)])
    pushed = play(east({(3, 3): "bS", (3, 4): "yL", (4, 4): "yS"}), push)
    assert at(pushed, 4, 4) == "bS" and at(pushed, 6, 4) == "yS"


def test_glacier_to_fire_melts_both_when_equal():
    state = east({(3, 3): "bM", (3, 4): "rM", (0, 0): "bS"})
    after = play(state, glacier((3, 3), "E"))
    assert at(after, 3, 4) is None and in_pit(after, "M") == 1
    assert in_pool(after, "blue", "M") == in_pool(state, "blue", "M") + 1
    assert after.melted


def test_glacier_to_smaller_fire_shrinks_the_glacier():
    after = play(east({(3, 3): "bL", (3, 4): "rS"}), glacier((3, 3), "E"))
    assert at(after, 3, 4) == "bM" and in_pit(after, "S") == 1


def test_glacier_to_larger_fire_shrinks_the_fire_from_the_pool_only():
    after = play(east({(3, 3): "bS", (3, 4): "rL", (0, 0): "bS"}), glacier((3, 3), "E"))
    assert at(after, 3, 4) == "rM" and in_pit(after, "L") == 1
    pieces = {**BEHIND, (3, 3): "bS", (3, 4): "rL", (0, 0): "bS"}
    dry = position(pieces, pit=(0, 1, 0), pool={("red", "M"): 0})
    refused(dry, glacier((3, 3), "E"), "supply_empty")


def test_a_melting_capping_glacier_returns_its_forest_where_it_was():
    after = play(east({(3, 3): "bL/gM", (3, 4): "rS"}), glacier((3, 3), "E"))
    assert at(after, 3, 3) == "gM" and at(after, 3, 4) == "bM"
    gone = play(east({(3, 3): "bM/gS", (3, 4): "rM", (0, 0): "bS"}), glacier((3, 3), "E"))
    assert at(gone, 3, 3) == "gS" and at(gone, 3, 4) is None


def test_glacier_to_forest_shrinks_it_and_caps_or_frosts_it():
    cases = {
        ("bS", "gM"): "gS/bS", ("bL", "gM"): "bL/gS", ("bS", "gL"): "gM/bS", ("bM", "gS"): "bM",
    }
    for (ice, trees), result in cases.items():
        state = east({(3, 3): ice, (3, 4): trees})
        after = play(state, glacier((3, 3), "E"))
        assert at(after, 3, 4) == result, (ice, trees)
    small = play(east({(3, 3): "bM", (3, 4): "gS"}), glacier((3, 3), "E"))
    assert in_pool(small, "green", "S") == 5  # the small forest went back to the pool


def test_glacier_to_forest_needs_the_smaller_forest():
    state = position({**BEHIND, (3, 3): "bS", (3, 4): "gL"}, pool={("green", "M"): 0})
    refused(state, glacier((3, 3), "E"), "supply_empty")


def test_glacier_to_frosted_forest_merges_with_the_frost():
    frosted = play(east({(3, 3): "bS", (3, 4): "gL/bS"}), glacier((3, 3), "E"))
    assert at(frosted, 3, 4) == "gL/bM"
    capped = play(east({(3, 3): "bL", (3, 4): "gM/bS"}), glacier((3, 3), "E"))
    assert at(capped, 3, 4) == "bL/gM"  # 3 + 1 gives a large, bigger than the forest


def test_capped_forest_onto_a_forest_leaves_its_own_forest_behind():
    after = play(east({(3, 3): "bL/gS", (3, 4): "gM"}), glacier((3, 3), "E"))
    assert at(after, 3, 3) == "gS" and at(after, 3, 4) == "bL/gS"


def test_supplies_are_conserved_through_every_interaction_of_random_games():
    import random

    for n in range(3):
        state = RULES.setup(2, {"layout": 1 + n % 2}, f"conserve-{n}")
        rnd = random.Random(n)
        while RULES.outcome(state) is None:
            seat = RULES.to_act(state)[0]
            state = RULES.apply(state, seat, rnd.choice(RULES.legal_moves(state, seat)))
            assert _counts(state) == full_supply()


def _counts(state: State) -> list[int]:
    counts = list(state.pool)
    for colour, size, inner in filter(None, state.board):
        counts[pool_slot(colour, size)] += 1
        if inner:
            counts[pool_slot("blue" if colour == "green" else "green", inner)] += 1
    for size in (1, 2, 3):
        counts[pool_slot("red", size)] += state.pit[size - 1]
    if state.fire_in_hand:
        counts[pool_slot("red", state.fire_in_hand)] += 1
    return counts


def test_ruling_a_capped_forest_onto_a_frosted_forest_leaves_its_forest_and_merges_the_frost():
    """RULINGS (Terrafex): the capped forest's own forest stays behind, uncapped; the glacier then
    merges with the target's frost as any glacier would (3 + 1 gives a large, above the forest)."""
    state = east({(3, 3): "bL/gS", (3, 4): "gM/bS"})
    after = play(state, glacier((3, 3), "E"))
    assert at(after, 3, 3) == "gS" and at(after, 3, 4) == "bL/gM"
    assert in_pool(after, "blue", "S") == in_pool(state, "blue", "S") + 1  # the frost merged away


def test_ruling_a_fire_as_big_as_the_frost_removes_it_and_is_spent_whole():
    """RULINGS (Terrafex): a fire equal to the frost or bigger sends the frost to the pool and the
    whole fire to the pit, and leaves the forest as it was."""
    for fire, frost in ((2, "M"), (3, "M"), (1, "S")):
        state = position({(2, 2): f"gL/b{frost}", (5, 5): "bS"}, fire=fire)
        after = play(state, BURN_2_2)
        assert at(after, 2, 2) == "gL"
        assert in_pool(after, "blue", frost) == in_pool(state, "blue", frost) + 1
        size = "SML"[fire - 1]
        assert in_pit(after, size) == in_pit(state, size) + 1
