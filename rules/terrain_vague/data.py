"""Terrain Vague tables: gangs, turf, supplies, stacks, pawns, hideouts and duel tiles.

The numbers are the rulebook's where it gives them and RULINGS.md's house defaults where the
book's cheat-sheet tables were lost (the hideouts). Logic never holds these numbers.
"""

from __future__ import annotations

# --- gangs ---------------------------------------------------------------------------------

RUBBLES = "rubbles"
BRAMBLES = "brambles"
CESSPOOLS = "cesspools"
SCRAPPERS = "scrappers"

# The fixed order: it breaks the last play-order ties and lists gangs in views.
GANGS: tuple[str, ...] = (RUBBLES, BRAMBLES, CESSPOOLS, SCRAPPERS)

SWORN_ENEMY: dict[str, str] = {
    RUBBLES: BRAMBLES,
    BRAMBLES: RUBBLES,
    CESSPOOLS: SCRAPPERS,
    SCRAPPERS: CESSPOOLS,
}

# One letter per gang for the text board; upper case marks tough turf, lower case wimpy.
GANG_LETTER: dict[str, str] = {RUBBLES: "R", BRAMBLES: "B", CESSPOOLS: "C", SCRAPPERS: "S"}

# (wimpy, tough) turf names, for people.
TURF_NAMES: dict[str, tuple[str, str]] = {
    RUBBLES: ("rubble", "rock"),
    BRAMBLES: ("nettles", "brambles"),
    CESSPOOLS: ("pool of water", "cesspool"),
    SCRAPPERS: ("garbage", "scrap"),
}

# With 2 players, option `gangs` picks the pair; the first named gang is seat 0's.
GANG_PAIRS: tuple[str, ...] = tuple(
    f"{a}-{b}" for i, a in enumerate(GANGS) for b in GANGS[i + 1 :]
)
DEFAULT_GANG_PAIR = f"{RUBBLES}-{BRAMBLES}"

# --- turf ----------------------------------------------------------------------------------

WIMPY = "wimpy"
TOUGH = "tough"
STRENGTHS: tuple[str, ...] = (WIMPY, TOUGH)

SUPPLY_PER_STRENGTH = 20  # hexes of each strength per gang, board and reserve together

# Stacks the board is built from, per player count: hexes of each strength of every gang
# (absent gangs included).
STACKS: dict[int, dict[str, int]] = {
    4: {WIMPY: 11, TOUGH: 11},
    3: {WIMPY: 8, TOUGH: 7},
    2: {WIMPY: 5, TOUGH: 4},
}

# Board radius and action range per player count.
BOARD_RADIUS: dict[int, int] = {4: 5, 3: 4, 2: 3}
REACH: dict[int, int] = {4: 3, 3: 2, 2: 2}

# With 4 players the stacks leave this many positions empty; they are filled from the supply.
RANDOM_FILL: dict[int, int] = {4: 2, 3: 0, 2: 0}

# --- pawns ---------------------------------------------------------------------------------

WHEELBARROW = "wheelbarrow"
SLINGSHOT = "slingshot"
LID = "lid"
BIG_BROTHER = "big_brother"
CLUBHOUSE = "clubhouse"

PAWN_KINDS: tuple[str, ...] = (WHEELBARROW, SLINGSHOT, LID, BIG_BROTHER)
PAWNS_PER_GANG: dict[str, int] = {WHEELBARROW: 4, SLINGSHOT: 4, LID: 4, BIG_BROTHER: 1}

# One letter per pawn kind for the text board (the clubhouse is the hideout, "H").
PAWN_LETTER: dict[str, str] = {
    WHEELBARROW: "w",
    SLINGSHOT: "s",
    LID: "l",
    BIG_BROTHER: "b",
    CLUBHOUSE: "H",
}

# --- turns and hideouts --------------------------------------------------------------------

TURNS = 12
STEPS = 5
RED_TURNS: frozenset[int] = frozenset({3, 6, 9, 12})

# Hideouts (RULINGS.md house default): action points on white turns; on red turns (3, 6, 9, 12)
# the gang's wrestling number, how many tiles it chooses.
HIDEOUT: dict[str, tuple[int, ...]] = {
    RUBBLES: (20, 16, 1, 14, 12, 2, 10, 9, 3, 8, 7, 2),
    BRAMBLES: (6, 8, 3, 9, 11, 2, 12, 14, 1, 16, 20, 2),
    CESSPOOLS: (12, 14, 2, 18, 15, 1, 13, 11, 3, 7, 6, 2),
    SCRAPPERS: (10, 11, 2, 7, 9, 3, 15, 13, 1, 17, 14, 2),
}

# --- the end -------------------------------------------------------------------------------

WIN_HOME_TURF = 25  # 4 gangs: a home turf this big at the end of a turn wins
MIN_HOME_TURF = 2  # a clubhouse's connected own hexes count as home turf from this size
# Option `to_25` has no turn limit in RULINGS.md. A server game still needs a guaranteed end, so a
# safety net, not a rule: after ten full hideout cycles (120 turns) the largest home turf wins, as
# after turn 12 of the normal game. Real games reach 25 hexes long before.
TO_25_TURN_LIMIT = 120

# --- duel tiles ----------------------------------------------------------------------------

TILE_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
DIGIT_COPIES = 3  # three digit tiles of each value; each duel takes from the full pool
BAR_COPIES = 1  # one bar of each value (it shows its value three times)
