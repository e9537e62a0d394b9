"""A player's ship: sections on a grid of their own, joined edge to edge; the bridge at (0, 0).

Ship coordinates are [x, y] with x growing east and y growing south, so the first section joined
to the bridge's north opening sits at (0, -1). A section's rotation is 0, 90, 180 or 270 degrees
clockwise: at 90 its printed north edge faces east.

Resources are bags of counts in `RESOURCES` order (radioactive, carbon, metal).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Mapping

from rules.space_junkyard.data import CLOSED, RESOURCES, SHIP_PARTS, Section

ROTATIONS = (0, 90, 180, 270)
OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N, E, S, W
OPPOSITE = (2, 3, 0, 1)

Bag = tuple[int, int, int]
EMPTY_BAG: Bag = (0, 0, 0)


@dataclass(frozen=True)
class Part:
    """A section on a ship: where, which tile, how turned, and the turn number it was joined in
    (it works from the owner's next turn; the bridge has 0 and always works)."""

    x: int
    y: int
    tile: str
    rotation: int
    added: int


@cache
def bag(letters: str) -> Bag:
    """Memoised: the letters always come from the printed tables (a cost, a store, a recycling
    value, a colour), a few dozen strings, and searches ask for the same ones millions of times."""
    return tuple(letters.count(colour) for colour in RESOURCES)  # type: ignore[return-value]


# The bag helpers below spell out the three colours: they run for every gain, payment and joint
# of a search, where a generator over `zip` costs more than the sums it makes.


def bag_add(left: Bag, right: Bag) -> Bag:
    return (left[0] + right[0], left[1] + right[1], left[2] + right[2])


def bag_covers(have: Bag, need: Bag) -> bool:
    return have[0] >= need[0] and have[1] >= need[1] and have[2] >= need[2]


def bag_take(have: Bag, need: Bag) -> Bag:
    return (have[0] - need[0], have[1] - need[1], have[2] - need[2])


def bag_clamp(have: Bag, room: Bag) -> Bag:
    """What is kept of `have` with room for `room`: the surplus is discarded (book, section 4)."""
    return (min(have[0], room[0]), min(have[1], room[1]), min(have[2], room[2]))


def turned_edges(section: Section, rotation: int) -> tuple[str | None, ...]:
    """The section's edges N, E, S, W after turning it `rotation` degrees clockwise."""
    steps = rotation // 90
    return tuple(section.edges[(side - steps) % 4] for side in range(4))


def section_edges(section: Section, rotation: int) -> tuple[str | None, ...]:
    """`turned_edges`, read from the table when the section is a printed one."""
    if SHIP_PARTS.get(section.id) is section:
        edges = _TURNED_EDGES.get((section.id, rotation))
        if edges is not None:
            return edges
    return turned_edges(section, rotation)


def part_edges(part: Part, table: Mapping[str, Section] = SHIP_PARTS) -> tuple[str | None, ...]:
    if table is SHIP_PARTS:
        edges = _TURNED_EDGES.get((part.tile, part.rotation))
        if edges is not None:
            return edges
    return turned_edges(table[part.tile], part.rotation)


# Every printed section's edges in every rotation, and its storage as a bag: the ship's joints,
# score and capacity read them for each part of each position a search visits.
_TURNED_EDGES = {
    (tile, rotation): turned_edges(section, rotation)
    for tile, section in SHIP_PARTS.items()
    for rotation in ROTATIONS
}
_STORE_BAGS = {tile: bag(section.store) for tile, section in SHIP_PARTS.items()}


def by_place(parts: tuple[Part, ...]) -> dict[tuple[int, int], Part]:
    return {(part.x, part.y): part for part in parts}


def working(parts: tuple[Part, ...], turn: int) -> tuple[Part, ...]:
    """The parts whose abilities count in turn `turn`: all but those joined during it."""
    return tuple([part for part in parts if part.added < turn])


def capacity(parts: tuple[Part, ...], turn: int) -> Bag:
    """Storage per colour, summed over the working sections."""
    radioactive = carbon = metal = 0
    for part in parts:
        if part.added < turn:
            store = _STORE_BAGS[part.tile]
            radioactive += store[0]
            carbon += store[1]
            metal += store[2]
    return (radioactive, carbon, metal)


def open_places(parts: tuple[Part, ...]) -> list[tuple[int, int]]:
    """Empty grid places that some opening of the ship faces, in a stable order."""
    places = by_place(parts)
    found: dict[tuple[int, int], None] = {}
    for part in parts:
        for side, edge in enumerate(part_edges(part)):
            if edge is CLOSED:
                continue
            dx, dy = OFFSETS[side]
            place = (part.x + dx, part.y + dy)
            if place not in places:
                found[place] = None
    return sorted(found)


def joint_cost(
    parts: tuple[Part, ...], section: Section, place: tuple[int, int], rotation: int
) -> tuple[str, Bag]:
    """("ok", cost) if the section may join the ship at `place` turned by `rotation`; otherwise
    (reason, EMPTY_BAG). Every shared edge must be open-open or closed-closed, at least one must be
    open-open, and each open-open joint costs both tiles' printed resources."""
    return joint_cost_at(by_place(parts), section, place, rotation)


def joint_cost_at(
    places: dict[tuple[int, int], Part], section: Section, place: tuple[int, int], rotation: int
) -> tuple[str, Bag]:
    """`joint_cost` with the ship's parts already mapped by place (`by_place`), for callers that
    try many places and rotations on one ship."""
    if place in places:
        return "place_taken", EMPTY_BAG
    edges = section_edges(section, rotation)
    cost, joints = EMPTY_BAG, 0
    for side in range(4):
        dx, dy = OFFSETS[side]
        neighbour = places.get((place[0] + dx, place[1] + dy))
        if neighbour is None:
            continue
        mine, theirs = edges[side], part_edges(neighbour)[OPPOSITE[side]]
        if (mine is CLOSED) != (theirs is CLOSED):
            return "edges_do_not_match", EMPTY_BAG
        if mine is not CLOSED:
            joints += 1
            cost = bag_add(cost, bag(mine + theirs))
    if not joints:
        return "no_open_joint", EMPTY_BAG
    return "ok", cost


def part_score(part: Part, places: dict, table: Mapping[str, Section]) -> int:
    """Printed points, -1 if any opening is unconnected, -1 more per unconnected opening."""
    loose = 0
    for side, edge in enumerate(part_edges(part, table)):
        dx, dy = OFFSETS[side]
        if edge is not CLOSED and (part.x + dx, part.y + dy) not in places:
            loose += 1
    return table[part.tile].points - (1 if loose else 0) - loose


def score(parts: tuple[Part, ...], table: Mapping[str, Section] = SHIP_PARTS) -> int:
    """The ship's score (book, section 9), the bridge included."""
    places = by_place(parts)
    return sum(part_score(part, places, table) for part in parts)
