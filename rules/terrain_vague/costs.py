"""The action-point costs of pawn actions (RULINGS.md house defaults), as data.

Base costs before lids; a protected target costs base x (protecting lids + 1), x2 to x5. Relays
cost nothing. Logic reads these tables and never holds a number itself.
"""

from __future__ import annotations

from rules.terrain_vague.data import BIG_BROTHER, CLUBHOUSE, LID, SLINGSHOT, TOUGH, WHEELBARROW, WIMPY

# Step 2: calling out one pawn from the reserve. Rebuilding a beaned clubhouse is free.
CALL_OUT = {WHEELBARROW: 2, SLINGSHOT: 2, LID: 3, BIG_BROTHER: 4}
REBUILD_CLUBHOUSE = 0

# Step 3: one move of a pawn (or the clubhouse) to a hex within range.
MOVE = {WHEELBARROW: 2, SLINGSHOT: 2, LID: 4, BIG_BROTHER: 5, CLUBHOUSE: 4}

# Step 3: cleaning house with the big brother, never multiplied by lids.
CLEAN_HOUSE = 5

# Step 4: beaning a pawn of this kind (the target's kind sets the price). A clubhouse is never
# protected, so it always costs 8.
BEAN = {WHEELBARROW: 1, SLINGSHOT: 2, LID: 2, BIG_BROTHER: 3, CLUBHOUSE: 8}

# Step 5: ripping off one hex, by (relation to its owner, strength). "other" is an ordinary enemy
# or an absent gang; "sworn" is the ripper's sworn enemy while that gang is in play.
OTHER = "other"
SWORN = "sworn"
RIP = {
    (OTHER, WIMPY): 2,
    (OTHER, TOUGH): 3,
    (SWORN, WIMPY): 3,
    (SWORN, TOUGH): 5,
}
# Own home-turf wimpy to tough, flat (own lids never make one's own actions dearer).
REINFORCE = 2


def multiplier(protecting_lids: int) -> int:
    """x1 unprotected, x2 with one lid ... x5 with four (a gang has four lids)."""
    return protecting_lids + 1
