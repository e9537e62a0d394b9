"""The Scavenge state: an immutable value, and its JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.base import Rng, evolve
from rules.scavenge import board, data


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
    return {
        "players": state.players,
        "straight_moves": state.straight_moves,
        "positions": list(state.positions),
        "trash": list(state.trash),
        "carrier": state.carrier,
        "turn": state.turn,
        "roll": state.roll,
        "rng": state.rng.dump(),
        "winner": state.winner,
        "end_reason": state.end_reason,
    }


def load(dumped: dict[str, Any]) -> ScavengeState:
    return ScavengeState(
        players=dumped["players"],
        straight_moves=dumped["straight_moves"],
        positions=tuple(dumped["positions"]),
        trash=tuple(dumped["trash"]),
        carrier=dumped["carrier"],
        turn=dumped["turn"],
        roll=dumped["roll"],
        rng=Rng.load(dumped["rng"]),
        winner=dumped["winner"],
        end_reason=dumped["end_reason"],
    )
