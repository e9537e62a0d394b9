"""Terrafex's inputs to the shared suites (`tests.rules.inputs`)."""

from __future__ import annotations

from tests.rules.inputs import WinInOne


TERRAFEX_LAST_GLACIER = {
    # White (seat 0) has only its glacier action left; the last glacier, small at (0,0), melts
    # into the large fire at (1,0) by moving south and ends the game with White ahead (the large
    # forest at (3,3) is White's, the medium fire left at (1,0) costs White 2: 1 to 0). Moving
    # east keeps the game going.
    "board": [{"row": 0, "col": 0, "colour": "blue", "size": "S"},
              {"row": 1, "col": 0, "colour": "red", "size": "L"},
              {"row": 3, "col": 3, "colour": "green", "size": "L"}],
    "pool": {"green": {"S": 5, "M": 5, "L": 3}, "yellow": {"S": 5, "M": 5, "L": 4},
             "red": {"S": 5, "M": 5, "L": 3}, "blue": {"S": 4, "M": 5, "L": 4}},
    "fire_pit": {"S": 0, "M": 0, "L": 0}, "white": 0, "mover": 0, "turn": 9,
    "actions_done": ["forest", "mountain", "fire"], "fire_in_hand": None,
    "melted_this_turn": False, "quiet_turns": 0, "forfeited": None,
}


WIN_IN_ONE = WinInOne(
    TERRAFEX_LAST_GLACIER, 0, {"type": "glacier", "from": [0, 0], "dir": "S"},
    ({"type": "glacier", "from": [0, 0], "dir": "E"},),
)
