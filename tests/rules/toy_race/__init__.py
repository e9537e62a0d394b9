"""Toy Race, a game that exists only for the test suite: a race to square 10 with one die.

It proves the promise that a new game touches only its own package. The suite registers it
through `SCRAPYARD_EXTRA_RULES` (tests/conftest.py), and from there it runs through the contract
test, the API tests and the bots' tests with no line of theirs naming it; its test inputs are in
`inputs.py` beside this file.

Rules: two or three seats race along a track; seat 0 starts and turns go round. On its turn a
seat either rolls the die and moves that many squares, or steps one square; a roll that would
carry it past square 10 is lost (the seat stays). The first to reach square 10 wins. A seat that forfeits leaves the race; the last seat left wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules.base import Move, Outcome, Rules
from rules.errors import IllegalMove, NotYourTurn
from rules.fields import require_mapping
from rules.presentation import COLOUR_NAMES, SEAT_COLOURS, item, panel
from rules.rng import Rng
from rules.values import evolve

GOAL = 10
MOVES = ({"type": "roll"}, {"type": "step"})


@dataclass(frozen=True)
class RaceState:
    players: int
    squares: tuple[int, ...]
    turn: int
    rng: Rng  # the future rolls
    out: tuple[int, ...] = ()  # seats that forfeited
    winner: int | None = None


class ToyRace(Rules):
    id = "toy_race"
    title = "Toy Race"
    min_players = 2
    max_players = 3
    chance = True

    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> RaceState:
        self.normalize_options(players, options)
        return RaceState(players=players, squares=(0,) * players, turn=0, rng=Rng(seed))

    def to_act(self, state: RaceState) -> tuple[int, ...]:
        return () if state.winner is not None else (state.turn,)

    def legal_moves(self, state: RaceState, seat: int) -> list[Move]:
        return [dict(move) for move in MOVES] if seat in self.to_act(state) else []

    def apply(self, state: RaceState, seat: int, move: Move) -> RaceState:
        move = require_mapping(move)
        if seat not in self.to_act(state):
            raise NotYourTurn(f"seat {seat} is not to move")
        if move not in MOVES:
            raise IllegalMove(f"a move here is a roll or a step, not {move['type']!r}")
        distance, rng = state.rng.between(1, 6) if move["type"] == "roll" else (1, state.rng)
        if state.squares[seat] + distance > GOAL:
            distance = 0  # overshot: the roll is lost
        squares = tuple(at + distance if s == seat else at for s, at in enumerate(state.squares))
        winner = seat if squares[seat] >= GOAL else None
        return evolve(state, squares=squares, rng=rng, winner=winner, turn=_next(state, seat))

    def view(self, state: RaceState, seat: int | None) -> dict[str, Any]:
        return {
            "players": state.players, "squares": list(state.squares), "turn": state.turn,
            "out": list(state.out), "winner": state.winner,
        }

    def outcome(self, state: RaceState) -> Outcome | None:
        if state.winner is None:
            return None
        scores = tuple(1.0 if seat == state.winner else 0.0 for seat in range(state.players))
        return Outcome(scores=scores, winners=(state.winner,), reason="first to square 10")

    def timeout_move(self, state: RaceState, seat: int) -> Move:
        return {"type": "step"}

    def forfeit(self, state: RaceState, seat: int) -> RaceState:
        out = tuple(sorted({*state.out, seat}))
        left = [s for s in range(state.players) if s not in out]
        state = evolve(state, out=out, turn=_next(evolve(state, out=out), seat) if state.turn == seat else state.turn)
        return evolve(state, winner=left[0]) if len(left) == 1 and state.winner is None else state

    def panels(self, state: RaceState, seat: int | None) -> list[dict[str, Any]]:
        return [
            panel(s, COLOUR_NAMES[SEAT_COLOURS[s]], score=at, resources=[item("to go", GOAL - at)],
                  notes=["won the race"] if state.winner == s else [], out=s in state.out)
            for s, at in enumerate(state.squares)
        ]

    def prompt(self, state: RaceState, seat: int) -> str:
        return f"Roll the die and move that far, or step one square: {GOAL - state.squares[seat]} to go."

    def cells(self, state: RaceState, seat: int | None) -> dict[str, str]:
        return {f"track:{n}": "".join(str(s) for s, at in enumerate(state.squares) if at == n) for n in range(GOAL + 1)}

    def render_text(self, state: RaceState, seat: int | None) -> str:
        lines = [f"seat {s}: " + "#" * at + "." * (GOAL - at) + (" (out)" if s in state.out else "")
                 for s, at in enumerate(state.squares)]
        return "\n".join(lines)

    def dump(self, state: RaceState) -> dict[str, Any]:
        return {**self.view(state, None), "rng": state.rng.dump()}

    def load(self, data: dict[str, Any]) -> RaceState:
        return RaceState(
            players=data["players"], squares=tuple(data["squares"]), turn=data["turn"],
            rng=Rng.load(data["rng"]), out=tuple(data["out"]), winner=data["winner"],
        )

    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> RaceState:
        return self.load({**view, "rng": {"seed": f"{rng.getrandbits(128):032x}", "drawn": 0}})


def _next(state: RaceState, seat: int) -> int:
    """The seat after `seat` that is still in the race."""
    for step in range(1, state.players + 1):
        candidate = (seat + step) % state.players
        if candidate not in state.out:
            return candidate
    return seat


RULES = ToyRace()
