"""A turn of Space Junkyard: what the mover may do (`legal_moves`) and what it does (`apply_move`),
phase by phase.

Every check is made before anything changes; a refused move raises with a stable code.
"""

from __future__ import annotations

from typing import Any, Callable

from rules.base import Move
from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.fields import require_mapping
from rules.space_junkyard.junk import junk_moves, push_junk
from rules.space_junkyard.movement import (
    buy_steps,
    connect,
    end_move,
    move_moves,
    recycle,
    reenter,
    retrieve,
    step_ship,
)
from rules.space_junkyard.placement import place_ship, start_moves
from rules.space_junkyard.resources import convert, end_resources, produce, resource_moves
from rules.space_junkyard.state import JUNK_PHASE, MOVE_PHASE, OVER, RESOURCES_PHASE, START_PHASE, State
from rules.words import msg

_LEGAL: dict[str, Callable[[State], list[Move]]] = {
    START_PHASE: start_moves,
    RESOURCES_PHASE: resource_moves,
    MOVE_PHASE: move_moves,
    JUNK_PHASE: junk_moves,
}


def legal_moves(state: State, seat: int) -> list[Move]:
    if state.turn.phase == OVER or seat != state.turn.seat:
        return []
    return _LEGAL[state.turn.phase](state)


_HANDLERS: dict[str, tuple[str, Callable[[State, Move], State]]] = {
    "place": (START_PHASE, place_ship),
    "produce": (RESOURCES_PHASE, produce),
    "convert": (RESOURCES_PHASE, convert),
    "end_resources": (RESOURCES_PHASE, end_resources),
    "reenter": (MOVE_PHASE, reenter),
    "step": (MOVE_PHASE, step_ship),
    "buy_steps": (MOVE_PHASE, buy_steps),
    "retrieve": (MOVE_PHASE, retrieve),
    "recycle": (MOVE_PHASE, recycle),
    "connect": (MOVE_PHASE, connect),
    "end_move": (MOVE_PHASE, end_move),
    "push": (JUNK_PHASE, push_junk),
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
        raise MalformedMove(
            msg("no move type {type!r}; known: {known}", type=move["type"], known=known), "unknown_move_type"
        )
    if state.turn.phase == OVER:
        raise IllegalMove(msg("{type}: the game is over", type=move["type"]), "game_over")
    if seat != state.turn.seat:
        raise NotYourTurn(
            msg(
                "{type}: it is seat {seat}'s turn, not seat {seat2}'s",
                type=move["type"],
                seat=state.turn.seat,
                seat2=seat,
            )
        )
    phase, apply_it = handler
    if phase != state.turn.phase:
        raise IllegalMove(
            msg(
                "{type}: that belongs to the {phase_names} phase, and this is the {phase_names2} phase",
                type=move["type"],
                phase_names=_PHASE_NAMES[phase],
                phase_names2=_PHASE_NAMES[state.turn.phase],
            ),
            "wrong_phase",
        )
    return apply_it(state, move)
