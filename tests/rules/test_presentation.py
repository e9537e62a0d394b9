"""`rules.presentation`'s shared helpers."""

from __future__ import annotations

from rules.presentation import cell_name, touched


def test_a_cell_is_named_the_same_from_a_tuple_or_a_list_each_time():
    for coordinates in [(0, 0), (3, 11), (-2, 5), (10, -1)]:
        expected = f"{coordinates[0]},{coordinates[1]}"
        assert cell_name(coordinates) == expected
        assert cell_name(list(coordinates)) == expected
        assert cell_name(coordinates) == expected  # asked again: the remembered name is the same
    assert cell_name((True, 2)) == "1,2" and cell_name((2.0, 3)) == "2,3"  # as int() reads them


def test_touched_lists_the_cells_that_changed_in_the_order_the_board_lists_them():
    before = {"0,0": "~", "0,1": "a:1", "0,2": "b:2"}
    after = {"0,1": "a:2", "0,0": "~", "0,3": "c:1"}
    assert touched(before, after) == ["0,1", "0,3", "0,2"]


def test_the_remembered_names_stay_bounded_whatever_coordinates_come():
    from rules import presentation

    for n in range(presentation.CELL_NAMES_KEPT + 10):
        assert cell_name((n, -n)) == f"{n},{-n}"
    assert len(presentation._CELL_NAMES) <= presentation.CELL_NAMES_KEPT
