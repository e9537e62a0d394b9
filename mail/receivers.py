"""What mail does when `games` records events, and when a provider's webhook (django-anymail)
brings a reply or a bounce.

After a commit, a game's news goes to a worker for the fan-out only if some seat of it has an
address to write to; that answer is cached for a few seconds per game, so a game of bots and
address-less accounts costs one cached look per move. A seat that gives its address meanwhile is
caught by the sweep (`services.fan_outs_missed`).
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

from games import dispatch, selectors
from mail import services

log = logging.getLogger(__name__)

ADDRESSEES_SECONDS = 10


def events_recorded(sender, *, game_id: int, seq: int, **kwargs) -> None:
    if _has_addressees(game_id):
        dispatch.send(services.FORCED, (game_id,))  # first: a forced move played spares a mail
        dispatch.send(services.FAN_OUT, (game_id,))


# Each process also remembers the answer for a moment, sparing every move a round trip to the
# shared cache; the sweep (`mail.sweep`) sends what a stale answer left out.
_remembered: dict[int, tuple[float, bool]] = {}
REMEMBERED_SECONDS = 2.0


def _has_addressees(game_id: int) -> bool:
    remembered = _remembered.get(game_id)
    if remembered is not None and remembered[0] > time.monotonic():
        return remembered[1]
    if len(_remembered) > 10_000:
        _remembered.clear()
    known = _has_addressees_shared(game_id)
    _remembered[game_id] = (time.monotonic() + REMEMBERED_SECONDS, known)
    return known


def forget_remembered() -> None:
    _remembered.clear()


def _has_addressees_shared(game_id: int) -> bool:
    key = f"mail:addressees:{game_id}"
    try:
        known = cache.get(key)
    except Exception as error:  # the cache away: ask the database
        log.warning("mail addressee cache unreadable (%s)", error)
        known = None
    if known is None:
        known = selectors.game_has_addressees(game_id=game_id)
        try:
            cache.set(key, known, ADDRESSEES_SECONDS)
        except Exception:  # only a cache
            pass
    return bool(known)


def anymail_inbound(sender, event, esp_name: str, **kwargs) -> None:
    """A reply through a provider's inbound webhook: stored and read like one through the gateway.
    A mail for an unknown address is stored too (and refused when read): HTTP has no 550."""
    message = event.message
    recipients = [message.envelope_recipient] if message.envelope_recipient else [a.addr_spec for a in message.to]
    services.inbound_store(
        via=esp_name.lower(), envelope_sender=message.envelope_sender or "", recipients=recipients, raw=message.as_bytes()
    )


def anymail_tracking(sender, event, esp_name: str, **kwargs) -> None:
    """A provider's delivery report: a hard bounce (or a complaint) turns the address's mail off."""
    if event.event_type in ("bounced", "rejected", "complained") and event.recipient:
        services.bounce_by_address(address=event.recipient, reason=f"{esp_name}: {event.event_type} {event.description or ''}".strip())
