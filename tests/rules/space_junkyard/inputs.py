"""Space Junkyard's inputs to the shared suites (`tests.rules.inputs`)."""

from __future__ import annotations

from tests.rules.inputs import WinInOne


SPACE_JUNKYARD_LAST_TURN = {
    # Seat 1's turn, movement phase; the stack holds one tile, so this turn's push ends the game.
    # Seat 1's ship (-2: bridge, S32, S28) trails seat 0's (-1: bridge, S05), and it stands on
    # section S35: connecting it (either listed rotation) scores 0 and wins, while recycling it or
    # ending the move loses. Only the push that empties the stack ends a Space Junkyard game,
    # and every push scores alike there, so this game's win in one is a win within the turn.
    "players": 2,
    "options": {"short": True, "small_map": False, "more_junk": False, "less_empty_space": False},
    "size": 6,
    "map": [["A27", "S29", None, "A14", "S35", "A25"], ["A01", None, None, None, None, "A07"],
            ["S42", "S27", "A29", None, "S33", "A32"], ["A13", None, None, "S13", "S25", "S06"],
            ["S22", "S24", None, "S31", "S19", "S14"], ["A16", "S36", "A12", None, None, None]],
    "ships": [
        {"at": [5, 5], "off_side": None, "stores": [2, 2, 2], "out": False, "sections": [
            {"at": [0, 0], "tile": "BRG", "rotation": 0, "added": 0},
            {"at": [0, -1], "tile": "S05", "rotation": 0, "added": 22}]},
        {"at": [4, 0], "off_side": None, "stores": [1, 1, 4], "out": False, "sections": [
            {"at": [0, 0], "tile": "BRG", "rotation": 0, "added": 0},
            {"at": [0, -1], "tile": "S32", "rotation": 0, "added": 3},
            {"at": [-1, -1], "tile": "S28", "rotation": 90, "added": 13}]},
    ],
    "gone": ["A05", "A18", "S34", "S09", "A31", "S11", "S26", "S21", "A03", "A10", "A09", "S39",
             "S41", "A06", "A19", "S01", "A30", "S10", "S38", "S44", "A22", "A23", "A20", "S40",
             "A08", "S15", "S04", "S23", "S08", "S18", "A28", "A17"],
    "drawn": None,
    "recent_pushes": [[1, "S4"], [0, "E4"], [1, "E3"], [0, "N4"]],
    "turn": {"seat": 1, "number": 24, "phase": "move", "produced": [], "steps_left": 3,
             "bought_steps": False, "asteroids_taken": 0, "sections_taken": 0, "pushes": 0},
    "end_reason": "", "stack": ["A02"],
    "removed": ["S37", "A15", "A11", "S16", "S20", "S17", "A26", "S30", "A24", "S12", "S02",
                "S43", "A21", "S07", "A04", "S03"],
    "rng": {"seed": "hand-built", "drawn": 75},
}


WIN_IN_ONE = WinInOne(
    SPACE_JUNKYARD_LAST_TURN, 1, None, ({"type": "recycle"}, {"type": "end_move"}, {"type": "push", "entry": "N1"})
)
