"""The four phases of a turn: what the mover may do (`legal_moves`) and what it does (`apply_move`).

Every check is made before anything changes; a refused move raises with a stable code. No message
names a tile that is not already in sight of all, so errors never tell the stack's order.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from rules.base import IllegalMove, MalformedMove, Move, NotYourTurn, evolve, require_mapping
from rules.space_junkyard import board
from rules.space_junkyard.data import (
    ASTEROIDS,
    ASTEROIDS_PER_TURN,
    BOUGHT_STEPS,
    BOUGHT_STEPS_COST,
    FREE_STEPS,
    RESOURCES,
    SECTIONS,
    SECTIONS_PER_TURN,
    SHIP_PARTS,
)
from rules.space_junkyard.ship import (
    ROTATIONS,
    Bag,
    Part,
    bag,
    bag_add,
    bag_covers,
    bag_clamp,
    bag_take,
    capacity,
    joint_cost,
    open_places,
    working,
)
from rules.space_junkyard.state import (
    JUNK_PHASE,
    MOVE_PHASE,
    OVER,
    RESOURCES_PHASE,
    START_PHASE,
    State,
    Turn,
)

# --- reading the move --------------------------------------------------------------------------


def _place_field(move: Move, key: str = "at") -> tuple[int, int]:
    value = move.get(key)
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise MalformedMove(f'{move["type"]} needs "{key}" as [x, y], not {value!r}', "bad_place")
    return value[0], value[1]


def _choice_field(move: Move, key: str, allowed: tuple, code: str) -> Any:
    value = move.get(key)
    if value not in allowed or isinstance(value, bool):
        names = ", ".join(repr(a) for a in allowed)
        raise MalformedMove(f'{move["type"]} needs "{key}" as one of {names}, not {value!r}', code)
    return value


def _entry_field(state: State, move: Move) -> str:
    entry = move.get("entry")
    shaped = isinstance(entry, str) and entry[:1] in board.OPPOSITE_SIDE and entry[1:].isdigit()
    if not shaped:
        raise MalformedMove(f'{move["type"]} needs "entry" like "N3", not {entry!r}', "bad_entry")
    if board.parse_entry(entry, state.size) is None:
        raise IllegalMove(
            f"{move['type']} {entry}: the map has lines 1 to {state.size} on each side",
            "out_of_range",
        )
    return entry


# --- helpers over the state --------------------------------------------------------------------


def _mover(state: State):
    return state.ships[state.turn.seat]


def _gain(state: State, resources: tuple[int, int, int]) -> State:
    """Adds resources to the mover's stores; what the working storage cannot hold is discarded."""
    ship = _mover(state)
    room = capacity(ship.parts, state.turn.number)
    return state.with_ship(state.turn.seat, stores=bag_clamp(bag_add(ship.stores, resources), room))


def _pay(state: State, cost: tuple[int, int, int]) -> State:
    return state.with_ship(state.turn.seat, stores=bag_take(_mover(state).stores, cost))


def _working_part(state: State, place: tuple[int, int], move: Move) -> Part:
    ship = _mover(state)
    for part in working(ship.parts, state.turn.number):
        if (part.x, part.y) == place:
            return part
    joined = any((part.x, part.y) == place for part in ship.parts)
    if joined:
        raise IllegalMove(
            f"{move['type']} at {list(place)}: that section works from next turn", "not_working_yet"
        )
    raise IllegalMove(
        f"{move['type']} at {list(place)}: no section of your ship there", "no_section_there"
    )


def _either_or_pick(state: State, part: Part) -> str:
    """Ruling: a producer left unchosen at the end of the phase gives the colour with the most
    free storage (the first printed on a tie), the choice least likely to be wasted."""
    ship = _mover(state)
    room = capacity(ship.parts, state.turn.number)
    colours = SHIP_PARTS[part.tile].produce
    free = {c: room[RESOURCES.index(c)] - ship.stores[RESOURCES.index(c)] for c in colours}
    return max(colours, key=lambda c: (free[c], -colours.index(c)))


