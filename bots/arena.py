"""Bots playing a whole game against each other, from views only: for tests and benchmarks.

The service plays bot seats through its own workers; this is the same loop without a database.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import bots
from rules.base import Move, Outcome, Rules, State


@dataclass(frozen=True)
class Seat:
    bot: str
    level: int


@dataclass
class Match:
    """A finished (or abandoned) game and what each seat spent thinking."""

    state: State
    outcome: Outcome | None
    actions: int
    decisions: dict[int, int] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)  # CPU seconds thinking, by seat
    longest: dict[int, float] = field(default_factory=dict)  # each seat's slowest decision (CPU)
    moves: list[tuple[int, Move]] = field(default_factory=list)  # (seat, move), in order


def play(game: Rules, players: int, options: dict[str, Any] | None, game_seed: str,
         seats: dict[int, Seat], max_actions: int = 20_000) -> Match:
    """Play from setup until the end (or `max_actions`); in a simultaneous step, the first seat
    listed moves first. Each decision's seed is the game seed and the action number."""
    state = game.setup(players, options, game_seed)
    match = Match(state, None, 0)
    last_seat, in_a_row = None, 0
    while match.actions < max_actions and game.outcome(state) is None:
        seat = game.to_act(state)[0]
        in_a_row = in_a_row if seat == last_seat else 0
        started = time.process_time()  # CPU: what a decision costs, however loaded the machine
        spec = seats[seat]
        move = bots.choose_move(game, game.view(state, seat), seat, bot=spec.bot,
                               level=spec.level, seed=f"{game_seed}:{match.actions}", in_a_row=in_a_row)
        last_seat, in_a_row = seat, in_a_row + 1
        spent = time.process_time() - started
        match.seconds[seat] = match.seconds.get(seat, 0.0) + spent
        match.longest[seat] = max(match.longest.get(seat, 0.0), spent)
        match.decisions[seat] = match.decisions.get(seat, 0) + 1
        state = game.apply(state, seat, move)
        match.moves.append((seat, move))
        match.actions += 1
    match.state, match.outcome = state, game.outcome(state)
    return match
