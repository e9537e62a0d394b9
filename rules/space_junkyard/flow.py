"""The steps every phase of a turn shares: the ship to act, its gains and payments, the draw of the
next tile, the next turn and the end.
"""

from __future__ import annotations

from rules.space_junkyard.ship import bag_add, bag_clamp, bag_take, capacity
from rules.space_junkyard.state import OVER, RESOURCES_PHASE, State, Turn
from rules.values import evolve


def mover(state: State):
    return state.ships[state.turn.seat]


def gain(state: State, resources: tuple[int, int, int]) -> State:
    """Adds resources to the mover's stores; what the working storage cannot hold is discarded."""
    ship = mover(state)
    room = capacity(ship.parts, state.turn.number)
    return state.with_ship(state.turn.seat, stores=bag_clamp(bag_add(ship.stores, resources), room))


def pay(state: State, cost: tuple[int, int, int]) -> State:
    return state.with_ship(state.turn.seat, stores=bag_take(mover(state).stores, cost))


def draw(state: State) -> State:
    return evolve(state, drawn=state.stack[0], stack=state.stack[1:])


def finish(state: State, reason: str) -> State:
    return evolve(state, drawn=None, end_reason=reason).with_turn(phase=OVER)


def next_turn(state: State) -> State:
    seat = state.turn.seat
    for _ in range(state.players):
        seat = (seat + 1) % state.players
        if not state.ships[seat].out:
            break
    return evolve(state, turn=Turn(seat=seat, number=state.turn.number + 1, phase=RESOURCES_PHASE))
