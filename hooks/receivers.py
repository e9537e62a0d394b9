"""What hooks does when `games` records events: ask a worker for the fan-out (`hooks.services`),
if any endpoint at all is active. That question is cached for a few seconds, so a server with no
webhooks pays nothing per move; a newly made endpoint clears the cache, and a move missed in the
meantime is caught by the sweep."""

from __future__ import annotations

import logging

from django.core.cache import cache

from games import dispatch
from hooks.models import Endpoint

log = logging.getLogger(__name__)

LISTENING_KEY = "hooks:listening"
LISTENING_SECONDS = 10


def events_recorded(sender, *, game_id: int, seq: int, **kwargs) -> None:
    if listening():
        dispatch.send("hooks.fan_out", (game_id,))


def listening() -> bool:
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
    try:
        cache.delete(LISTENING_KEY)
    except Exception as error:
        log.warning("webhook listener cache not cleared (%s); moves are fanned out by the sweep meanwhile", error)
