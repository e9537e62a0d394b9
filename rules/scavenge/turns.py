"""A turn of Scavenge: where the seat to move may go, why a destination is refused, what a landing
does."""

from __future__ import annotations

from rules.base import Move
from rules.errors import IllegalMove, NotYourTurn
from rules.scavenge import board
from rules.scavenge.moves import STAY, node_name
from rules.scavenge.state import ScavengeState, begin_turn, finish
from rules.values import evolve
from rules.words import msg

# --- where a token may go --------------------------------------------------------------------


def _other_starts(state: ScavengeState, seat: int) -> int:
    """Start points of the other seats still playing (a seat that left takes its start away)."""
    return sum(1 << state.start_of(s) for s in state.active_seats() if s != seat)


def _other_tokens(state: ScavengeState, seat: int) -> int:
    return sum(1 << state.positions[s] for s in state.active_seats() if s != seat)


def good_stuff_in_centre(state: ScavengeState) -> bool:
    """Lying there, or on the carrier's token standing there."""
    return state.carrier is None or state.positions[state.carrier] == board.CENTRE


def may_end_on_centre(state: ScavengeState, seat: int) -> bool:
    return state.carrier != seat and state.trash[seat] == 0 and good_stuff_in_centre(state)


def _search_limits(state: ScavengeState, seat: int) -> tuple[int, int]:
    """(blocked, endable) masks for the seat's move."""
    squares = board.SQUARES_MASK & ~_other_starts(state, seat)
    if state.carrier == seat:
        tokens = _other_tokens(state, seat)
        return tokens, squares & ~tokens
    centre = board.CENTRE_BIT if may_end_on_centre(state, seat) else 0
    return 0, squares | centre


def destinations(state: ScavengeState, seat: int) -> tuple[int, ...]:
    """Every node the seat to move can end on with its roll (cached by the board search)."""
    blocked, endable = _search_limits(state, seat)
    return board.destinations(
        state.positions[seat],
        state.roll,
        state.carrier == seat,
        state.straight_moves,
        blocked,
        endable,
    )


def legal_moves(state: ScavengeState, seat: int) -> list[Move]:
    if state.over or seat != state.turn:
        return []
    reachable = destinations(state, seat)
    if not reachable:
        return [dict(STAY)]
    return [{"type": "move", "to": node_name(node)} for node in reachable]


# --- checking a move ---------------------------------------------------------------


def check_turn(state: ScavengeState, seat: int) -> None:
    if state.over:
        raise NotYourTurn(msg("the game is over; seat {seat} has nothing to do", seat=seat))
    if seat != state.turn:
        raise NotYourTurn(msg("it is seat {turn}'s turn, not seat {seat}'s", turn=state.turn, seat=seat))


def check_destination(state: ScavengeState, seat: int, node: int | None) -> None:
    reachable = destinations(state, seat)
    if node is None:
        if reachable:
            raise IllegalMove(
                msg("seat {seat} rolled {roll} and can move, so may not stay", seat=seat, roll=state.roll), "must_move"
            )
        return
    if node not in reachable:
        code, why = _why_not(state, seat, node)
        raise IllegalMove(msg("move to {node}: {why}", node=node_name(node), why=why), code)


def _why_not(state: ScavengeState, seat: int, node: int) -> tuple[str, str]:
    """The most telling reason a destination is refused (the first rule it breaks)."""
    carrying = state.carrier == seat
    if state.roll == 0:
        return "roll_is_zero", "the roll is 0, so the only move is to stay"
    if (1 << node) & _other_starts(state, seat):
        return "own_start_only", "no one may end on another player's start point"
    if node == board.CENTRE:
        if carrying:
            return "carrier_keeps_out_of_centre", "the carrier may not go back into the centre"
        if state.trash[seat]:
            return "centre_needs_no_trash", f"seat {seat} still carries {state.trash[seat]} trash"
        if not good_stuff_in_centre(state):
            return "no_good_stuff_in_centre", "the good stuff is not in the centre"
    occupant = _occupant(state, node)
    if carrying and occupant is not None:
        return "carrier_cannot_land_on_token", f"the carrier may not land on seat {occupant}"
    straight = " in one straight line" if state.straight_moves else ""
    return "not_reachable", (
        f"no path of exactly {state.roll} steps{straight} gets there "
        "(no revisits, not through the centre"
        + (", not over tokens)" if carrying else ")")
    )


def _occupant(state: ScavengeState, node: int) -> int | None:
    for seat in state.active_seats():
        if state.positions[seat] == node:
            return seat
    return None


# --- resolving a move ------------------------------------------------------------------------


def resolve(state: ScavengeState, seat: int, node: int | None) -> ScavengeState:
    """The state after a checked move: the token moves, a landing is settled, the good stuff is
    picked up, the game may be won, and otherwise the next seat rolls."""
    if node is not None:
        state = _land(state, seat, node)
        if state.carrier == seat and node == state.start_of(seat):
            return finish(state, seat, "good_stuff_home")
    return begin_turn(state, state.next_active_after(seat))


def _land(state: ScavengeState, seat: int, node: int) -> ScavengeState:
    victim = _occupant(state, node)
    positions = list(state.positions)
    positions[seat] = node
    trash, carrier = list(state.trash), state.carrier
    if victim is not None:
        carrier = _settle_landing(trash, carrier, seat, victim)
        positions[victim] = state.start_of(victim)
    elif node == board.CENTRE:
        carrier = seat  # the good stuff lies there: pick it up
    return evolve(state, positions=tuple(positions), trash=tuple(trash), carrier=carrier)


def _settle_landing(trash: list[int], carrier: int | None, lander: int, victim: int) -> int | None:
    """Trash and good stuff after `lander` lands on `victim` (who then goes home). Returns the
    new carrier; `trash` is updated in place."""
    had_trash = trash[lander] > 0
    if had_trash:
        trash[lander] -= 1
        trash[victim] += 1
    if carrier != victim:
        return carrier
    return None if had_trash else lander  # back to the centre, or stolen
