"""Terrain Vague's inputs to the shared suites (`tests.rules.inputs`)."""

from __future__ import annotations

from tests.rules.inputs import WinInOne


def terrain_vague_last_step() -> dict:
    """Turn 12, step 5, 2 gangs: brambles has ended its step, rubbles (seat 0) acts last with 2
    points and a wheelbarrow. Rubbles' home turf is 5 hexes (clubhouse at (2,0)), brambles' 4
    (clubhouse at (-2,0)), so ending the step ends the game with rubbles the winner; each rip or
    reinforcement keeps the game going. Every other hex is cesspools turf (no gang in play)."""
    turf = {(2, 0): ("rubbles", "tough"), (3, 0): ("rubbles", "wimpy"),
            (3, -1): ("rubbles", "wimpy"), (2, 1): ("rubbles", "wimpy"),
            (1, 1): ("rubbles", "wimpy"), (-2, 0): ("brambles", "tough"),
            (-3, 0): ("brambles", "wimpy"), (-2, 1): ("brambles", "wimpy"),
            (-1, 0): ("brambles", "tough")}
    board = [[q, r, None, None] if (q, r) == (0, 0)
             else [q, r, *turf.get((q, r), ("cesspools", "wimpy"))]
             for q in range(-3, 4) for r in range(-3, 4) if abs(q + r) <= 3]
    gangs, all_gangs = ("rubbles", "brambles"), ("brambles", "cesspools", "rubbles", "scrappers")
    return {
        "players": 2,
        "options": {"board": "build", "gangs": "rubbles-brambles", "to_25": False,
                    "rip_off": "whole"},
        "seats": list(gangs), "phase": "act", "turn": 12, "step": 5,
        "order": ["brambles", "rubbles"], "acting": "rubbles", "board": board,
        "pawns": [[1, 1, "rubbles", "wheelbarrow"], [-1, 0, "brambles", "wheelbarrow"]],
        "clubhouses": {"rubbles": [2, 0], "brambles": [-2, 0]},
        "reserves": {g: {"big_brother": 1, "lid": 4, "slingshot": 4, "wheelbarrow": 3}
                     for g in gangs},
        "stacks": {g: {"tough": 0, "wimpy": 0} for g in all_gangs},
        "supplies": {g: {"tough": 10, "wimpy": 10} for g in all_gangs},
        "points": {"brambles": 0, "rubbles": 2}, "challenges": {}, "eliminated": [], "duels": [],
        "wrestled": [], "cancelled": {},
        "ledger": {"moved": [], "fired": [], "rips": [], "changed": [], "beaned": [],
                   "big_brother_out": [], "destroyed": [], "rebuilt": [], "step": 5},
        "winners": [], "end_reason": "", "rng": {"seed": "hand-built", "drawn": 0},
    }


WIN_IN_ONE = WinInOne(
    terrain_vague_last_step(), 0, {"type": "end_step"}, ({"type": "rip", "from": [1, 1], "at": [0, 1]},)
)
