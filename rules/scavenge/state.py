"""The Scavenge state: an immutable value, its JSON form, and what a seat sees of it."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules import codec
from rules.rng import Rng
from rules.scavenge import board, data
from rules.scavenge.moves import CENTRE_NAME, node_name
from rules.values import evolve


@dataclass(frozen=True)
class ScavengeState:
    """Everything about a game of Scavenge.

    `positions[seat]` is the node of the seat's token (`board.CENTRE` for the centre), None once
    the seat has left the game. `carrier` is the seat carrying the good stuff, None while it lies
    in the centre. `roll` is the die already rolled for `turn`, the seat to move (both None once
    the game is over). `rng` holds the future rolls.
    """

    players: int
    straight_moves: bool
    positions: tuple[int | None, ...]
    trash: tuple[int, ...]
    carrier: int | None
    turn: int | None
    roll: int | None
    rng: Rng
    winner: int | None = None
    end_reason: str | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def start_of(self, seat: int) -> int:
        return board.node_at(*data.START_CORNERS[self.players][seat])

    def active_seats(self) -> tuple[int, ...]:
        return tuple(s for s, at in enumerate(self.positions) if at is not None)

    def next_active_after(self, seat: int) -> int:
        for offset in range(1, self.players + 1):
            candidate = (seat + offset) % self.players
            if self.positions[candidate] is not None:
                return candidate
        raise AssertionError("no active seat left")


def begin_turn(state: ScavengeState, seat: int) -> ScavengeState:
    """Hand the turn to `seat` and roll the die for it, in the open."""
    roll, rng = state.rng.below(data.DIE_FACES)
    return evolve(state, turn=seat, roll=roll, rng=rng)


def finish(state: ScavengeState, winner: int, reason: str) -> ScavengeState:
    return evolve(state, winner=winner, end_reason=reason, turn=None, roll=None)


def dump(state: ScavengeState) -> dict[str, Any]:
    return codec.dump(state)


def load(dumped: dict[str, Any]) -> ScavengeState:
    return codec.load(ScavengeState, dumped)


# --- what a seat sees -----------------------------------------------------------------------


def view(state: ScavengeState) -> dict[str, Any]:
    """The same for every seat and spectators: Scavenge hides nothing but the dice to come.
    `board` is the printed board (its size and the hole's squares), for a client to draw."""
    return {
        "players": state.players,
        "options": {"straight_moves": state.straight_moves},
        "board": {"size": data.BOARD_SIZE, "hole": [list(square) for square in data.HOLE]},
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
