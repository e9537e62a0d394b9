"""What hooks does when `games` records events: ask a worker for the fan-out (`hooks.services`),
if any endpoint at all is active. That question is cached for a few seconds, so a server with no
webhooks pays nothing per move; a newly made endpoint clears the cache, and a move missed in the
meantime is caught by the sweep."""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

from games import dispatch
from hooks.models import Endpoint

log = logging.getLogger(__name__)

LISTENING_KEY = "hooks:listening"
LISTENING_SECONDS = 10


def events_recorded(sender, *, game_id: int, seq: int, **kwargs) -> None:
    if listening():
        dispatch.send("hooks.fan_out", (game_id,))


# Each process also remembers the answer for a moment, sparing every move a round trip to the
# shared cache; an endpoint made in another process meanwhile is served by the sweep.
_remembered: list[tuple[float, bool]] = []
REMEMBERED_SECONDS = 2.0


def listening() -> bool:
    if _remembered and _remembered[0][0] > time.monotonic():
        return _remembered[0][1]
    known = _listening_shared()
    _remembered[:] = [(time.monotonic() + REMEMBERED_SECONDS, known)]
    return known


def forget_remembered() -> None:
    _remembered.clear()


def _listening_shared() -> bool:
    try:
        known = cache.get(LISTENING_KEY)
    except Exception as error:  # the cache away: ask the worker, which knows
        log.warning("webhook listener cache unreadable (%s)", error)
        return True
    if known is None:
        known = Endpoint.objects.filter(active=True).exists()
        try:
            cache.set(LISTENING_KEY, known, LISTENING_SECONDS)
        except Exception:  # as above: only a cache
            pass
    return bool(known)


def endpoints_changed() -> None:
    """An endpoint was made or enabled: every process asks the database again."""
    _remembered.clear()
    try:
        cache.delete(LISTENING_KEY)
    except Exception as error:
        log.warning("webhook listener cache not cleared (%s); moves are fanned out by the sweep meanwhile", error)
