"""The stream hub's subscription (`streams.hub`): what a (re)subscription owes the streams."""

from __future__ import annotations

import asyncio

from streams.hub import Hub


def test_a_subscription_wakes_every_watching_stream_to_read_and_check_again():
    """A stream's first watch starts the listener; a notice published before its subscription
    took effect went nowhere, so every watcher is woken once it has, and the access version
    moves (each stream checks its caller's access again)."""

    async def scenario():
        hub = Hub()
        first, second = asyncio.Event(), asyncio.Event()
        hub.waiting[1].add(first)
        hub.waiting[2].add(second)
        before = hub.epoch
        hub._subscribed()
        return first.is_set(), second.is_set(), hub.epoch != before, hub.access_version(1)

    first, second, moved, version = asyncio.run(scenario())
    assert first and second and moved and version is not None