def _unproduced(state: State) -> list[Part]:
    ship = _mover(state)
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
    ship = _mover(state)
    if ship.stores[RESOURCES.index(source)] < 1:
        return "not_enough_resources"
    room = capacity(ship.parts, state.turn.number)
    if ship.stores[RESOURCES.index(target)] >= room[RESOURCES.index(target)]:
        return "no_room"
    return None


def _tile_under(state: State) -> str | None:
    ship = _mover(state)
    return None if ship.at is None else state.cell(*ship.at)


def _clear_under(state: State, gone: bool) -> State:
    x, y = _mover(state).at
    cells = list(state.cells)
    tile = cells[y * state.size + x]
    cells[y * state.size + x] = None
    return evolve(state, cells=tuple(cells), gone=(*state.gone, tile) if gone else state.gone)


def forbidden_entries(state: State) -> set[str]:
    """Entries opposite to those another player pushed in since the mover's last turn (the
    book's "for a full round"). The mover's own pushes of this turn restrict nothing."""
    seat = state.turn.seat
    earlier = state.recent[: len(state.recent) - state.turn.pushes]
    forbidden = set()
    for pusher, entry in reversed(earlier):
        if pusher == seat:
            break
        forbidden.add(board.opposite_entry(entry))
    return forbidden


def _retrieval_blocker(state: State, wants_section: bool) -> str | None:
    turn = state.turn
    if turn.sections >= SECTIONS_PER_TURN:
        return "retrieval_used"
    if wants_section and turn.asteroids:
        return "retrieval_used"
    if not wants_section and turn.asteroids >= ASTEROIDS_PER_TURN:
        return "retrieval_used"
    return None


# --- legal moves -------------------------------------------------------------------------------


def _start_moves(state: State) -> list[Move]:
    taken = board.ship_cells(state)
    return [
        {"type": "place", "corner": corner}
        for corner in board.CORNER_NAMES
        if board.corner_cell(corner, state.size) not in taken
    ]


def _resource_moves(state: State) -> list[Move]:
    moves: list[Move] = []
    for part in _unproduced(state):
        for colour in SHIP_PARTS[part.tile].produce:
            moves.append({"type": "produce", "at": [part.x, part.y], "choice": colour})
    for part in working(_mover(state).parts, state.turn.number):
        if _conversion_blocker(state, part) is None:
            moves.append({"type": "convert", "at": [part.x, part.y]})
    moves.append({"type": "end_resources"})
    return moves


def _reenter_moves(state: State) -> list[Move]:
    ship, taken = _mover(state), board.ship_cells(state)
    return [
        {"type": "reenter", "entry": f"{ship.off_side}{line}"}
        for line in range(1, state.size + 1)
        if board.border_cell(f"{ship.off_side}{line}", state.size) not in taken
    ]


def _step_moves(state: State) -> list[Move]:
    if state.turn.steps <= 0:
        return []
    (x, y), taken = _mover(state).at, board.ship_cells(state)
    moves = []
    for direction, (dx, dy) in board.STEPS.items():
        target = (x + dx, y + dy)
        if board.on_map(*target, state.size) and target not in taken:
            moves.append({"type": "step", "dir": direction})
    return moves


def _connect_moves(state: State, tile: str) -> list[Move]:
    ship = _mover(state)
    return [{"type": "connect", "at": list(place), "rotation": rotation}
            for place, rotation in _connections(ship.parts, ship.stores, tile)]


@lru_cache(maxsize=4096)
def _connections(parts: tuple[Part, ...], stores: Bag, tile: str) -> tuple[tuple, ...]:
    """Where and how the section may join the ship and be paid for. A pure function of its
    arguments, and searches ask it again and again for the same ship, so it is memoised."""
    section = SECTIONS[tile]
    found = []
    for place in open_places(parts):
        for rotation in ROTATIONS:
            verdict, cost = joint_cost(parts, section, place, rotation)
            if verdict == "ok" and bag_covers(stores, cost):
                found.append((place, rotation))
    return tuple(found)


