"""The action-point costs of pawn actions (RULINGS.md, house defaults), as data.

Base costs before lids; a protected target costs base x (protecting lids + 1). Relays are free.
"""

from __future__ import annotations

WHEELBARROW = "wheelbarrow"
SLINGSHOT = "slingshot"
LID = "lid"
BIG_BROTHER = "big_brother"
CLUBHOUSE = "clubhouse"

# Step 2: calling out one pawn from the reserve. Rebuilding a beaned clubhouse is free.
CALL_OUT = {WHEELBARROW: 2, SLINGSHOT: 2, LID: 3, BIG_BROTHER: 4}
REBUILD_CLUBHOUSE = 0

# Step 3: one move of a pawn (or the clubhouse) to a hex within range.
MOVE = {WHEELBARROW: 2, SLINGSHOT: 2, LID: 4, BIG_BROTHER: 5, CLUBHOUSE: 4}

# Step 4: beaning the pawn of this kind (the target's kind sets the price).
BEAN = {WHEELBARROW: 1, SLINGSHOT: 2, LID: 2, BIG_BROTHER: 3, CLUBHOUSE: 8}
# A clubhouse is never protected by lids.
NEVER_PROTECTED = frozenset({CLUBHOUSE})

# Step 5: ripping off one hex, by (relation, strength). "other" is an ordinary enemy or an absent
# gang; "sworn" is the sworn enemy while it is in play.
RIP = {
    ("other", "wimpy"): 2,
    ("other", "tough"): 3,
    ("sworn", "wimpy"): 3,
    ("sworn", "tough"): 5,
}
REINFORCE = 2  # own home-turf wimpy to tough, flat (a lid multiplier still applies? see actions)

# Step 3: cleaning house with the big brother, never multiplied by lids.
CLEAN_HOUSE = 5

# Protection: base x (lids + 1), so at most x5 with 4 lids.
MAX_MULTIPLIER = 5
