"""The tail of each watched game's log, read once per process for all of its streams.

When a move commits, every stream of that game wakes at once. Reading the log for each would be
a query per stream per move; instead the first stream to ask reads the new events (one query,
under the game's lock) and the others take them from here, with the game's public state after the
newest of them (`selectors.public_state`: seq, status, who is to act, clocks, result), which is the
same for every caller, and the game as that read found it (its seats and clocks loaded), from which
the stream of a seat to act takes that seat's moves with no read of its own. Events are immutable, so sharing them is safe; each stream renders them for
its own caller (`selectors.event_visible`), so nobody sees what is not theirs. A stream resuming
from before the kept tail reads the log itself.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from games import selectors

KEPT = 500  # events kept per game: a stream this far behind reads the log itself


@dataclass
class Tail:
    upto: int = -1  # the newest seq read; -1: nothing read yet
    events: list = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)  # the game's public state at `upto`
    game: Any = None  # the game as read at `upto` (shared: never changed)
    read_at: float = 0.0


class Feed:
    def __init__(self) -> None:
        self.tails: dict[int, Tail] = {}
        self.locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.watchers: dict[int, int] = defaultdict(int)

    def watch(self, game_id: int) -> None:
        self.watchers[game_id] += 1

    def unwatch(self, game_id: int) -> None:
        self.watchers[game_id] -= 1
        if self.watchers[game_id] <= 0:  # nobody left: forget the game
            self.watchers.pop(game_id, None)
            self.tails.pop(game_id, None)
            self.locks.pop(game_id, None)

    async def since(
        self, game_id: int, after: int, newest: int | None, fresh_for: float, run: Callable[..., Awaitable[Any]]
    ) -> tuple[list, dict[str, Any], Any]:
        """The stored events after `after`, the game's public state after the newest of them
        (`selectors.public_state`; `status` says whether the game is over) and the game as read
        then. The tail is read again
        when it is older than `fresh_for` seconds or lacks `newest` (a seq a notice announced) or
        `after` (a stream that opened at a newer seq than the tail's); `run` runs a selector off
        the event loop."""
        async with self.locks[game_id]:
            tail = self.tails.setdefault(game_id, Tail())
            stale = time.monotonic() - tail.read_at > fresh_for
            behind = after > tail.upto or (newest is not None and newest > tail.upto)  # a newer seq is known
            if behind or stale:
                # The first read starts where its stream does (most open at the game's seq), not at event 1.
                start = tail.upto if tail.upto >= 0 else after
                events, state, game = await run(selectors.events_after, game_id=game_id, after=start)
                tail.events = (tail.events + events)[-KEPT:]
                tail.upto, tail.state, tail.game, tail.read_at = state["seq"], state, game, time.monotonic()
            kept_from = tail.events[0].seq if tail.events else tail.upto + 1
            if after + 1 >= kept_from:
                return [event for event in tail.events if event.seq > after], tail.state, tail.game
        return await run(selectors.events_after, game_id=game_id, after=after)  # far behind: its own read


FEED = Feed()
