"""The random bot: a uniformly random legal move. The baseline every other bot must beat."""

from __future__ import annotations

import random
from typing import Any

from bots.base import NoMoveToChoose
from rules.base import Move, Rules
from rules.words import msg


def seat_moves(game: Rules, view: dict[str, Any], seat: int, rng: random.Random) -> list[Move]:
    """The seat's legal moves, read from a determinization of its view (the same in all of them)."""
    moves = game.legal_moves(game.sample_state(view, seat, rng), seat)
    if not moves:
        raise NoMoveToChoose(msg("seat {seat} has no move to make in this view", seat=seat))
    return moves


def decide(game: Rules, view: dict[str, Any], seat: int, level: int, rng: random.Random) -> Move:
    return rng.choice(seat_moves(game, view, seat, rng))
