"""A parallel run deals its known long tests out over its processes (tests/scheduling.py)."""

from __future__ import annotations

from types import SimpleNamespace

from tests import scheduling
from tests.scheduling import _share_sizes, deal_longest_first


def _items(count: int) -> list:
    return [SimpleNamespace(nodeid=f"tests/test_x.py::test_{index}") for index in range(count)]


def _shares(ordered: list, processes: int) -> list[list[str]]:
    shares, start = [], 0
    for size in _share_sizes(len(ordered), processes):
        shares.append([item.nodeid for item in ordered[start:start + size]])
        start += size
    return shares


def test_each_process_starts_on_long_tests_and_the_known_time_is_spread(monkeypatch):
    items = _items(20)
    # Left in file order, the four long tests would all fall in the first of two shares.
    monkeypatch.setattr(scheduling, "LONGEST", {items[0].nodeid: 100, items[1].nodeid: 60, items[2].nodeid: 50, items[3].nodeid: 40})
    ordered = deal_longest_first(items, 2)
    assert sorted(item.nodeid for item in ordered) == sorted(item.nodeid for item in items)
    first, second = _shares(ordered, 2)
    assert first[:2] == [items[0].nodeid, items[3].nodeid]  # 100 + 40
    assert second[:2] == [items[1].nodeid, items[2].nodeid]  # 60 + 50
    short = [item.nodeid for item in ordered if item.nodeid not in scheduling.LONGEST]
    assert short == [item.nodeid for item in items[4:]], "the short tests keep their order"


def test_the_shares_are_cut_as_xdist_cuts_them():
    assert _share_sizes(10, 4) == [2, 2, 3, 3]
    assert sum(_share_sizes(1084, 4)) == 1084


def test_one_process_or_no_known_long_test_changes_nothing(monkeypatch):
    items = _items(5)
    monkeypatch.setattr(scheduling, "LONGEST", {items[4].nodeid: 10})
    assert deal_longest_first(items, 1) == items
    monkeypatch.setattr(scheduling, "LONGEST", {})
    assert deal_longest_first(items, 3) == items
