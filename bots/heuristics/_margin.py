"""Shared by the heuristics: turn per-seat standings into shares of the win."""

from __future__ import annotations

import math
from typing import Sequence


def shares(standings: Sequence[float | None], sharpness: float) -> list[float]:
    """A softmax over the standings: a seat `1 / sharpness` ahead weighs e times more.

    A seat whose standing is None (it has left the game) gets nothing.
    """
    top = max((s for s in standings if s is not None), default=0.0)
    weights = [0.0 if s is None else math.exp(sharpness * (s - top)) for s in standings]
    total = sum(weights) or 1.0
    return [w / total for w in weights]