def _retrieval_moves(state: State) -> list[Move]:
    tile = _tile_under(state)
    if tile in ASTEROIDS and _retrieval_blocker(state, False) is None:
        return [{"type": "retrieve"}]
    if tile in SECTIONS and _retrieval_blocker(state, True) is None:
        return [{"type": "recycle"}, *_connect_moves(state, tile)]
    return []


def _move_moves(state: State) -> list[Move]:
    if _mover(state).at is None:
        return _reenter_moves(state)
    moves = _step_moves(state)
    if not state.turn.bought and bag_covers(_mover(state).stores, bag(BOUGHT_STEPS_COST)):
        moves.append({"type": "buy_steps"})
    moves += _retrieval_moves(state)
    moves.append({"type": "end_move"})
    return moves


def _junk_moves(state: State) -> list[Move]:
    forbidden = forbidden_entries(state)
    entries = board.all_entries(state.size)
    return [{"type": "push", "entry": entry} for entry in entries if entry not in forbidden]


_LEGAL: dict[str, Callable[[State], list[Move]]] = {
    START_PHASE: _start_moves,
    RESOURCES_PHASE: _resource_moves,
    MOVE_PHASE: _move_moves,
    JUNK_PHASE: _junk_moves,
}


def legal_moves(state: State, seat: int) -> list[Move]:
    if state.turn.phase == OVER or seat != state.turn.seat:
        return []
    return _LEGAL[state.turn.phase](state)


# --- placing the ships ------------------------------------------------------------------------


def _place(state: State, move: Move) -> State:
    corner = _choice_field(move, "corner", board.CORNER_NAMES, "bad_corner")
    cell = board.corner_cell(corner, state.size)
    if cell in board.ship_cells(state):
        raise IllegalMove(f"place {corner}: another ship is on that corner", "corner_taken")
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


# --- resources phase ---------------------------------------------------------------------------


def _produce(state: State, move: Move) -> State:
    place = _place_field(move)
    colour = _choice_field(move, "choice", RESOURCES, "bad_resource")
    part = _working_part(state, place, move)
    printed = SHIP_PARTS[part.tile].produce
    if not printed:
        raise IllegalMove(
            f"produce at {list(place)}: that section produces nothing", "no_production"
        )
    if place in state.turn.produced:
        raise IllegalMove(
            f"produce at {list(place)}: it has produced this turn", "already_produced"
        )
    if colour not in printed:
        raise IllegalMove(
            f"produce {colour} at {list(place)}: it makes {'/'.join(printed)}", "wrong_resource"
        )
    state = state.with_turn(produced=(*state.turn.produced, place))
    return _gain(state, bag(colour))


def _convert(state: State, move: Move) -> State:
    place = _place_field(move)
    part = _working_part(state, place, move)
    blocker = _conversion_blocker(state, part)
    if blocker is not None:
        reasons = {
            "no_conversion": "that section converts nothing",
            "not_enough_resources": "nothing to convert",
            "no_room": "no room to store what it makes",
        }
        raise IllegalMove(f"convert at {list(place)}: {reasons[blocker]}", blocker)
    source, target = SHIP_PARTS[part.tile].convert
    state = _pay(state, bag(source))
    return _gain(state, bag(target))


def _end_resources(state: State, move: Move) -> State:
    """Ruling: whatever has not produced yet produces now, so ending is always possible."""
    for part in _unproduced(state):
        state = _gain(state, bag(_either_or_pick(state, part)))
    return state.with_turn(phase=MOVE_PHASE, produced=(), steps=FREE_STEPS)


# --- movement and retrieval --------------------------------------------------------------------


def _on_map_or_refuse(state: State, move: Move) -> tuple[int, int]:
    at = _mover(state).at
    if at is None:
        raise IllegalMove(
            f"{move['type']}: your ship is off the map; reenter first", "must_reenter"
        )
    return at


