"""The live streams as a consumer of the log (`consumers.framework`): their notice is a Redis
publish on the game's channel (`games.announce`), which wakes every stream of the game
(`streams.hub`, `streams.views`; the account feed is a consumer of its own with rows,
`streams.account_feed`, whose delivery wakes it). They make no
rows: a stream's delivery is its own read of the log from where its connection is, and a lost
notice costs it at most its re-check interval, so there is nothing for a lease, a retry or the
sweep to keep. A burst of news sends its notices in one round trip (`together`)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from consumers import framework
from games import announce


class LiveStreams(framework.Consumer):
    name = "streams"
    makes_rows = False

    def noticed(self, game_id: int, seq: int | None) -> None:
        if seq is not None:
            announce.event_recorded(game_id, seq)

    def together(self) -> AbstractContextManager[Any]:
        return announce.publishing_together()

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool | None:
        return False  # no fan-out: nothing to store


LIVE_STREAMS = framework.register(LiveStreams())
