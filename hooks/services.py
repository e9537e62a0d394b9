"""Webhook writes: endpoints, pings and replays. The fan-out of a game's news into deliveries,
each attempt, the retries and the sweeps are the consumer framework's (`consumers.framework`);
what an endpoint is owed and how a delivery is POSTed, `hooks.consumer`.

A delivery that used every retry disables its endpoint, and the owner is mailed.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from consumers import framework
from games import selectors, time_controls
from hooks import events, signing, transport
from hooks import selectors as hooks_selectors
from hooks.consumer import WEBHOOKS, deadline_warnings_note, delivery_fields, endpoints_changed, log_prune
from hooks.errors import DeliveryNotFound, TooManyPings, TooManyReplays, TooManyWebhooks, UrlNotAllowed, WebhookDisabled
from hooks.models import Delivery, DeliveryStatus, Endpoint, Replay
from rules.words import msg

SCHEMES = ("http", "https")
__all__ = ["deadline_warnings_note", "log_prune"]


# --- endpoints ------------------------------------------------------------------------------


def endpoint_create(*, user: Any, url: str, events: list[str], game: int | None = None, description: str = "") -> Endpoint:
    _check_url(url)
    if game is not None:
        selectors.game_for(game_id=game, user=user)  # 404 game_not_found (a private game it may not see too)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one create at a time per account
        if Endpoint.objects.filter(owner=user).count() >= settings.SCRAPYARD_WEBHOOKS_PER_ACCOUNT:
            raise TooManyWebhooks(
                msg("an account may have {scrapyard_webhooks_per_account} webhooks: delete one first", scrapyard_webhooks_per_account=settings.SCRAPYARD_WEBHOOKS_PER_ACCOUNT)
            )
        endpoint = Endpoint.objects.create(
            owner=user, url=url, events=_unique(events), game_id=game, description=description,
            secret=signing.new_secret(),
        )
        endpoints_changed()
    return endpoint


def endpoint_update(*, user: Any, endpoint_id: int, **changes: Any) -> Endpoint:
    """Change the URL, the events, the game or the description; `active: true` enables a
    disabled endpoint again (its pending deliveries go out), `active: false` pauses it."""
    if "url" in changes:
        _check_url(changes["url"])
    if changes.get("game") is not None:
        selectors.game_for(game_id=changes["game"], user=user)
    with transaction.atomic():
        owned = hooks_selectors.endpoint_get(user=user, endpoint_id=endpoint_id)
        endpoint = Endpoint.objects.select_for_update().get(pk=owned.pk)
        for field in ("url", "description"):
            if field in changes:
                setattr(endpoint, field, changes[field])
        if "events" in changes:
            endpoint.events = _unique(changes["events"])
        if "game" in changes:
            endpoint.game_id = changes["game"]
        if "active" in changes and changes["active"] != endpoint.active:
            endpoint.active = changes["active"]
            endpoint.disabled_at = None if endpoint.active else time_controls.now()
            endpoint.disabled_reason = "" if endpoint.active else "paused by its owner"
        endpoint.save()
        endpoints_changed()
    return endpoint


def endpoint_delete(*, user: Any, endpoint_id: int) -> None:
    """Delete the endpoint with its deliveries and their attempts. A worker may be recording an
    attempt meanwhile: the deliveries are locked first (as `_record` locks its one), then the
    endpoint (which stops new deliveries), then any delivery made before that lock, so no attempt
    lands between the cascade's reading of the attempts and its deleting the deliveries."""
    endpoint = hooks_selectors.endpoint_get(user=user, endpoint_id=endpoint_id)
    with transaction.atomic():
        list(Delivery.objects.select_for_update().filter(endpoint=endpoint).values_list("pk", flat=True))
        if not Endpoint.objects.select_for_update().filter(pk=endpoint.pk).exists():
            return  # deleted meanwhile: DELETE is idempotent in effect
        list(Delivery.objects.select_for_update().filter(endpoint=endpoint).values_list("pk", flat=True))
        endpoint.delete()


QUOTA_RETRY_AFTER = 60  # seconds: the hour's window frees a slot as each counted POST ages out


