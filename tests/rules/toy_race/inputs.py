"""Toy Race's inputs to the shared suites (`tests.rules.inputs`)."""

from __future__ import annotations

from tests.rules.inputs import WinInOne

# Seat 1 is on square 9: a step wins for certain, a roll only on a 1 (any other roll overshoots
# and is lost; this seed's next roll is not a 1), so the bot must step.
WIN_IN_ONE = WinInOne(
    {"players": 2, "squares": [3, 9], "turn": 1, "out": [], "winner": None,
     "rng": {"seed": "hand-built", "drawn": 0}},
    1, {"type": "step"}, ({"type": "roll"},),
)
