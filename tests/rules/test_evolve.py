"""`evolve`, the fast `dataclasses.replace` every rules engine builds its states with."""

from __future__ import annotations

import dataclasses
from functools import cached_property

import pytest

from rules.values import evolve


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0

    @cached_property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


def test_it_agrees_with_dataclasses_replace() -> None:
    point = Point(1, 2)
    moved = evolve(point, y=5)
    assert moved == dataclasses.replace(point, y=5) == Point(1, 5)
    assert hash(moved) == hash(Point(1, 5))
    assert point == Point(1, 2)  # the original is untouched


def test_a_memo_of_the_old_value_is_not_carried_over() -> None:
    point = Point(1, 2)
    assert point.norm == 3
    assert evolve(point, x=10).norm == 12


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field 'z'"):
        evolve(Point(1), z=3)


def test_a_dataclass_with_post_init_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x >= 0

    with pytest.raises(TypeError, match="use dataclasses.replace"):
        evolve(Checked(1), x=-1)