def _reenter(state: State, move: Move) -> State:
    entry = _entry_field(state, move)
    ship = _mover(state)
    if ship.at is not None:
        raise IllegalMove(f"reenter {entry}: your ship is on the map", "on_the_map")
    if entry[0] != ship.off_side:
        raise IllegalMove(
            f"reenter {entry}: your ship left by the {ship.off_side} side", "wrong_side"
        )
    cell = board.border_cell(entry, state.size)
    if cell in board.ship_cells(state):
        raise IllegalMove(f"reenter {entry}: another ship is there", "cell_taken")
    return state.with_ship(state.turn.seat, at=cell, off_side=None)


def _step(state: State, move: Move) -> State:
    direction = _choice_field(move, "dir", tuple(board.STEPS), "bad_direction")
    x, y = _on_map_or_refuse(state, move)
    if state.turn.steps <= 0:
        raise IllegalMove(f"step {direction}: no steps left this turn", "no_steps_left")
    dx, dy = board.STEPS[direction]
    target = (x + dx, y + dy)
    if not board.on_map(*target, state.size):
        raise IllegalMove(f"step {direction}: that leaves the map", "off_map")
    if target in board.ship_cells(state):
        raise IllegalMove(f"step {direction}: another ship is there", "cell_taken")
    state = state.with_ship(state.turn.seat, at=target)
    return state.with_turn(steps=state.turn.steps - 1)


def _buy_steps(state: State, move: Move) -> State:
    _on_map_or_refuse(state, move)
    if state.turn.bought:
        raise IllegalMove("buy_steps: extra steps are bought once a turn", "already_bought")
    cost = bag(BOUGHT_STEPS_COST)
    if not bag_covers(_mover(state).stores, cost):
        raise IllegalMove(
            "buy_steps: it costs one radioactive and you have none", "not_enough_resources"
        )
    state = _pay(state, cost)
    return state.with_turn(bought=True, steps=state.turn.steps + BOUGHT_STEPS)


def _tile_to_take(state: State, move: Move, kind: dict, wants_section: bool) -> str:
    _on_map_or_refuse(state, move)
    tile = _tile_under(state)
    if tile is None:
        raise IllegalMove(f"{move['type']}: there is no tile under your ship", "no_tile")
    if tile not in kind:
        what = "a ship section" if wants_section else "an asteroid"
        raise IllegalMove(f"{move['type']}: {tile} under your ship is not {what}", "wrong_tile")
    blocker = _retrieval_blocker(state, wants_section)
    if blocker is not None:
        raise IllegalMove(
            f"{move['type']}: a turn takes {ASTEROIDS_PER_TURN} asteroids "
            f"or {SECTIONS_PER_TURN} section",
            blocker,
        )
    return tile


def _retrieve(state: State, move: Move) -> State:
    tile = _tile_to_take(state, move, ASTEROIDS, False)
    state = _clear_under(state, gone=True).with_turn(asteroids=state.turn.asteroids + 1)
    return _gain(state, bag(ASTEROIDS[tile]))


def _recycle(state: State, move: Move) -> State:
    tile = _tile_to_take(state, move, SECTIONS, True)
    state = _clear_under(state, gone=True).with_turn(sections=state.turn.sections + 1)
    return _gain(state, bag(SECTIONS[tile].recycle))


_JOINT_REASONS = {
    "place_taken": "your ship already has a section there",
    "edges_do_not_match": "an open edge would meet a closed one",
    "no_open_joint": "no opening of it meets an opening of your ship",
}


def _connect(state: State, move: Move) -> State:
    place = _place_field(move)
    rotation = _choice_field(move, "rotation", ROTATIONS, "bad_rotation")
    tile = _tile_to_take(state, move, SECTIONS, True)
    ship = _mover(state)
    verdict, cost = joint_cost(ship.parts, SECTIONS[tile], place, rotation)
    named = f"connect {tile} at {list(place)} turned {rotation}"
    if verdict != "ok":
        raise IllegalMove(f"{named}: {_JOINT_REASONS[verdict]}", verdict)
    if not bag_covers(ship.stores, cost):
        raise IllegalMove(f"{named}: the joints cost more than you have", "not_enough_resources")
    part = Part(place[0], place[1], tile, rotation, state.turn.number)
    state = _pay(_clear_under(state, gone=False), cost)
    state = state.with_ship(state.turn.seat, parts=(*ship.parts, part))
    return state.with_turn(sections=state.turn.sections + 1)


