"""Tables from the Terrafex rulebook (terrafex.txt) and its RULINGS.md section.

Nothing here is logic: the board's size, the supply, the scoring bands, the two printed layouts,
the way a mountain splits a glacier, and the house limit that guarantees every game ends.
"""

from __future__ import annotations

ROWS, COLS = 7, 8

# Sizes are their arithmetic values: small 1, medium 2, large 3 ("Do the Math").
SIZES = (1, 2, 3)
LARGEST = 3  # a merge above 3 gives a large
SIZE_NAMES = {1: "S", 2: "M", 3: "L"}
SIZE_BY_NAME = {name: size for size, name in SIZE_NAMES.items()}
SIZE_WORDS = {1: "small", 2: "medium", 3: "large"}

FOREST, MOUNTAIN, FIRE, GLACIER = "green", "yellow", "red", "blue"
COLOURS = (FOREST, MOUNTAIN, FIRE, GLACIER)

# The four actions of a turn, in the book's order, and the colour each one plays.
ACTIONS = ("forest", "mountain", "fire", "glacier")
ACTION_COLOUR = {"forest": FOREST, "mountain": MOUNTAIN, "fire": FIRE, "glacier": GLACIER}

# Five trios of each colour; one large of each stands aside as a turn tracker, never in the pool.
TRIOS_PER_COLOUR = 5
TURN_TRACKERS = {1: 0, 2: 0, 3: 1}
SUPPLY = {size: TRIOS_PER_COLOUR - TURN_TRACKERS[size] for size in SIZES}

WHITE, BLACK = "white", "black"
# The band round a piece of each size, by square parity (row + column) % 2 (RULINGS.md).
BANDS = {
    0: {1: WHITE, 2: BLACK, 3: WHITE},
    1: {1: BLACK, 2: WHITE, 3: BLACK},
}

# Glacier into a mountain: mountain size -> glacier size -> the glaciers that result.
# Medium mountain: a medium or large glacier splits in two; large: into as many as its size.
MOUNTAIN_SPLITS = {
    2: {1: (1,), 2: (1, 1), 3: (1, 2)},
    3: {1: (1,), 2: (1, 1), 3: (1, 1, 1)},
}

# Layouts (RULINGS.md): (row, column, size, colour).
LAYOUTS = {
    1: (
        (0, 3, 1, FOREST),
        (1, 2, 2, MOUNTAIN),
        (1, 3, 3, GLACIER),
        (2, 4, 3, FOREST),
        (2, 5, 2, FOREST),
        (3, 1, 1, MOUNTAIN),
        (3, 6, 1, MOUNTAIN),
        (4, 2, 2, FOREST),
        (4, 3, 3, FOREST),
        (5, 4, 3, GLACIER),
        (5, 5, 2, MOUNTAIN),
        (6, 4, 1, FOREST),
    ),
    2: (
        (1, 0, 2, GLACIER),
        (1, 7, 2, GLACIER),
        (2, 3, 1, FOREST),
        (2, 4, 1, FOREST),
        (3, 0, 3, GLACIER),
        (3, 3, 3, FOREST),
        (3, 4, 3, FOREST),
        (3, 7, 3, GLACIER),
        (4, 3, 1, FOREST),
        (4, 4, 1, FOREST),
        (5, 0, 2, GLACIER),
        (5, 7, 2, GLACIER),
    ),
}
DEFAULT_LAYOUT = 1

# House ruling (the book allows an endless game once the fires run out): the game also ends,
# scored as usual, after this many turns in a row (both players' turns counted) in which no
# glacier met a fire.
QUIET_TURN_LIMIT = 40

# Directions a glacier moves in, and the order placements around a mountain are listed in.
DIRECTIONS = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
