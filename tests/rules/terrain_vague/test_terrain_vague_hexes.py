"""Terrain Vague hex geometry: boards, neighbours, lines and distances (pure functions)."""

from __future__ import annotations

import pytest

from rules.terrain_vague import hexes
from rules.terrain_vague.hexes import CENTRE


@pytest.mark.parametrize("radius, count", [(5, 91), (4, 61), (3, 37)])
def test_boards_have_the_books_hex_counts(radius, count):
    board = hexes.board_hexes(radius)
    assert len(board) == count == len(set(board))
    assert CENTRE in board
    assert all(hexes.distance(h, CENTRE) <= radius for h in board)


def test_distance_is_the_hex_step_count():
    assert hexes.distance(CENTRE, (3, -3)) == 3
    assert hexes.distance((2, -1), (-1, 2)) == 3
    assert hexes.distance((1, 1), (1, 1)) == 0
    assert hexes.distance((-2, 0), (2, -4)) == 4


def test_six_neighbours_and_the_board_edge_clips_them():
    assert len(set(hexes.neighbours((0, 0)))) == 6
    assert all(hexes.distance(n, (4, -1)) == 1 for n in hexes.neighbours((4, -1)))
    corner = (3, 0)
    assert len(hexes.neighbours_on_board(corner, 3)) == 3
    assert len(hexes.neighbours_on_board((3, -1), 3)) == 4
    assert hexes.are_adjacent((0, 0), (0, 1)) and not hexes.are_adjacent((0, 0), (1, 1))


def test_six_lines_from_the_centre_run_to_the_range():
    lines = hexes.lines(CENTRE, 3, 5)
    assert len(lines) == 6
    assert lines[0] == ((1, 0), (2, 0), (3, 0))
    assert lines[3] == ((-1, 0), (-2, 0), (-3, 0))
    assert lines[1] == ((1, -1), (2, -2), (3, -3))
    assert all(len(run) == 3 for run in lines)


def test_lines_stop_at_the_edge_of_the_board():
    assert hexes.line((2, 0), 0, 3, 3) == ((3, 0),)
    assert hexes.line((3, 0), 0, 3, 3) == ()
    assert hexes.line((2, 0), 3, 2, 3) == ((1, 0), (0, 0))


def test_directions_between_hexes_on_a_common_line():
    assert hexes.direction_to(CENTRE, (0, 3)) == 5
    assert hexes.direction_to(CENTRE, (-2, 2)) == 4
    assert hexes.direction_to(CENTRE, (1, 1)) is None
    assert hexes.direction_to(CENTRE, CENTRE) is None
    assert hexes.between((0, 0), (3, 0)) == ((1, 0), (2, 0))
    assert hexes.between((0, 0), (1, 1)) == ()
    assert all(hexes.direction_to(h, hexes.step(h, d, 2)) == d for h in [(1, -2)] for d in range(6))


def test_hexes_round_trip_through_json_and_bad_shapes_are_refused():
    assert hexes.from_json(hexes.to_json((2, -1))) == (2, -1)
    for bad in (None, [1], [1, 2, 3], ["1", 2], [True, 0], "1,2"):
        with pytest.raises(ValueError):
            hexes.from_json(bad)
