"""The resources phase: working sections produce, convertors convert, and the phase ends.
"""

from __future__ import annotations

from rules.base import Move
from rules.errors import IllegalMove
from rules.space_junkyard.data import FREE_STEPS, RESOURCES, SHIP_PARTS
from rules.space_junkyard.flow import gained, kept, mover
from rules.space_junkyard.moves import choice_field, place_field
from rules.space_junkyard.ship import Bag, Part, bag, bag_add, bag_clamp, bag_take, capacity, working
from rules.space_junkyard.state import MOVE_PHASE, State
from rules.words import msg


def _working_part(state: State, place: tuple[int, int], move: Move) -> Part:
    ship, turn = mover(state), state.turn.number
    for part in ship.parts:
        if part.added < turn and (part.x, part.y) == place:  # working (see `working`) and there
            return part
    joined = any((part.x, part.y) == place for part in ship.parts)
    if joined:
        raise IllegalMove(
            msg("{type} at {place}: that section works from next turn", type=move['type'], place=list(place)), "not_working_yet"
        )
    raise IllegalMove(
        msg("{type} at {place}: no section of your ship there", type=move['type'], place=list(place)), "no_section_there"
    )


def _either_or_pick(part: Part, stores: Bag, room: Bag) -> str:
    """Ruling: a producer left unchosen at the end of the phase gives the colour with the most
    free storage (the first printed on a tie), the choice least likely to be wasted."""
    colours = SHIP_PARTS[part.tile].produce
    if len(colours) == 1:  # most producers: nothing to choose
        return colours
    free = {c: room[RESOURCES.index(c)] - stores[RESOURCES.index(c)] for c in colours}
    return max(colours, key=lambda c: (free[c], -colours.index(c)))


def _unproduced(state: State) -> list[Part]:
    ship = mover(state)
    return [
        part
        for part in working(ship.parts, state.turn.number)
        if SHIP_PARTS[part.tile].produce and (part.x, part.y) not in state.turn.produced
    ]


def _conversion_blocker(state: State, part: Part) -> str | None:
    """Why the part cannot convert now, or None. A conversion needs a resource to turn and room
    for what it makes ("while storage allows": turning a resource into one that is discarded at
    once is no conversion)."""
    source, target = SHIP_PARTS[part.tile].convert or (None, None)
    if source is None:
        return "no_conversion"
    ship = mover(state)
    if ship.stores[RESOURCES.index(source)] < 1:
        return "not_enough_resources"
    room = capacity(ship.parts, state.turn.number)
    if ship.stores[RESOURCES.index(target)] >= room[RESOURCES.index(target)]:
        return "no_room"
    return None


def resource_moves(state: State) -> list[Move]:
    moves: list[Move] = []
    for part in _unproduced(state):
        for colour in SHIP_PARTS[part.tile].produce:
            moves.append({"type": "produce", "at": [part.x, part.y], "choice": colour})
    for part in working(mover(state).parts, state.turn.number):
        if _conversion_blocker(state, part) is None:
            moves.append({"type": "convert", "at": [part.x, part.y]})
    moves.append({"type": "end_resources"})
    return moves


def produce(state: State, move: Move) -> State:
    place = place_field(move)
    colour = choice_field(move, "choice", RESOURCES, "bad_resource")
    part = _working_part(state, place, move)
    printed = SHIP_PARTS[part.tile].produce
    if not printed:
        raise IllegalMove(
            msg("produce at {place}: that section produces nothing", place=list(place)), "no_production"
        )
    if place in state.turn.produced:
        raise IllegalMove(
            msg("produce at {place}: it has produced this turn", place=list(place)), "already_produced"
        )
    if colour not in printed:
        raise IllegalMove(
            msg("produce {colour} at {place}: it makes {printed}", colour=colour, place=list(place), printed='/'.join(printed)), "wrong_resource"
        )
    return state.with_mover(
        ship={"stores": gained(state, bag(colour))},
        turn={"produced": (*state.turn.produced, place)},
    )


def convert(state: State, move: Move) -> State:
    place = place_field(move)
    part = _working_part(state, place, move)
    blocker = _conversion_blocker(state, part)
    if blocker is not None:
        reasons = {
            "no_conversion": "that section converts nothing",
            "not_enough_resources": "nothing to convert",
            "no_room": "no room to store what it makes",
        }
        raise IllegalMove(msg("convert at {place}: {reasons}", place=list(place), reasons=reasons[blocker]), blocker)
    source, target = SHIP_PARTS[part.tile].convert
    paid = bag_take(mover(state).stores, bag(source))
    return state.with_ship(state.turn.seat, stores=kept(state, bag_add(paid, bag(target))))


def end_resources(state: State, move: Move) -> State:
    """Ruling: whatever has not produced yet produces now, so ending is always possible."""
    ship = mover(state)
    room = capacity(ship.parts, state.turn.number)
    stores = ship.stores
    for part in _unproduced(state):  # one at a time: each pick sees the room the others left
        stores = bag_clamp(bag_add(stores, bag(_either_or_pick(part, stores, room))), room)
    return state.with_mover(
        ship={"stores": stores}, turn={"phase": MOVE_PHASE, "produced": (), "steps": FREE_STEPS}
    )
