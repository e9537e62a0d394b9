"""Before the first turn: each seat in order places its ship on a free corner.
"""

from __future__ import annotations

from rules import fields
from rules.base import Move
from rules.errors import IllegalMove
from rules.space_junkyard import board
from rules.space_junkyard.state import RESOURCES_PHASE, State, Turn
from rules.values import evolve
from rules.words import msg


def start_moves(state: State) -> list[Move]:
    taken = board.ship_cells(state)
    return [
        {"type": "place", "corner": corner}
        for corner in board.CORNER_NAMES
        if board.corner_cell(corner, state.size) not in taken
    ]


def place_ship(state: State, move: Move) -> State:
    corner = fields.choice(move, "corner", board.CORNER_NAMES, "bad_corner")
    cell = board.corner_cell(corner, state.size)
    if cell in board.ship_cells(state):
        raise IllegalMove(msg("place {corner}: another ship is on that corner", corner=corner), "corner_taken")
    return next_placement(state.with_ship(state.turn.seat, at=cell))


def next_placement(state: State) -> State:
    """The next seat still to place its ship, or, when all have, the first turn."""
    waiting = [
        seat
        for seat in range(state.turn.seat + 1, state.players)
        if not state.ships[seat].out
    ]
    if waiting:
        return state.with_turn(seat=waiting[0])
    first = next(seat for seat, ship in enumerate(state.ships) if not ship.out)
    return evolve(state, turn=Turn(seat=first, number=1, phase=RESOURCES_PHASE))