def _draw(state: State) -> State:
    return evolve(state, drawn=state.stack[0], stack=state.stack[1:])


def _end_move(state: State, move: Move) -> State:
    _on_map_or_refuse(state, move)
    return _draw(state).with_turn(phase=JUNK_PHASE, steps=0)


# --- new junk ----------------------------------------------------------------------------------


def _push(state: State, move: Move) -> State:
    entry = _entry_field(state, move)
    if entry in forbidden_entries(state):
        raise IllegalMove(
            f"push {entry}: another player pushed in at {board.opposite_entry(entry)} "
            "since your last turn",
            "opposite_entry",
        )
    state = board.push(state, entry, state.drawn)
    recent = (*state.recent, (state.turn.seat, entry))[-2 * state.players :]
    state = evolve(state, drawn=None, recent=recent).with_turn(pushes=state.turn.pushes + 1)
    return _after_push(state)


def _after_push(state: State) -> State:
    """With `more_junk` a turn that took two asteroids pushes a second tile; the game ends right
    after the push that empties the stack."""
    if not state.stack:
        return finish(state, "stack_empty")
    extra = state.options.more_junk and state.turn.asteroids == ASTEROIDS_PER_TURN
    if extra and state.turn.pushes == 1:
        return _draw(state)
    return next_turn(state)


def finish(state: State, reason: str) -> State:
    return evolve(state, drawn=None, end_reason=reason).with_turn(phase=OVER)


def next_turn(state: State) -> State:
    seat = state.turn.seat
    for _ in range(state.players):
        seat = (seat + 1) % state.players
        if not state.ships[seat].out:
            break
    return evolve(state, turn=Turn(seat=seat, number=state.turn.number + 1, phase=RESOURCES_PHASE))


# --- dispatch ----------------------------------------------------------------------------------

_HANDLERS: dict[str, tuple[str, Callable[[State, Move], State]]] = {
    "place": (START_PHASE, _place),
    "produce": (RESOURCES_PHASE, _produce),
    "convert": (RESOURCES_PHASE, _convert),
    "end_resources": (RESOURCES_PHASE, _end_resources),
    "reenter": (MOVE_PHASE, _reenter),
    "step": (MOVE_PHASE, _step),
    "buy_steps": (MOVE_PHASE, _buy_steps),
    "retrieve": (MOVE_PHASE, _retrieve),
    "recycle": (MOVE_PHASE, _recycle),
    "connect": (MOVE_PHASE, _connect),
    "end_move": (MOVE_PHASE, _end_move),
    "push": (JUNK_PHASE, _push),
}

_PHASE_NAMES = {
    START_PHASE: "start",
    RESOURCES_PHASE: "resources",
    MOVE_PHASE: "movement",
    JUNK_PHASE: "new junk",
}


def apply_move(state: State, seat: int, move: Any) -> State:
    move = require_mapping(move)
    handler = _HANDLERS.get(move["type"])
    if handler is None:
        known = ", ".join(_HANDLERS)
        raise MalformedMove(f"no move type {move['type']!r}; known: {known}", "unknown_move_type")
    if state.turn.phase == OVER:
        raise IllegalMove(f"{move['type']}: the game is over", "game_over")
    if seat != state.turn.seat:
        raise NotYourTurn(f"{move['type']}: it is seat {state.turn.seat}'s turn, not seat {seat}'s")
    phase, apply_it = handler
    if phase != state.turn.phase:
        raise IllegalMove(
            f"{move['type']}: that belongs to the {_PHASE_NAMES[phase]} phase, "
            f"and this is the {_PHASE_NAMES[state.turn.phase]} phase",
            "wrong_phase",
        )
    return apply_it(state, move)
