"""Chance: the one random source a game may use, derived from the seed recorded in its log."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Sequence


@dataclass(frozen=True)
class Rng:
    """A deterministic, immutable random source carried inside a game state.

    Draw number n is SHA-256 of "seed:n", so the same seed always gives the same draws on any
    machine and Python version, and a state holding an `Rng` can be dumped and loaded exactly.
    Each draw returns the value and the advanced generator: `value, rng = rng.below(6)`.
    """

    seed: str
    drawn: int = 0

    def _bits(self) -> int:
        digest = hashlib.sha256(f"{self.seed}:{self.drawn}".encode()).digest()
        return int.from_bytes(digest, "big")

    def below(self, n: int) -> tuple[int, Rng]:
        """A uniform int in [0, n). The 256-bit draw makes the modulo bias negligible."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        return self._bits() % n, Rng(self.seed, self.drawn + 1)

    def between(self, low: int, high: int) -> tuple[int, Rng]:
        """A uniform int in [low, high], both ends included."""
        value, rng = self.below(high - low + 1)
        return low + value, rng

    def choice(self, items: Sequence[Any]) -> tuple[Any, Rng]:
        index, rng = self.below(len(items))
        return items[index], rng

    def shuffled(self, items: Iterable[Any]) -> tuple[tuple[Any, ...], Rng]:
        """Fisher-Yates over a copy; returns a tuple."""
        pool, rng = list(items), self
        for i in range(len(pool) - 1, 0, -1):
            j, rng = rng.below(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        return tuple(pool), rng

    def salt(self) -> tuple[str, Rng]:
        """A secret hex salt for a commitment; unguessable while the seed is secret."""
        return f"{self._bits():064x}", Rng(self.seed, self.drawn + 1)

    def dump(self) -> dict[str, Any]:
        return {"seed": self.seed, "drawn": self.drawn}

    @classmethod
    def load(cls, data: dict[str, Any]) -> Rng:
        return cls(seed=data["seed"], drawn=data["drawn"])