def _quota_check(user: Any, refusal: type[TooManyPings] | type[TooManyReplays]) -> None:
    """Pings and replays, the POSTs a person sends at will, share the consumer's quota per
    account (`framework.within_quota`); over it, `refusal` (429 with Retry-After)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one count at a time per account
    replays = Replay.objects.filter(owner=user)
    if not framework.within_quota(WEBHOOKS, user.pk, also_caused=replays):
        raise refusal(msg("an account may ping or replay its webhooks {quota} times an hour: try again later",
                          quota=WEBHOOKS.quota[0]), retry_after=QUOTA_RETRY_AFTER)


def _active_endpoint_of(user: Any, endpoint_id: int) -> Endpoint:
    endpoint = hooks_selectors.endpoint_get(user=user, endpoint_id=endpoint_id)
    if not endpoint.active:
        raise WebhookDisabled(msg("webhook {endpoint_id} is disabled: set active to true first", endpoint_id=endpoint_id))
    return endpoint


def _check_url(url: str) -> None:
    """What can be told without a lookup; the addresses a name resolves to are checked at each
    delivery (`hooks.transport`), since DNS may answer differently then."""
    try:
        parts = urlsplit(url)
        parts.port  # raises ValueError for a port out of range
    except ValueError as error:
        raise UrlNotAllowed(msg("not a URL: {error}", error=error)) from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise UrlNotAllowed(msg("the URL must be http:// or https:// with a host"))
    if parts.username or parts.password:
        raise UrlNotAllowed(msg("the URL may not carry a user or password: the signature proves who sent it"))
    refused = transport.literal_refused(url, settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK)
    if refused and refused.this_machine:
        raise UrlNotAllowed(msg("webhooks may not reach {host}: it is this machine", host=refused.host))
    if refused:
        raise UrlNotAllowed(msg("webhooks may not reach {host}: it is not a public address", host=refused.host))


def _unique(names: list[str]) -> list[str]:
    return sorted(set(names))


# --- the fan-out and the attempts: the framework's -------------------------------------------


def fan_out(*, game_id: int) -> int:
    """The deliveries of every event of the game not yet fanned out, for every endpoint following it."""
    return framework.fan_out(WEBHOOKS, game_id)


def delivery_attempt(*, delivery_id: int) -> framework.Outcome | None:
    """One attempt at a delivery, if it is due and nobody else is attempting it (None if not)."""
    return framework.attempt(WEBHOOKS, delivery_id)


def ping(*, user: Any, endpoint_id: int) -> Delivery:
    """A `ping` message to the endpoint, to try it out (and its signature check)."""
    with transaction.atomic():
        endpoint = _active_endpoint_of(user, endpoint_id)
        _quota_check(user, TooManyPings)
        unique = f"{events.PING}_{uuid.uuid4().hex[:16]}"
        fields = delivery_fields(endpoint, events.PING, None, None, {"webhook": endpoint.pk}, unique)
        at = time_controls.now()
        delivery = Delivery.objects.create(webhook_id=fields.pop("key"), next_attempt_at=at, enqueued_at=at, **fields)
        framework.send_after_commit(WEBHOOKS, [delivery.pk])
    return delivery


def replay(*, user: Any, endpoint_id: int, delivery_id: int) -> Delivery:
    """Send a delivery again, as it was (same id and body, signed anew), with a fresh set of
    retries; each replay counts against the account's quota with the pings."""
    with transaction.atomic():
        endpoint = _active_endpoint_of(user, endpoint_id)
        delivery = Delivery.objects.select_for_update().filter(endpoint=endpoint, pk=delivery_id).first()
        if delivery is None:
            raise DeliveryNotFound(msg("webhook {endpoint_id} has no delivery {delivery_id}", endpoint_id=endpoint_id, delivery_id=delivery_id))
        _quota_check(user, TooManyReplays)
        Replay.objects.create(delivery=delivery, owner=user)
        at = time_controls.now()
        delivery.status, delivery.retries, delivery.delivered_at = DeliveryStatus.PENDING, 0, None
        delivery.next_attempt_at, delivery.enqueued_at, delivery.leased_until = at, at, None
        delivery.save()
        framework.send_after_commit(WEBHOOKS, [delivery.pk])
    return delivery
