"""Space Junkyard's tables: the tile set, the bridge and the map sizes.

The print-and-play tile sheets are pictures we do not have; these are the house default tiles of
`shared/rules/space-junkyard-tiles.md` (32 asteroids, 44 ship sections, one bridge per player).
Replace the rows here, and nothing else, when the real sheets turn up.

Resources are one letter each: Y radioactive (yellow), B carbon (blue), R metal (red). A string of
letters is a bag of resources ("YYB" is two radioactive and one carbon).

An edge of a section is `CLOSED`, `FREE` (an opening with no cost) or the resources printed on that
opening. Edges are listed N, E, S, W in the printed orientation.
"""

from __future__ import annotations

from dataclasses import dataclass

RESOURCES = ("Y", "B", "R")
RESOURCE_NAMES = {"Y": "radioactive", "B": "carbon", "R": "metal"}
DIRECTIONS = ("N", "E", "S", "W")

CLOSED = None
FREE = ""

MAP_SIZE = 6
SMALL_MAP_SIZE = 5
SHORT_GAME_REMOVED = 16  # tiles removed unseen by the `short` option

FREE_STEPS = 3
BOUGHT_STEPS = 3
BOUGHT_STEPS_COST = "Y"
ASTEROIDS_PER_TURN = 2
SECTIONS_PER_TURN = 1


@dataclass(frozen=True)
class Section:
    """One ship section as printed. `produce` lists the colours it may produce (two: the owner picks
    one each turn); `store` and `recycle` are bags; `convert` is (from, to) or None."""

    id: str
    produce: str
    store: str
    convert: tuple[str, str] | None
    recycle: str
    points: int
    edges: tuple[str | None, str | None, str | None, str | None]


def _section(row: tuple) -> Section:
    ident, produce, store, convert, recycle, points, *edges = row
    return Section(
        id=ident,
        produce=produce.replace("/", ""),
        store=store,
        convert=tuple(convert.split(">")) if convert else None,
        recycle=recycle,
        points=points,
        edges=tuple(CLOSED if edge == "-" else edge for edge in edges),
    )


# (id, produce, store, convert "from>to", recycle, points, N, E, S, W); "-" is a closed edge,
# "" an opening with no cost.
_SECTION_ROWS = (
    ("S01", "Y", "", "", "B", 0, "B", "-", "-", "-"),
    ("S02", "Y", "", "", "R", 1, "R", "-", "B", "-"),
    ("S03", "Y", "", "", "BR", 1, "B", "R", "-", "-"),
    ("S04", "B", "", "", "Y", 0, "Y", "-", "-", "-"),
    ("S05", "B", "", "", "R", 1, "R", "-", "Y", "-"),
    ("S06", "B", "", "", "YR", 1, "Y", "R", "-", "-"),
    ("S07", "R", "", "", "Y", 0, "B", "-", "-", "-"),
    ("S08", "R", "", "", "B", 1, "Y", "-", "B", "-"),
    ("S09", "R", "", "", "YB", 1, "B", "Y", "-", "-"),
    ("S10", "Y/B", "", "", "R", 2, "R", "Y", "-", "B"),
    ("S11", "B/R", "", "", "Y", 2, "Y", "B", "-", "R"),
    ("S12", "R/Y", "", "", "B", 2, "B", "R", "-", "Y"),
    ("S13", "", "BB", "", "Y", 0, "R", "-", "-", "-"),
    ("S14", "", "RR", "", "B", 0, "Y", "-", "-", "-"),
    ("S15", "", "YY", "", "R", 0, "B", "-", "-", "-"),
    ("S16", "", "BB", "", "YR", 1, "Y", "-", "R", "-"),
    ("S17", "", "RR", "", "YB", 1, "B", "-", "Y", "-"),
    ("S18", "", "YY", "", "BR", 1, "R", "-", "B", "-"),
    ("S19", "", "YBR", "", "YBR", 1, "B", "R", "-", "-"),
    ("S20", "", "YBR", "", "YB", 2, "Y", "B", "-", "R"),
    ("S21", "", "YBR", "", "BR", 2, "R", "Y", "B", "-"),
    ("S22", "", "YYBB", "", "R", 2, "R", "", "R", "-"),
    ("S23", "", "BBRR", "", "Y", 2, "Y", "", "Y", "-"),
    ("S24", "", "RRYY", "", "B", 2, "B", "", "B", "-"),
    ("S25", "", "", "Y>B", "R", 1, "R", "-", "Y", "-"),
    ("S26", "", "", "Y>R", "B", 1, "B", "-", "Y", "-"),
    ("S27", "", "", "B>Y", "R", 1, "R", "-", "B", "-"),
    ("S28", "", "", "B>R", "Y", 1, "Y", "-", "B", "-"),
    ("S29", "", "", "R>Y", "B", 1, "B", "-", "R", "-"),
    ("S30", "", "", "R>B", "Y", 1, "Y", "-", "R", "-"),
    ("S31", "", "BB", "Y>B", "YYB", 1, "-", "R", "Y", "B"),  # the rulebook's example tile
    ("S32", "", "RR", "B>R", "BBR", 1, "-", "Y", "B", "R"),
    ("S33", "", "YY", "R>Y", "RRY", 1, "-", "B", "R", "Y"),
    ("S34", "", "", "", "R", 2, "R", "-", "R", "-"),
    ("S35", "", "", "", "B", 2, "B", "B", "-", "-"),
    ("S36", "", "", "", "Y", 2, "Y", "Y", "-", "-"),
    ("S37", "", "", "", "RB", 3, "R", "B", "Y", "-"),
    ("S38", "", "", "", "BY", 3, "B", "Y", "-", "R"),
    ("S39", "", "", "", "YR", 3, "Y", "R", "-", "B"),
    ("S40", "", "", "", "YBR", 3, "RB", "-", "YY", "-"),
    ("S41", "", "", "", "YB", 4, "Y", "B", "R", "B"),
    ("S42", "", "", "", "BR", 4, "B", "R", "Y", "R"),
    ("S43", "", "", "", "RY", 4, "R", "Y", "B", "Y"),
    ("S44", "", "", "", "YBR", 4, "YB", "R", "", "BR"),
)

SECTIONS: dict[str, Section] = {row[0]: _section(row) for row in _SECTION_ROWS}

# Each player's starting section; never recycled or moved, so never on the map or in the stack.
BRIDGE_ID = "BRG"
BRIDGE = Section(BRIDGE_ID, "Y", "YYBBRR", None, "", 0, (FREE, CLOSED, CLOSED, CLOSED))
SHIP_PARTS: dict[str, Section] = {**SECTIONS, BRIDGE_ID: BRIDGE}

_ASTEROID_GROUPS = (
    (4, "Y"), (4, "B"), (4, "R"),
    (3, "YY"), (3, "BB"), (3, "RR"),
    (3, "YB"), (3, "YR"), (3, "BR"),
    (2, "YBR"),
)  # fmt: skip


def _asteroids() -> dict[str, str]:
    bags = [bag for count, bag in _ASTEROID_GROUPS for _ in range(count)]
    return {f"A{number:02d}": bag for number, bag in enumerate(bags, start=1)}


ASTEROIDS: dict[str, str] = _asteroids()

# Every tile of the box in a fixed order: the order setup shuffles from.
ALL_TILES: tuple[str, ...] = (*ASTEROIDS, *SECTIONS)
