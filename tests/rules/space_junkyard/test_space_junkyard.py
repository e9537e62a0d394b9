"""Scenario tests for Space Junkyard (`rules/space_junkyard`), on hand-built positions."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from rules.errors import IllegalMove, InvalidOptions, MalformedMove, NotYourTurn
from rules.space_junkyard import RULES as G
from rules.space_junkyard.data import ALL_TILES, ASTEROIDS, BRIDGE_ID, SHIP_PARTS, Section
from rules.space_junkyard.ship import ROTATIONS, Part, score
from rules.space_junkyard.state import (
    JUNK_PHASE,
    MOVE_PHASE,
    OVER,
    RESOURCES_PHASE,
    Ship,
    Turn,
    face,
)

# --- building positions ------------------------------------------------------------------------


def bag(letters: str) -> tuple[int, int, int]:
    return tuple(letters.count(c) for c in "YBR")


def ship(at=(0, 0), parts=(), stores="", off=None, added=0):
    """A ship with the bridge at [0, 0] and `parts` as (x, y, tile, rotation)."""
    built = [Part(0, 0, BRIDGE_ID, 0, 0)] + [Part(x, y, t, r, added) for x, y, t, r in parts]
    return Ship(at=at, off_side=off, parts=tuple(built), stores=bag(stores))


def position(players=2, options=None, tiles=None, ships=None, phase=MOVE_PHASE, seat=0, **turn):
    """A position on an otherwise empty map; the turn is number 5, so parts added at 0 work."""
    state = G.setup(players, options or {}, "scenario")
    cells = [None] * (state.size * state.size)
    for (x, y), tile in (tiles or {}).items():
        cells[y * state.size + x] = tile
    default_ships = [ship(at=(0, 0)), ship(at=(5, 5)), ship(at=(5, 0)), ship(at=(0, 5))]
    chosen = tuple(ships or default_ships[:players])
    if phase == MOVE_PHASE:
        turn.setdefault("steps", 3)
    state = replace(state, cells=tuple(cells), ships=chosen, turn=Turn(seat, 5, phase, **turn))
    return replace(state, stack=("A01", "A02", "A03"))


OTHER = ship(at=(5, 5))  # seat 1's ship, out of the way
END_RESOURCES = {"type": "end_resources"}
END_MOVE = {"type": "end_move"}
LESS = {"less_empty_space": True}


def push(entry):
    return {"type": "push", "entry": entry}


def refused(state, move, code, seat=None):
    with pytest.raises(IllegalMove) as error:
        G.apply(state, state.turn.seat if seat is None else seat, move)
    assert error.value.code == code, error.value.message
    return error.value


def play(state, *moves):
    for move in moves:
        assert move in G.legal_moves(state, state.turn.seat), move
        state = G.apply(state, state.turn.seat, move)
    return state


def mine(state):
    return state.ships[state.turn.seat]


# --- setup and options -------------------------------------------------------------------------


def placed(state, *corners):
    """The state after each seat in turn places its ship on the given corners."""
    for corner in corners:
        state = play(state, {"type": "place", "corner": corner})
    return state


def test_setup_lays_a_6x6_map_and_seats_place_ships_on_free_corners():
    state = G.setup(3, {}, "s1")
    assert state.size == 6 and len(state.cells) == 36 and all(state.cells)
    assert len(state.stack) == 76 - 36 and not state.removed
    assert sorted((*state.cells, *state.stack)) == sorted(ALL_TILES)
    assert G.setup(3, {}, "s2").cells != state.cells  # chance comes from the seed
    assert G.to_act(state) == (0,) and len(G.legal_moves(state, 0)) == 4
    state = placed(state, "SE")
    assert G.to_act(state) == (1,)
    assert {"type": "place", "corner": "SE"} not in G.legal_moves(state, 1)
    refused(state, {"type": "place", "corner": "SE"}, "corner_taken")
    with pytest.raises(MalformedMove) as error:
        G.apply(state, 1, {"type": "place", "corner": "middle"})
    assert error.value.code == "bad_corner"
    state = placed(state, "NE", "NW")
    assert [s.at for s in state.ships] == [(5, 5), (5, 0), (0, 0)]
    assert state.turn == Turn(0, 1, RESOURCES_PHASE)
    assert G.timeout_move(G.setup(2, {}, "s"), 0) == {"type": "place", "corner": "NW"}


def test_options_are_combinable_and_small_map_needs_three_players():
    every = {"short": True, "small_map": True, "more_junk": True, "less_empty_space": True}
    state = placed(G.setup(3, every, "s"), "NW", "NE", "SE")
    assert state.size == 5 and len(state.removed) == 16 and len(state.stack) == 76 - 16 - 25
    assert [s.at for s in state.ships] == [(0, 0), (4, 0), (4, 4)]
    assert len(G.setup(2, {"short": True}, "s").stack) == 24
    with pytest.raises(InvalidOptions) as error:
        G.setup(2, {"small_map": True}, "s")
    assert error.value.option == "small_map"


# --- hidden information ------------------------------------------------------------------------


def test_the_view_carries_the_printed_face_of_every_tile_in_sight_and_no_other():
    state = placed(G.setup(2, {}, "faces"), "NW", "SE")
    seen = G.view(state, 0)
    in_sight = {tile for row in seen["map"] for tile in row if tile} | {BRIDGE_ID}
    assert set(seen["faces"]) == in_sight
    asteroid = next(tile for tile in in_sight if tile.startswith("A"))
    assert seen["faces"][asteroid] == {"kind": "asteroid", "resources": ASTEROIDS[asteroid]}
    section = next(tile for tile in in_sight if tile.startswith("S"))
    printed = SHIP_PARTS[section]
    assert seen["faces"][section]["edges"] == list(printed.edges)
    assert (seen["faces"][section]["store"], seen["faces"][section]["points"]) == (printed.store, printed.points)
    assert face("S31") == {
        "kind": "section", "produce": "", "store": "BB", "convert": ["Y", "B"], "recycle": "YYB",
        "points": 1, "edges": [None, "R", "Y", "B"],
    }  # fmt: skip
    assert seen["faces"][BRIDGE_ID]["kind"] == "bridge"
    assert seen["faces"][BRIDGE_ID]["edges"] == list(SHIP_PARTS[BRIDGE_ID].edges)


def test_no_view_or_error_shows_the_stack_or_the_removed_tiles():
    state = placed(G.setup(2, {"short": True}, "secret-seed"), "NW", "SE")
    state = play(state, END_RESOURCES, END_MOVE)
    hidden = set(state.stack) | set(state.removed)
    for seat in (None, 0, 1):
        seen = G.view(state, seat)
        text = json.dumps(seen)
        assert seen["stack_size"] == len(state.stack) and seen["drawn"] == state.drawn
        assert not any(f'"{tile}"' in text for tile in hidden)
        assert not any(tile in G.render_text(state, seat) for tile in hidden)
    for bad in ({"type": "push", "entry": "N9"}, {"type": "step", "dir": "N"}, {"type": "push"}):
        with pytest.raises((IllegalMove, MalformedMove)) as error:
            G.apply(state, 0, bad)
        assert not any(tile in error.value.message for tile in hidden)


def test_sample_state_reshuffles_only_the_unseen_tiles():
    state = placed(G.setup(3, {"short": True}, "s"), "NW", "NE", "SE")
    state = play(state, END_RESOURCES, END_MOVE)
    seen = G.view(state, 1)
    samples = [G.sample_state(seen, 1, random.Random(n)) for n in range(3)]
    for sample in samples:
        assert G.view(sample, 1) == seen
        assert sorted(sample.stack + sample.removed) == sorted(state.stack + state.removed)
        assert sample.rng.seed != state.rng.seed
    assert len({sample.stack for sample in samples}) > 1


# --- resources ---------------------------------------------------------------------------------


def test_production_with_either_or_choice_then_auto_production_at_the_end():
    state = position(phase=RESOURCES_PHASE, ships=[ship(parts=[(0, -1, "S10", 0)]), OTHER])
    moves = G.legal_moves(state, 0)
    assert {"type": "produce", "at": [0, -1], "choice": "B"} in moves
    assert {"type": "produce", "at": [0, -1], "choice": "R"} not in moves
    refused(state, {"type": "produce", "at": [0, -1], "choice": "R"}, "wrong_resource")
    refused(state, {"type": "produce", "at": [3, 3], "choice": "Y"}, "no_section_there")
    after = play(state, {"type": "produce", "at": [0, -1], "choice": "B"})
    assert mine(after).stores == bag("B")
    refused(after, {"type": "produce", "at": [0, -1], "choice": "B"}, "already_produced")
    after = play(after, {"type": "end_resources"})  # the bridge produces its Y now
    assert mine(after).stores == bag("YB") and after.turn.phase == MOVE_PHASE
    # left unchosen, an either-or producer gives the colour with the most free room: the bridge
    # fills Y to 2 of 2 first, so S10 gives B
    auto = play(replace(state, ships=(ship(parts=[(0, -1, "S10", 0)], stores="Y"), state.ships[1])),
                {"type": "end_resources"})
    assert mine(auto).stores == bag("YYB")


def test_overflow_is_discarded_and_conversions_repeat_while_storage_allows():
    parts = [(0, -1, "S25", 0)]  # converts Y into B
    state = position(phase=RESOURCES_PHASE, ships=[ship(parts=parts, stores="YYB"), OTHER])
    full = play(state, {"type": "produce", "at": [0, 0], "choice": "Y"})
    assert mine(full).stores == bag("YYB")  # the third Y had no room
    after = play(state, {"type": "convert", "at": [0, -1]})
    assert mine(after).stores == bag("YBB")
    assert {"type": "convert", "at": [0, -1]} not in G.legal_moves(after, 0)
    refused(after, {"type": "convert", "at": [0, -1]}, "no_room")
    refused(after, {"type": "convert", "at": [0, 0]}, "no_conversion")
    empty = position(phase=RESOURCES_PHASE, ships=[ship(parts=parts), OTHER])
    refused(empty, {"type": "convert", "at": [0, -1]}, "not_enough_resources")
    # produced first, the Y is kept once the conversion made room
    after = play(after, {"type": "produce", "at": [0, 0], "choice": "Y"})
    assert mine(after).stores == bag("YYBB")


def test_storage_is_summed_per_colour_and_new_sections_work_from_next_turn():
    parts = [(0, -1, "S22", 0)]  # stores YYBB
    fresh = ship(parts=parts, stores="YY", added=5)
    state = position(phase=RESOURCES_PHASE, ships=[fresh, OTHER])
    assert G.view(state, 0)["ships"][0]["capacity"] == [2, 2, 2]
    assert mine(play(state, {"type": "end_resources"})).stores == bag("YY")
    working = replace(state, ships=(ship(parts=parts, stores="YY", added=4), state.ships[1]))
    assert G.view(working, 0)["ships"][0]["capacity"] == [4, 4, 2]
    assert mine(play(working, {"type": "end_resources"})).stores == bag("YYY")
    fresh = ship(parts=[(0, -1, "S25", 0)], stores="Y", added=5)
    converter = position(phase=RESOURCES_PHASE, ships=[fresh, OTHER])
    refused(converter, {"type": "convert", "at": [0, -1]}, "not_working_yet")


# --- movement ----------------------------------------------------------------------------------


def test_three_free_steps_then_three_more_for_one_radioactive():
    state = position(ships=[ship(at=(0, 0), stores="Y"), OTHER])
    state = play(state, *[{"type": "step", "dir": d} for d in "ESE"])
    assert mine(state).at == (2, 1) and state.turn.steps == 0
    refused(state, {"type": "step", "dir": "S"}, "no_steps_left")
    state = play(state, {"type": "buy_steps"})
    assert mine(state).stores == bag("") and state.turn.steps == 3
    refused(state, {"type": "buy_steps"}, "already_bought")
    state = play(state, *[{"type": "step", "dir": d} for d in "SSS"])
    assert mine(state).at == (2, 4)
    poor = position()
    assert {"type": "buy_steps"} not in G.legal_moves(poor, 0)
    refused(poor, {"type": "buy_steps"}, "not_enough_resources")


def test_radioactive_collected_during_the_move_buys_steps():
    state = position(tiles={(1, 0): "A01"})
    state = play(state, {"type": "step", "dir": "E"}, {"type": "retrieve"}, {"type": "buy_steps"})
    assert state.turn.steps == 5


def test_no_ship_moves_onto_or_through_another_ship_nor_off_the_map():
    state = position(ships=[ship(at=(0, 0)), ship(at=(1, 0))])
    steps = [m["dir"] for m in G.legal_moves(state, 0) if m["type"] == "step"]
    assert steps == ["S"]
    refused(state, {"type": "step", "dir": "E"}, "cell_taken")
    refused(state, {"type": "step", "dir": "N"}, "off_map")
    with pytest.raises(MalformedMove) as error:
        G.apply(state, 0, {"type": "step", "dir": "NE"})
    assert error.value.code == "bad_direction"


# --- retrieval ---------------------------------------------------------------------------------


def test_two_asteroids_or_one_section_a_turn():
    tiles = {(0, 0): "A13", (1, 0): "A22", (2, 0): "A31", (0, 1): "S34"}
    state = position(tiles=tiles, ships=[ship(at=(0, 0), stores="R"), OTHER])
    state = play(state, {"type": "retrieve"})
    assert mine(state).stores == bag("YYR") and state.cell(0, 0) is None and "A13" in state.gone
    refused(state, {"type": "retrieve"}, "no_tile")
    on_section = play(state, {"type": "step", "dir": "S"})
    refused(on_section, {"type": "recycle"}, "retrieval_used")
    state = play(state, {"type": "step", "dir": "E"}, {"type": "retrieve"})
    assert mine(state).stores == bag("YYBR")
    state = play(state, {"type": "step", "dir": "E"})
    assert {"type": "retrieve"} not in G.legal_moves(state, 0)
    refused(state, {"type": "retrieve"}, "retrieval_used")


def test_recycling_a_section_gives_its_scrap_and_ends_retrieval():
    tiles = {(0, 0): "S31", (0, 1): "A01"}
    state = position(tiles=tiles, ships=[ship(at=(0, 0), stores="Y"), OTHER])
    refused(state, {"type": "retrieve"}, "wrong_tile")
    state = play(state, {"type": "recycle"})
    assert mine(state).stores == bag("YYB")  # scrap YYB on top of a Y: one Y did not fit
    state = play(state, {"type": "step", "dir": "S"})
    refused(state, {"type": "retrieve"}, "retrieval_used")


def test_the_book_example_tile():
    s31 = SHIP_PARTS["S31"]
    assert (s31.store, s31.convert, s31.recycle, s31.points) == ("BB", ("Y", "B"), "YYB", 1)
    assert s31.edges == (None, "R", "Y", "B")  # left carbon, right metal, lower radioactive


def test_connecting_pays_both_sides_of_the_joint():
    # the book's example: 1 radioactive, 1 metal and 2 carbon to connect two sections
    parts = [(0, -1, "S44", 0)]  # its north opening costs YB
    state = position(tiles={(0, 0): "S40"}, ships=[ship(parts=parts, stores="YBBRR"), OTHER])
    moves = [m for m in G.legal_moves(state, 0) if m["type"] == "connect"]
    assert {"type": "connect", "at": [0, -2], "rotation": 180} in moves  # its RB side down
    state = play(state, {"type": "connect", "at": [0, -2], "rotation": 180})
    assert mine(state).stores == bag("R")
    assert mine(state).parts[-1] == Part(0, -2, "S40", 180, 5)
    assert state.cell(0, 0) is None and "S40" not in state.gone


def test_connection_needs_every_shared_edge_to_match():
    # bridge [0,0]; S22 above it, open to the east; S41 (open all round) east of S22
    parts = [(0, -1, "S22", 0), (1, -1, "S41", 0)]
    state = position(tiles={(0, 0): "S36"}, ships=[ship(parts=parts, stores="YYBBRR"), OTHER])
    # at [1,0] a section meets S41's open south edge and the bridge's closed east edge
    play(state, {"type": "connect", "at": [1, 0], "rotation": 0})  # S36 N open, W closed: fits
    error = refused(state, {"type": "connect", "at": [1, 0], "rotation": 270}, "edges_do_not_match")
    assert "open edge would meet a closed one" in error.message
    refused(state, {"type": "connect", "at": [-1, 0], "rotation": 180}, "no_open_joint")
    refused(state, {"type": "connect", "at": [0, -1], "rotation": 0}, "place_taken")
    all_open = replace(state, cells=tuple("S41" if c == "S36" else c for c in state.cells))
    poor = ship(parts=[(0, -1, "S22", 0)], stores="R")
    all_open = replace(all_open, ships=(poor, OTHER))
    refused(all_open, {"type": "connect", "at": [0, -2], "rotation": 0}, "not_enough_resources")


def test_every_legal_rotation_is_listed():
    state = position(tiles={(0, 0): "S41"}, ships=[ship(stores="YYBBRR"), OTHER])
    connects = [m for m in G.legal_moves(state, 0) if m["type"] == "connect"]
    assert connects == [{"type": "connect", "at": [0, -1], "rotation": r} for r in ROTATIONS]
    state = play(state, connects[1])  # turned 90, its south edge (printed east, B) meets the bridge
    assert mine(state).stores == bag("YYBRR")


def test_a_section_joined_this_turn_does_not_store_yet():
    state = position(tiles={(0, 0): "S22", (0, 1): "A16"}, ships=[ship(stores="BBRR"), OTHER])
    state = play(state, {"type": "connect", "at": [0, -1], "rotation": 0})  # costs R
    state = play(state, {"type": "step", "dir": "S"})
    refused(state, {"type": "retrieve"}, "retrieval_used")


# --- scoring -----------------------------------------------------------------------------------


def test_the_book_worked_example_scores_4():
    # The book's picture: bridge bottom left; top left 4 points with two loose openings (4-1-2=1);
    # top right 2 points and bottom right 1 point, fully connected. The bottom-right tile is not in
    # the house tile set, so it is made here.
    corner = Section("X01", "", "", None, "", 1, ("R", None, None, None))
    table = {**SHIP_PARTS, "X01": corner}
    parts = (
        Part(0, 0, BRIDGE_ID, 0, 0),
        Part(0, -1, "S41", 0, 1),
        Part(1, -1, "S35", 180, 2),  # openings turned to the south and west
        Part(1, 0, "X01", 0, 3),
    )
    assert score(parts, table) == 4
    assert score(parts[:2], table) == 4 - 1 - 3  # top left alone: three loose openings


def test_score_of_a_fresh_ship_and_the_view_scores():
    state = position()
    assert score(state.ships[0].parts) == -2  # the bridge's opening is loose
    assert G.view(state, None)["ships"][0]["score"] == -2


# --- new junk ----------------------------------------------------------------------------------

ROW_2 = {(x, 1): f"A{x + 11:02d}" for x in range(6)}  # A11..A16 across the second row


def junk(drawn="S01", **kwargs):
    kwargs.setdefault("phase", JUNK_PHASE)
    state = position(**kwargs)
    return replace(state, drawn=drawn)


def test_end_move_draws_the_top_tile_for_all_to_see():
    state = play(position(), {"type": "end_move"})
    assert state.turn.phase == JUNK_PHASE and state.drawn == "A01" and state.stack == ("A02", "A03")
    assert G.view(state, 1)["drawn"] == "A01" and G.view(state, 1)["stack_size"] == 2
    moves = G.legal_moves(state, 0)
    assert len(moves) == 24 and {"type": "push", "entry": "N3"} in moves


def test_a_push_shifts_the_row_with_its_ships_and_drops_the_far_tile():
    ships = [ship(at=(2, 1)), ship(at=(5, 5))]
    state = play(junk(tiles=ROW_2, ships=ships), push("W2"))
    assert [state.cell(x, 1) for x in range(6)] == ["S01", "A11", "A12", "A13", "A14", "A15"]
    assert state.gone == ("A16",) and state.ships[0].at == (3, 1)
    assert state.turn.seat == 1 and state.turn.phase == RESOURCES_PHASE and state.drawn is None
    column = play(junk(tiles=ROW_2, ships=ships), {"type": "push", "entry": "S3"})
    assert column.cell(2, 5) == "S01" and column.cell(2, 0) == "A13"
    assert column.ships[0].at == (2, 0)


def test_a_ship_pushed_off_comes_back_on_its_side():
    ships = [ship(at=(5, 5)), ship(at=(5, 1))]
    state = play(junk(tiles=ROW_2, ships=ships), push("W2"))
    assert state.ships[1].at is None and state.ships[1].off_side == "E"
    state = play(state, {"type": "end_resources"})
    moves = G.legal_moves(state, 1)
    assert moves == [{"type": "reenter", "entry": f"E{n}"} for n in range(1, 6)]  # a ship is at E6
    refused(state, {"type": "step", "dir": "N"}, "must_reenter")
    refused(state, {"type": "end_move"}, "must_reenter")
    refused(state, {"type": "reenter", "entry": "W2"}, "wrong_side")
    refused(state, {"type": "reenter", "entry": "E6"}, "cell_taken")
    state = play(state, {"type": "reenter", "entry": "E2"})
    assert state.ships[1].at == (5, 1) and state.ships[1].off_side is None and state.turn.steps == 3
    assert {"type": "retrieve"} in G.legal_moves(state, 1)  # the tile it came back onto
    refused(state, {"type": "reenter", "entry": "E3"}, "on_the_map")


def test_less_empty_space_slides_only_up_to_the_first_space():
    tiles = {(0, 1): "A11", (1, 1): "A12", (3, 1): "A14", (5, 1): "A16"}
    plain = play(junk(tiles=tiles), push("W2"))
    assert [plain.cell(x, 1) for x in range(6)] == ["S01", "A11", "A12", None, "A14", None]
    assert plain.gone == ("A16",)
    dense = play(junk(tiles=tiles, options=LESS), push("W2"))
    assert [dense.cell(x, 1) for x in range(6)] == ["S01", "A11", "A12", "A14", None, "A16"]
    assert dense.gone == ()


def test_less_empty_space_treats_a_ship_as_filling_its_cell():
    tiles = {(0, 1): "A11", (1, 1): "A12", (3, 1): "A14"}
    ships = [ship(at=(2, 1)), ship(at=(5, 5))]
    state = play(junk(tiles=tiles, ships=ships, options=LESS), push("W2"))
    assert [state.cell(x, 1) for x in range(6)] == ["S01", "A11", "A12", None, "A14", None]
    assert state.ships[0].at == (3, 1)
    full = {**ROW_2, (2, 1): None}
    ships = [ship(at=(2, 1)), ship(at=(5, 1))]
    packed = play(junk(tiles=full, ships=ships, options=LESS), push("W2"))
    assert packed.ships[0].at == (3, 1) and packed.ships[1].at is None and packed.gone == ("A16",)


def pushable(state):
    return {m["entry"] for m in G.legal_moves(state, state.turn.seat) if m["type"] == "push"}


def test_no_entry_opposite_another_players_push_for_a_full_round():
    state = replace(junk(players=3), recent=((0, "N1"), (1, "W2"), (2, "S3")))
    assert len(pushable(state)) == 22 and not {"E2", "N3"} & pushable(state)
    assert "S1" in pushable(state)  # opposite its own last push: that binds nothing
    assert G.view(state, 2)["closed_entries"] == ["E2", "N3"]
    error = refused(state, {"type": "push", "entry": "E2"}, "opposite_entry")
    assert "W2" in error.message
    state = play(state, push("S1"))
    state = play(state, END_RESOURCES, END_MOVE)
    # seat 1's own W2 has done its round; seat 2's S3 and seat 0's S1 still bind
    assert state.turn.seat == 1 and len(pushable(state)) == 22
    assert not {"N1", "N3"} & pushable(state)


def test_more_junk_pushes_a_second_tile_after_two_asteroids():
    options = {"more_junk": True}
    state = play(junk(options=options, asteroids=2), push("N1"))
    assert state.turn.phase == JUNK_PHASE and state.turn.seat == 0 and state.drawn == "A01"
    assert push("S1") in G.legal_moves(state, 0)  # own pushes bind nothing
    state = play(state, push("S1"))
    assert state.turn.seat == 1 and state.turn.phase == RESOURCES_PHASE
    one = play(junk(options=options, asteroids=1), push("N1"))
    assert one.turn.seat == 1
    plain = play(junk(asteroids=2), push("N1"))
    assert plain.turn.seat == 1


def test_the_game_ends_right_after_the_last_push():
    state = replace(junk(), stack=())
    ships = (ship(parts=[(0, -1, "S34", 0)]), OTHER)
    state = replace(state, ships=ships)
    assert G.outcome(state) is None
    final = play(state, push("N2"))
    assert final.turn.phase == OVER and G.to_act(final) == ()
    assert G.legal_moves(final, 0) == [] == G.legal_moves(final, 1)
    result = G.outcome(final)
    assert result.scores == (2 - 2, -2) and result.winners == (0,)
    assert result.reason == "stack_empty"
    refused(final, push("N2"), "game_over")
    tie = G.outcome(play(replace(state, ships=(ship(), OTHER)), push("N2")))
    assert tie.winners == (0, 1)


# --- forfeit, timeout, errors, text ------------------------------------------------------------


def test_a_seat_that_forfeits_before_placing_is_skipped():
    state = placed(G.setup(3, {}, "s"), "NW")
    state = G.forfeit(state, 2)
    state = placed(state, "SW")
    assert state.turn == Turn(0, 1, RESOURCES_PHASE) and state.ships[2].at is None
    early = G.forfeit(G.setup(3, {}, "s"), 0)
    assert early.turn.seat == 1 and G.legal_moves(early, 1)[0]["type"] == "place"
    early = placed(early, "NW", "NE")
    assert early.turn == Turn(1, 1, RESOURCES_PHASE)


def test_forfeit_with_two_players_ends_the_game():
    state = position()
    result = G.outcome(G.forfeit(state, 0))
    assert result.winners == (1,) and result.reason == "last_player_left" and result.scores[0] == 0


def test_forfeit_with_more_players_lets_play_go_on():
    state = junk(players=3, tiles=ROW_2)
    after = G.forfeit(state, 0)  # the mover leaves: its drawn tile leaves the game too
    assert after.ships[0].out and after.ships[0].at is None and "S01" in after.gone
    assert after.turn.seat == 1 and after.turn.phase == RESOURCES_PHASE
    other = G.forfeit(state, 2)
    assert other.turn == state.turn and other.ships[2].out
    after = play(after, END_RESOURCES, END_MOVE, push("N1"))
    assert after.turn.seat == 2  # seat 0 is skipped
    last = replace(after, stack=("A05",))
    final = play(last, END_RESOURCES, END_MOVE, push("N2"))
    result = G.outcome(final)
    assert result.reason == "stack_empty" and result.scores[0] == 0
    assert result.winners == (1, 2)  # both at -2; the out seat's 0 does not win


def test_timeout_ends_the_phase():
    state = position(phase=RESOURCES_PHASE)
    assert G.timeout_move(state, 0) == {"type": "end_resources"}
    assert G.timeout_move(position(), 0) == {"type": "end_move"}
    off = position(ships=[ship(at=None, off="S"), OTHER])
    assert G.timeout_move(off, 0) == {"type": "reenter", "entry": "S1"}
    assert G.timeout_move(junk(), 0) == push("N1")


def test_bad_moves_are_refused_with_codes():
    state = position(tiles={(0, 0): "S41"}, ships=[ship(stores="YYBBRR"), OTHER])
    cases = [
        ({"type": "connect", "at": [0], "rotation": 0}, "bad_place"),
        ({"type": "connect", "at": [0, -1], "rotation": 45}, "bad_rotation"),
        ({"type": "connect", "at": [True, -1], "rotation": 0}, "bad_place"),
        ({"type": "fly"}, "unknown_move_type"),
    ]
    for move, code in cases:
        with pytest.raises(MalformedMove) as error:
            G.apply(state, 0, move)
        assert error.value.code == code
    refused(state, {"type": "end_resources"}, "wrong_phase")
    with pytest.raises(NotYourTurn):
        G.apply(state, 1, {"type": "end_move"})
    with pytest.raises(MalformedMove) as error:
        G.apply(junk(), 0, {"type": "push", "entry": "up"})
    assert error.value.code == "bad_entry"
    refused(junk(), {"type": "push", "entry": "N7"}, "out_of_range")


def test_render_text_shows_the_map_ships_and_stores():
    mover = ship(at=(2, 1), parts=[(0, -1, "S22", 0)], stores="YB")
    state = junk(tiles=ROW_2, ships=[mover, OTHER])
    text = G.render_text(state, 0)
    assert "new junk phase" in text and "drawn tile: S01 section" in text
    assert " 2 |A11  |A12  |A13@0|A14  |A15  |A16  |" in text
    assert "Ship 0: at column 3, row 2; stores Y 1/4, B 1/4, R 0/2; score -1" in text
    assert "[0,-1] turned 0: S22 section: 2 VP" in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_dump_and_load_round_trip():
    state = placed(G.setup(3, {"short": True}, "s"), "NW", "NE", "SE")
    state = play(state, END_RESOURCES, END_MOVE)
    assert G.load(json.loads(json.dumps(G.dump(state)))) == state


def test_the_log_records_each_drawn_tile():
    before = position()
    after = play(before, END_MOVE)
    assert G.public_move(before, 0, END_MOVE, after) == {"type": "end_move", "drawn": "A01"}
    twice = junk(options={"more_junk": True}, asteroids=2)
    second = play(twice, push("N1"))
    assert G.public_move(twice, 0, push("N1"), second) == {**push("N1"), "drawn": "A01"}
    once = junk()
    assert G.public_move(once, 0, push("N1"), play(once, push("N1"))) == push("N1")


def test_a_complete_game_keeps_every_tile_somewhere():
    state = placed(G.setup(3, {"more_junk": True}, "whole-game"), "NW", "SE", "SW")
    rnd = random.Random(3)
    while G.outcome(state) is None:
        moves = G.legal_moves(state, state.turn.seat)
        connects = [m for m in moves if m["type"] in ("connect", "retrieve")]
        state = G.apply(state, state.turn.seat, rnd.choice(connects or moves))
        joined = [p.tile for s in state.ships for p in s.parts if p.tile != BRIDGE_ID]
        everywhere = [t for t in state.cells if t] + list(state.stack) + list(state.gone) + joined
        everywhere += [state.drawn] if state.drawn else []
        assert sorted(everywhere) == sorted(ALL_TILES)
    assert state.end_reason == "stack_empty" and not state.stack
    assert any(len(s.parts) > 1 for s in state.ships)


def test_ruling_less_empty_space_carries_a_ship_and_its_empty_cell_one_cell_on():
    """RULINGS (Space Junkyard, `less_empty_space`): a ship on an empty cell moves one cell along
    with the line, its empty cell under it, and the shift goes on to the next cell holding neither
    tile nor ship."""
    tiles = {(0, 1): "A11", (2, 1): "A13"}
    state = play(junk(tiles=tiles, ships=[ship(at=(1, 1)), ship(at=(5, 5))], options=LESS), push("W2"))
    assert [state.cell(x, 1) for x in range(6)] == ["S01", "A11", None, "A13", None, None]
    assert state.ships[0].at == (2, 1)  # the empty cell came along under it
    alone = play(junk(tiles={(0, 1): "A11"}, ships=[ship(at=(1, 1)), ship(at=(5, 5))], options=LESS),
                 push("W2"))
    assert [alone.cell(x, 1) for x in range(6)] == ["S01", "A11", None, None, None, None]
    assert alone.ships[0].at == (2, 1) and alone.gone == ()
