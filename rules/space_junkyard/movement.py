"""The movement phase: steps, bought steps, re-entry after a push, and taking the tile under the
ship (asteroids retrieved, sections recycled or connected).

No message names a tile that is not already in sight of all, so errors never tell the stack's
order.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules.base import Move
from rules.errors import IllegalMove
from rules.space_junkyard import board
from rules.space_junkyard.data import (
    ASTEROIDS,
    ASTEROIDS_PER_TURN,
    BOUGHT_STEPS,
    BOUGHT_STEPS_COST,
    SECTIONS,
    SECTIONS_PER_TURN,
)
from rules.space_junkyard.flow import drawing, gained, mover
from rules.space_junkyard.moves import choice_field, entry_field, place_field
from rules.space_junkyard.ship import (
    ROTATIONS,
    Bag,
    Part,
    bag,
    bag_covers,
    bag_take,
    by_place,
    joint_cost,
    joint_cost_at,
    open_places,
)
from rules.space_junkyard.state import JUNK_PHASE, State
from rules.words import msg


def _tile_under(state: State) -> str | None:
    ship = mover(state)
    return None if ship.at is None else state.cell(*ship.at)


def _cleared_under(state: State, gone: bool) -> dict[str, Any]:
    """The state's changes when the tile under the mover's ship is taken (`gone`: for good)."""
    x, y = mover(state).at
    cells = list(state.cells)
    tile = cells[y * state.size + x]
    cells[y * state.size + x] = None
    return {"cells": tuple(cells), "gone": (*state.gone, tile) if gone else state.gone}


def _retrieval_blocker(state: State, wants_section: bool) -> str | None:
    turn = state.turn
    if turn.sections >= SECTIONS_PER_TURN:
        return "retrieval_used"
    if wants_section and turn.asteroids:
        return "retrieval_used"
    if not wants_section and turn.asteroids >= ASTEROIDS_PER_TURN:
        return "retrieval_used"
    return None


def _reenter_moves(state: State) -> list[Move]:
    ship, taken = mover(state), board.ship_cells(state)
    return [
        {"type": "reenter", "entry": f"{ship.off_side}{line}"}
        for line in range(1, state.size + 1)
        if board.border_cell(f"{ship.off_side}{line}", state.size) not in taken
    ]


def _step_moves(state: State, at: tuple[int, int]) -> list[Move]:
    if state.turn.steps <= 0:
        return []
    taken = [ship.at for ship in state.ships]
    return [
        {"type": "step", "dir": direction}
        for direction, target in board.neighbours(at, state.size)
        if target not in taken
    ]


def _connect_moves(state: State, tile: str) -> list[Move]:
    ship = mover(state)
    return [{"type": "connect", "at": list(place), "rotation": rotation}
            for place, rotation in _connections(ship.parts, ship.stores, tile)]


@lru_cache(maxsize=4096)
def _connections(parts: tuple[Part, ...], stores: Bag, tile: str) -> tuple[tuple, ...]:
    """Where and how the section may join the ship and be paid for. A pure function of its
    arguments, and searches ask it again and again for the same ship, so it is memoised."""
    section, places = SECTIONS[tile], by_place(parts)
    found = []
    for place in open_places(parts):
        for rotation in ROTATIONS:
            verdict, cost = joint_cost_at(places, section, place, rotation)
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


def move_moves(state: State) -> list[Move]:
    ship = mover(state)
    if ship.at is None:
        return _reenter_moves(state)
    moves = _step_moves(state, ship.at)
    if not state.turn.bought and bag_covers(ship.stores, bag(BOUGHT_STEPS_COST)):
        moves.append({"type": "buy_steps"})
    moves += _retrieval_moves(state)
    moves.append({"type": "end_move"})
    return moves


def _on_map_or_refuse(state: State, move: Move) -> tuple[int, int]:
    at = mover(state).at
    if at is None:
        raise IllegalMove(
            msg("{type}: your ship is off the map; reenter first", type=move['type']), "must_reenter"
        )
    return at


def reenter(state: State, move: Move) -> State:
    entry = entry_field(state, move)
    ship = mover(state)
    if ship.at is not None:
        raise IllegalMove(msg("reenter {entry}: your ship is on the map", entry=entry), "on_the_map")
    if entry[0] != ship.off_side:
        raise IllegalMove(
            msg("reenter {entry}: your ship left by the {off_side} side", entry=entry, off_side=ship.off_side), "wrong_side"
        )
    cell = board.border_cell(entry, state.size)
    if cell in board.ship_cells(state):
        raise IllegalMove(msg("reenter {entry}: another ship is there", entry=entry), "cell_taken")
    return state.with_ship(state.turn.seat, at=cell, off_side=None)


_DIRECTIONS = tuple(board.STEPS)


def step_ship(state: State, move: Move) -> State:
    direction = choice_field(move, "dir", _DIRECTIONS, "bad_direction")
    x, y = _on_map_or_refuse(state, move)
    if state.turn.steps <= 0:
        raise IllegalMove(msg("step {direction}: no steps left this turn", direction=direction), "no_steps_left")
    dx, dy = board.STEPS[direction]
    target = (x + dx, y + dy)
    if not board.on_map(*target, state.size):
        raise IllegalMove(msg("step {direction}: that leaves the map", direction=direction), "off_map")
    if target in board.ship_cells(state):
        raise IllegalMove(msg("step {direction}: another ship is there", direction=direction), "cell_taken")
    return state.with_mover(ship={"at": target}, turn={"steps": state.turn.steps - 1})


def buy_steps(state: State, move: Move) -> State:
    _on_map_or_refuse(state, move)
    if state.turn.bought:
        raise IllegalMove(msg("buy_steps: extra steps are bought once a turn"), "already_bought")
    cost = bag(BOUGHT_STEPS_COST)
    if not bag_covers(mover(state).stores, cost):
        raise IllegalMove(
            msg("buy_steps: it costs one radioactive and you have none"), "not_enough_resources"
        )
    return state.with_mover(
        ship={"stores": bag_take(mover(state).stores, cost)},
        turn={"bought": True, "steps": state.turn.steps + BOUGHT_STEPS},
    )


def _tile_to_take(state: State, move: Move, kind: dict, wants_section: bool) -> str:
    _on_map_or_refuse(state, move)
    tile = _tile_under(state)
    if tile is None:
        raise IllegalMove(msg("{type}: there is no tile under your ship", type=move['type']), "no_tile")
    if tile not in kind:
        what = "a ship section" if wants_section else "an asteroid"
        raise IllegalMove(msg("{type}: {tile} under your ship is not {what}", type=move['type'], tile=tile, what=what), "wrong_tile")
    blocker = _retrieval_blocker(state, wants_section)
    if blocker is not None:
        raise IllegalMove(
            msg("{type}: a turn takes {asteroids_per_turn} asteroids or {sections_per_turn} section", type=move['type'], asteroids_per_turn=ASTEROIDS_PER_TURN, sections_per_turn=SECTIONS_PER_TURN),
            blocker,
        )
    return tile


def retrieve(state: State, move: Move) -> State:
    tile = _tile_to_take(state, move, ASTEROIDS, False)
    return state.with_mover(
        ship={"stores": gained(state, bag(ASTEROIDS[tile]))},
        turn={"asteroids": state.turn.asteroids + 1},
        **_cleared_under(state, gone=True),
    )


def recycle(state: State, move: Move) -> State:
    tile = _tile_to_take(state, move, SECTIONS, True)
    return state.with_mover(
        ship={"stores": gained(state, bag(SECTIONS[tile].recycle))},
        turn={"sections": state.turn.sections + 1},
        **_cleared_under(state, gone=True),
    )


_JOINT_REASONS = {
    "place_taken": "your ship already has a section there",
    "edges_do_not_match": "an open edge would meet a closed one",
    "no_open_joint": "no opening of it meets an opening of your ship",
}


def connect(state: State, move: Move) -> State:
    place = place_field(move)
    rotation = choice_field(move, "rotation", ROTATIONS, "bad_rotation")
    tile = _tile_to_take(state, move, SECTIONS, True)
    ship = mover(state)
    verdict, cost = joint_cost(ship.parts, SECTIONS[tile], place, rotation)
    named = f"connect {tile} at {list(place)} turned {rotation}"
    if verdict != "ok":
        raise IllegalMove(msg("{named}: {joint_reasons}", named=named, joint_reasons=_JOINT_REASONS[verdict]), verdict)
    if not bag_covers(ship.stores, cost):
        raise IllegalMove(msg("{named}: the joints cost more than you have", named=named), "not_enough_resources")
    part = Part(place[0], place[1], tile, rotation, state.turn.number)
    return state.with_mover(
        ship={"stores": bag_take(ship.stores, cost), "parts": (*ship.parts, part)},
        turn={"sections": state.turn.sections + 1},
        **_cleared_under(state, gone=False),
    )


def end_move(state: State, move: Move) -> State:
    _on_map_or_refuse(state, move)
    return state.with_mover(turn={"phase": JUNK_PHASE, "steps": 0}, **drawing(state))
