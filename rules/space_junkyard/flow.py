"""The steps every phase of a turn shares: the ship to act, what its stores keep of a gain, the draw
of the next tile, the next turn and the end.
"""

from __future__ import annotations

from typing import Any

from rules.space_junkyard.ship import Bag, bag_add, bag_clamp, capacity
from rules.space_junkyard.state import OVER, RESOURCES_PHASE, State, Turn
from rules.values import evolve


def mover(state: State):
    return state.ships[state.turn.seat]


def kept(state: State, stores: Bag) -> Bag:
    """What the mover's working storage keeps of `stores`: the surplus is discarded."""
    return bag_clamp(stores, capacity(mover(state).parts, state.turn.number))


def gained(state: State, resources: Bag) -> Bag:
    """The mover's stores with `resources` added, as far as its working storage holds them."""
    return kept(state, bag_add(mover(state).stores, resources))


def drawing(state: State) -> dict[str, Any]:
    """The state's changes when the top tile is drawn, for a move's single copy of the state."""
    return {"drawn": state.stack[0], "stack": state.stack[1:]}


def draw(state: State) -> State:
    return evolve(state, **drawing(state))


def finish(state: State, reason: str) -> State:
    return evolve(state, drawn=None, end_reason=reason).with_turn(phase=OVER)


def next_turn(state: State) -> State:
    seat = state.turn.seat
    for _ in range(state.players):
        seat = (seat + 1) % state.players
        if not state.ships[seat].out:
            break
    return evolve(state, turn=Turn(seat=seat, number=state.turn.number + 1, phase=RESOURCES_PHASE))
