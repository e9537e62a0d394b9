"""Scavenge's inputs to the shared suites (`tests.rules.inputs`)."""

from __future__ import annotations

from tests.rules.inputs import WinInOne


SCAVENGE_CARRIER_HOME = {
    # Seat 0 carries the good stuff at (0,3), home is (0,0), the roll is 3: home wins at once.
    "players": 2, "straight_moves": False, "positions": [3, 77], "trash": [0, 2], "carrier": 0,
    "turn": 0, "roll": 3, "rng": {"seed": "hand-built", "drawn": 0}, "winner": None,
    "end_reason": None,
}


WIN_IN_ONE = WinInOne(SCAVENGE_CARRIER_HOME, 0, {"type": "move", "to": [0, 0]}, ({"type": "move", "to": [0, 6]},))
