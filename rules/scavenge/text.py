"""What a seat sees (everything but the seed and future rolls), and its picture as text."""

from __future__ import annotations

import random
from typing import Any

from rules.base import Rng
from rules.scavenge import board, data
from rules.scavenge.play import CENTRE_NAME, node_name
from rules.scavenge.state import ScavengeState


def view(state: ScavengeState) -> dict[str, Any]:
    """The same for every seat and spectators: Scavenge hides nothing but the dice to come."""
    return {
        "players": state.players,
        "options": {"straight_moves": state.straight_moves},
        "seats": [_seat_view(state, seat) for seat in range(state.players)],
        "good_stuff": CENTRE_NAME if state.carrier is None else {"carried_by": state.carrier},
        "turn": state.turn,
        "roll": state.roll,
        "winner": state.winner,
        "end_reason": state.end_reason,
    }


def _seat_view(state: ScavengeState, seat: int) -> dict[str, Any]:
    at = state.positions[seat]
    return {
        "seat": seat,
        "start": list(data.START_CORNERS[state.players][seat]),
        "at": None if at is None else node_name(at),
        "trash": state.trash[seat],
    }


def _node_from_name(name: Any) -> int | None:
    if name is None:
        return None
    return board.CENTRE if name == CENTRE_NAME else board.node_at(*name)


def from_view(seen: dict[str, Any], rng: random.Random) -> ScavengeState:
    """A full state for the view; only the future rolls are unknown, so a fresh seed stands in."""
    good_stuff = seen["good_stuff"]
    return ScavengeState(
        players=seen["players"],
        straight_moves=seen["options"]["straight_moves"],
        positions=tuple(_node_from_name(s["at"]) for s in seen["seats"]),
        trash=tuple(s["trash"] for s in seen["seats"]),
        carrier=None if good_stuff == CENTRE_NAME else good_stuff["carried_by"],
        turn=seen["turn"],
        roll=seen["roll"],
        rng=Rng(f"{rng.getrandbits(128):032x}"),
        winner=seen["winner"],
        end_reason=seen["end_reason"],
    )


# --- the picture -------------------------------------------------------------------------------

LEGEND = (
    "P0-P3: players' tokens (P1* carries the good stuff); s0-s3: start points",
    "[G]: the good stuff in the centre (the four middle cells); [ ]: the empty centre",
)


CELL_WIDTH = 4
HEADER = "    " + "".join(f"{col:^{CELL_WIDTH}}" for col in range(board.SIZE))
EMPTY_CELL = f"{'.':^{CELL_WIDTH}}"


def render(state: ScavengeState, seat: int | None) -> str:
    cells = _cells(state)
    rows = [
        (f"{row:>2}  " + "".join(cells[row * board.SIZE : (row + 1) * board.SIZE])).rstrip()
        for row in range(board.SIZE)
    ]
    title = "Scavenge" + (" (straight moves)" if state.straight_moves else "")
    return "\n".join(
        [title, HEADER.rstrip(), *rows, "", *LEGEND, *_seat_lines(state, seat), _status_line(state)]
    )


def _cells(state: ScavengeState) -> list[str]:
    """Each square's mark, padded to the cell width, indexed by node."""
    cells = [EMPTY_CELL] * (board.SIZE * board.SIZE)
    for seat in state.active_seats():
        cells[state.start_of(seat)] = f"s{seat}".center(CELL_WIDTH)
    centre = "[G]" if state.carrier is None else "[ ]"
    for seat in state.active_seats():
        mark = f"P{seat}" + ("*" if state.carrier == seat else "")
        if state.positions[seat] == board.CENTRE:
            centre = mark
        else:
            cells[state.positions[seat]] = mark.center(CELL_WIDTH)
    for node in board.HOLE_NODES:
        cells[node] = centre.center(CELL_WIDTH)
    return cells


def _seat_lines(state: ScavengeState, viewer: int | None) -> list[str]:
    return [_seat_line(state, seat, viewer) for seat in range(state.players)]


def _seat_line(state: ScavengeState, seat: int, viewer: int | None) -> str:
    you = " (you)" if seat == viewer else ""
    at = state.positions[seat]
    if at is None:
        return f"P{seat}{you}: left the game"
    home = "start row {}, col {}".format(*data.START_CORNERS[state.players][seat])
    where = "the centre" if at == board.CENTRE else "row {}, col {}".format(*board.coords(at))
    goods = ", carries the good stuff" if state.carrier == seat else ""
    return f"P{seat}{you} ({home}): at {where}, trash {state.trash[seat]}{goods}"


def _status_line(state: ScavengeState) -> str:
    if state.over:
        how = "brought the good stuff home" if state.end_reason == "good_stuff_home" else (
            "is the last player left"
        )
        return f"Game over: P{state.winner} {how} and wins."
    return f"P{state.turn} to move, rolled {state.roll}."
