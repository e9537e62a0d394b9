"""Tables from the Scavenge rulebook and RULINGS.md (Scavenge section), kept out of the logic."""

from __future__ import annotations

# The 24 piecepack tiles, grid side up, in a 5x5 layout with the middle tile missing: a 10x10 grid
# of squares whose 2x2 hole in the middle is the centre square of the junkyard.
BOARD_SIZE = 10
HOLE = ((4, 4), (4, 5), (5, 4), (5, 5))

# Start corners by player count, in seat order. RULINGS.md names the four corners; which ones
# fewer players use is our ruling: two players take opposite corners, and seats go round the
# board clockwise so that seat order is also the order round the table.
START_CORNERS = {
    2: ((0, 0), (9, 9)),
    3: ((0, 0), (0, 9), (9, 9)),
    4: ((0, 0), (0, 9), (9, 9), (9, 0)),
}

TRASH_AT_START = 3  # three medium pyramids each; RULINGS.md: no cap on trash later

# The piecepack die: null (0), ace (1), 2, 3, 4, 5.
DIE_FACES = 6
MAX_ROLL = DIE_FACES - 1
