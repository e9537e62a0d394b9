"""Fair shares of the bot workers: each account's games think a few at a time.

A bot's search is the one expensive thing a player can start, and an account can start many
(a dozen games of level-3 bots). Before a bot thinks, its game takes one of its creator's
`SCRAPYARD_BOT_GAMES_PER_ACCOUNT` slots; with none free, the turn waits its go in the queue
(its row waits a moment, `games.services.bot_turns`) while other accounts' bots play.

The slots live in the cache (Redis when `REDIS_URL` is set, so every worker on every machine
shares them) as keys added atomically with an expiry: a worker killed mid-search frees its slot
when the expiry passes, without anyone having to notice.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import contextmanager
from typing import Iterator

from django.core.cache import cache

logger = logging.getLogger(__name__)


def _key(owner_id: int | None, index: int) -> str:
    return f"scrapyard:botslot:{owner_id}:{index}"


@contextmanager
def slot(owner_id: int | None, *, slots: int, hold_seconds: float) -> Iterator[bool]:
    """Holds one of `owner_id`'s `slots` for the block and yields True; yields False (holding
    nothing) when all are taken. A slot outlives a lost holder by at most `hold_seconds`."""
    token = uuid.uuid4().hex
    timeout = max(1, int(hold_seconds + 0.999))
    key = _take(owner_id, slots, token, timeout)
    if key is _CACHE_DOWN:
        # Fairness is worth less than liveness: with the cache unreachable the bot plays.
        yield True
        return
    if key is None:
        yield False
        return
    try:
        yield True
    finally:
        _give_back(key, token)


_CACHE_DOWN = object()


def _take(owner_id: int | None, slots: int, token: str, timeout: int):
    try:
        for index in range(max(1, slots)):
            key = _key(owner_id, index)
            if cache.add(key, token, timeout=timeout):
                return key
        return None
    except Exception:  # the cache backend's own connection errors (redis, files) vary
        logger.warning("bot quota: the cache is unreachable; playing without a slot", exc_info=True)
        return _CACHE_DOWN


def _give_back(key: str, token: str) -> None:
    try:
        # Only our own hold: after an expiry the key may be somebody else's by now.
        if cache.get(key) == token:
            cache.delete(key)
    except Exception:  # unreachable cache: the slot's expiry frees it
        logger.warning("bot quota: could not give back %s; it expires by itself", key)


def held(owner_id: int | None, *, slots: int) -> int:
    """How many of the account's slots are taken now (for tests and the bench)."""
    return sum(1 for index in range(max(1, slots)) if cache.get(_key(owner_id, index)) is not None)
