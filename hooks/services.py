"""Webhook writes: endpoints, the fan-out of a game's news into deliveries, and each attempt.

The path of a message, and what catches it when a step is lost:
1. A game's transaction commits; `games.signals.events_recorded` asks for `hooks.fan_out` of
   the game (`hooks.receivers`). Lost: `fan_outs_missed` (beat) finds games past an endpoint's
   cursor.
2. `fan_out` writes the deliveries of every new event for every endpoint that follows the game,
   under the endpoint's cursor lock, with ids derived from (endpoint, type, game, seq): a repeated
   fan-out adds nothing. Once committed each delivery is sent to `hooks.deliver`. Lost:
   `deliveries_due_send` (beat) resends what nobody attempted within `RESEND_SECONDS`.
3. `delivery_attempt` leases the delivery (one worker at a time), POSTs it, and records the
   attempt: delivered, retried later (timeouts, connection errors, 429, 5xx; the waits of
   `SCRAPYARD_WEBHOOK_RETRY_SECONDS`, about a day in all), or failed. A delivery that used every
   retry disables its endpoint, and the owner is mailed.
"""

from __future__ import annotations

import datetime as dt
import random
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F, Q

from accounts import selectors as account_selectors
from games import dispatch, selectors, time_controls
from hooks import events, receivers, signing, transport
from hooks import selectors as hooks_selectors
from hooks.errors import DeliveryNotFound, TooManyWebhooks, UrlNotAllowed, WebhookDisabled
from hooks.models import Attempt, Cursor, Delivery, DeliveryStatus, Endpoint

FAN_OUT = "hooks.fan_out"
DELIVER = "hooks.deliver"
RESEND_SECONDS = 30  # a delivery sent to the queue but not attempted by then is sent again
LOOK_BACK = dt.timedelta(days=1)  # how far back the sweep looks for games with missed news
SCHEMES = ("http", "https")


# --- endpoints ------------------------------------------------------------------------------


def endpoint_create(*, user: Any, url: str, events: list[str], game: int | None = None, description: str = "") -> Endpoint:
    _check_url(url)
    if game is not None:
        selectors.game_for(game_id=game, user=user)  # 404 game_not_found (a private game it may not see too)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one create at a time per account
        if Endpoint.objects.filter(owner=user).count() >= settings.SCRAPYARD_WEBHOOKS_PER_ACCOUNT:
            raise TooManyWebhooks(
                f"an account may have {settings.SCRAPYARD_WEBHOOKS_PER_ACCOUNT} webhooks: delete one first"
            )
        endpoint = Endpoint.objects.create(
            owner=user, url=url, events=_unique(events), game_id=game, description=description,
            secret=signing.new_secret(),
        )
        transaction.on_commit(receivers.endpoints_changed)
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
        transaction.on_commit(receivers.endpoints_changed)
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


def _active_endpoint_of(user: Any, endpoint_id: int) -> Endpoint:
    endpoint = hooks_selectors.endpoint_get(user=user, endpoint_id=endpoint_id)
    if not endpoint.active:
        raise WebhookDisabled(f"webhook {endpoint_id} is disabled: set active to true first")
    return endpoint


def _check_url(url: str) -> None:
    """What can be told without a lookup; the addresses a name resolves to are checked at each
    delivery (`hooks.transport`), since DNS may answer differently then."""
    try:
        parts = urlsplit(url)
        parts.port  # raises ValueError for a port out of range
    except ValueError as error:
        raise UrlNotAllowed(f"not a URL: {error}") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise UrlNotAllowed("the URL must be http:// or https:// with a host")
    if parts.username or parts.password:
        raise UrlNotAllowed("the URL may not carry a user or password: the signature proves who sent it")
    refused = transport.literal_refused(url, settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK)
    if refused:
        raise UrlNotAllowed(f"webhooks may not reach {refused}")


def _unique(names: list[str]) -> list[str]:
    return sorted(set(names))


# --- the fan-out: news of a game, as deliveries -----------------------------------------------


def fan_out(*, game_id: int) -> int:
    """The deliveries of every event of the game not yet fanned out, for every active endpoint
    that follows it: its owner's games (unless it names one game), or the game it names.
    Returns how many deliveries it made."""
    accounts = selectors.account_seats(game_id=game_id)
    following = Endpoint.objects.filter(active=True).filter(
        Q(game_id=game_id) | Q(game_id__isnull=True, owner_id__in=list(accounts))
    )
    viewers = selectors.private_game_viewers(game_id=game_id)  # a private game: who may see it now
    return sum(
        _fan_out_to(endpoint, game_id, accounts.get(endpoint.owner_id))
        for endpoint in following
        if viewers is None or endpoint.owner_id in viewers  # a declined invitee is told nothing more
    )


def _fan_out_to(endpoint: Endpoint, game_id: int, seat: int | None) -> int:
    with transaction.atomic():
        Cursor.objects.bulk_create([Cursor(endpoint=endpoint, game_id=game_id)], ignore_conflicts=True)
        cursor = Cursor.objects.select_for_update().get(endpoint=endpoint, game_id=game_id)
        game = selectors.account_game_of(game_id=game_id, seat=seat)
        if game["seq"] <= cursor.seq:
            return 0
        seen = selectors.events_seen_by(
            game_id=game_id, seat=seat, after=cursor.seq, upto=game["seq"], since=endpoint.created_at
        )
        wanted = [notice for notice in events.notices(game, seen) if notice[0] in endpoint.events]
        made = _deliveries_make(endpoint, [(type_, game_id, seq, data) for type_, seq, data in wanted])
        cursor.seq = game["seq"]
        cursor.save(update_fields=["seq"])
    return made


def _deliveries_make(endpoint: Endpoint, notices: list[tuple[str, int | None, int | None, dict]]) -> int:
    """Store (type, game, seq, data) notices as deliveries (once each: their ids are derived)
    and send the new ones to the workers after the commit."""
    at = time_controls.now()
    made_now = [_delivery(endpoint, type_, game_id, seq, data, at) for type_, game_id, seq, data in notices]
    rows = {row.webhook_id: row for row in made_now}
    if not rows:
        return 0
    known = set(Delivery.objects.filter(webhook_id__in=list(rows)).values_list("webhook_id", flat=True))
    Delivery.objects.bulk_create([row for key, row in rows.items() if key not in known], ignore_conflicts=True)
    made = list(
        Delivery.objects.filter(webhook_id__in=[key for key in rows if key not in known]).values_list("pk", flat=True)
    )
    _send_after_commit(made)
    return len(made)


def _delivery(
    endpoint: Endpoint, type_: str, game_id: int | None, seq: int | None, data: dict, at: dt.datetime, key: str = ""
) -> Delivery:
    """A new delivery, due now and being sent now; its id from (endpoint, type, game, seq), or
    from `key` for a message that stands for no event (a ping)."""
    return Delivery(
        endpoint=endpoint, webhook_id=events.webhook_id(endpoint.pk, key or type_, game_id, seq), type=type_,
        game_id=game_id, seq=seq, payload=events.body(type_, data, at), next_attempt_at=at, enqueued_at=at,
    )


def _send_after_commit(delivery_ids: list[int]) -> None:
    # robust: the deliveries are stored whatever the broker says; the sweep resends them.
    for delivery_id in delivery_ids:
        transaction.on_commit(lambda delivery_id=delivery_id: dispatch.send(DELIVER, (delivery_id,)), robust=True)


def ping(*, user: Any, endpoint_id: int) -> Delivery:
    """A `ping` message to the endpoint, to try it out (and its signature check)."""
    with transaction.atomic():
        endpoint = _active_endpoint_of(user, endpoint_id)
        unique = f"{events.PING}_{uuid.uuid4().hex[:16]}"
        delivery = _delivery(endpoint, events.PING, None, None, {"webhook": endpoint.pk}, time_controls.now(), unique)
        delivery.save()
        _send_after_commit([delivery.pk])
    return delivery


def replay(*, user: Any, endpoint_id: int, delivery_id: int) -> Delivery:
    """Send a delivery again, as it was (same id and body, signed anew), with a fresh set of
    retries."""
    with transaction.atomic():
        endpoint = _active_endpoint_of(user, endpoint_id)
        delivery = Delivery.objects.select_for_update().filter(endpoint=endpoint, pk=delivery_id).first()
        if delivery is None:
            raise DeliveryNotFound(f"webhook {endpoint_id} has no delivery {delivery_id}")
        at = time_controls.now()
        delivery.status, delivery.retries, delivery.delivered_at = DeliveryStatus.PENDING, 0, None
        delivery.next_attempt_at, delivery.enqueued_at, delivery.leased_until = at, at, None
        delivery.save()
        _send_after_commit([delivery.pk])
    return delivery


# --- delivering -----------------------------------------------------------------------------


def delivery_attempt(*, delivery_id: int) -> transport.Outcome | None:
    """One attempt at a delivery, if it is due and nobody else is attempting it (None if not)."""
    delivery = _claim(delivery_id, time_controls.now())
    if delivery is None:
        return None
    endpoint = delivery.endpoint
    body = events.encoded(delivery.payload)
    attempted_at = time_controls.now()
    outcome = transport.post(
        endpoint.url, body, signing.headers(endpoint.secret, delivery.webhook_id, int(time.time()), body),
        timeout=settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS,
        allow_loopback=settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK,
    )
    _record(delivery, outcome, attempted_at)
    return outcome


def _due(at: dt.datetime):
    """Deliveries due at `at` that no worker is attempting, of endpoints that are active."""
    return Delivery.objects.filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=at),
        status=DeliveryStatus.PENDING, next_attempt_at__lte=at, endpoint__active=True,
    )


def _claim(delivery_id: int, at: dt.datetime) -> Delivery | None:
    """Lease the delivery for one attempt: a single UPDATE, so two workers never both get it."""
    lease = at + dt.timedelta(seconds=2 * settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS + 30)
    claimed = _due(at).filter(pk=delivery_id).update(leased_until=lease)
    return Delivery.objects.select_related("endpoint").filter(pk=delivery_id).first() if claimed else None


def _record(delivery: Delivery, outcome: transport.Outcome, at: dt.datetime) -> None:
    waits = settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS
    with transaction.atomic():
        if not Delivery.objects.select_for_update().filter(pk=delivery.pk).exists():
            return  # its endpoint was deleted while the attempt ran: nothing left to record it on
        Attempt.objects.create(
            delivery=delivery, at=at, status_code=outcome.status_code, error=outcome.error,
            duration_ms=outcome.duration_ms, response_body=outcome.response_body,
        )
        delivery.leased_until = None
        if outcome.delivered:
            delivery.status, delivery.delivered_at, delivery.next_attempt_at = DeliveryStatus.DELIVERED, at, None
        elif outcome.retry and delivery.retries < len(waits):
            wait = waits[delivery.retries] * random.uniform(1.0, 1.1)  # jitter: retries of one outage spread out
            delivery.retries += 1
            delivery.next_attempt_at = time_controls.now() + dt.timedelta(seconds=wait)
        else:
            delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
            if outcome.retry:  # it was worth retrying, and every retry failed: the endpoint is down
                _endpoint_disable(delivery.endpoint, delivery, outcome)
        delivery.save()


def _endpoint_disable(endpoint: Endpoint, delivery: Delivery, outcome: transport.Outcome) -> None:
    hours = sum(settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS) / 3600
    reason = f"delivery {delivery.webhook_id} failed for {hours:.1f} h ({outcome.error}); set active to true to resume"
    disabled = Endpoint.objects.filter(pk=endpoint.pk, active=True).update(
        active=False, disabled_at=time_controls.now(), disabled_reason=reason[:300]
    )
    if disabled:
        owner_id, url = endpoint.owner_id, endpoint.url
        transaction.on_commit(lambda: _tell_owner(owner_id, endpoint.pk, url, reason), robust=True)


def _tell_owner(owner_id: int, endpoint_id: int, url: str, reason: str) -> None:
    address = account_selectors.account_email(user_id=owner_id)
    if not address:
        return  # the endpoint's state (GET /api/webhooks/{id}/) says it all
    send_mail(
        subject=f"Scrapyard: webhook {endpoint_id} disabled",
        message=(
            f"Your webhook {endpoint_id} ({url}) has been disabled: {reason}.\n\n"
            f"Its deliveries are kept (GET /api/webhooks/{endpoint_id}/deliveries/); PATCH /api/webhooks/"
            f"{endpoint_id}/ with {{\"active\": true}} sends the pending ones and resumes it.\n"
        ),
        from_email=None,
        recipient_list=[address],
    )


# --- beat's sweeps --------------------------------------------------------------------------


def deliveries_due_send(*, at: dt.datetime | None = None, limit: int = 1000) -> int:
    """Send every due delivery nobody is attempting: retries whose wait is over (due again since
    they were last sent), and messages that no worker took up within `RESEND_SECONDS` (lost
    with a broker)."""
    at = at or time_controls.now()
    resend_before = at - dt.timedelta(seconds=RESEND_SECONDS)
    due = list(
        _due(at)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=resend_before) | Q(next_attempt_at__gt=F("enqueued_at")))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    if due:
        with transaction.atomic():
            Delivery.objects.filter(pk__in=due).update(enqueued_at=at)
            _send_after_commit(due)
    return len(due)


def fan_outs_missed(*, at: dt.datetime | None = None) -> int:
    """Ask again for the fan-out of every followed game past an endpoint's cursor (its first
    request was lost); returns how many games."""
    at = at or time_controls.now()
    following = list(Endpoint.objects.filter(active=True).values_list("pk", "owner_id", "game_id"))
    if not following:
        return 0
    owners = sorted({owner for _, owner, game in following if game is None})
    named = sorted({game for _, _, game in following if game is not None})
    moved = selectors.games_moved_since(user_ids=owners, game_ids=named, since=at - LOOK_BACK)
    cursors = dict(
        ((endpoint, game), seq)
        for endpoint, game, seq in Cursor.objects.filter(
            endpoint_id__in=[pk for pk, _, _ in following], game_id__in=[game["game"] for game in moved]
        ).values_list("endpoint_id", "game_id", "seq")
    )
    behind = [
        game["game"]
        for game in moved
        if any(
            cursors.get((pk, game["game"]), 0) < game["seq"]
            for pk, owner, named_game in following
            if named_game == game["game"] or (named_game is None and owner in game["accounts"])
        )
    ]
    for game_id in behind:
        dispatch.send(FAN_OUT, (game_id,))
    return len(behind)


def deadline_warnings_note() -> int:
    """A `deadline_warning` delivery for each seat of a followed account past 80% of its time,
    once per (endpoint, game, seq)."""
    warned = [endpoint for endpoint in Endpoint.objects.filter(active=True) if events.DEADLINE_WARNING in endpoint.events]
    if not warned:
        return 0
    made = 0
    for warning in selectors.deadline_warnings(user_ids=sorted({endpoint.owner_id for endpoint in warned})):
        data = {key: warning[key] for key in ("game", "rules", "seat", "seq", "deadline")}
        for endpoint in warned:
            if endpoint.owner_id == warning["account"] and endpoint.game_id in (None, warning["game"]):
                with transaction.atomic():
                    made += _deliveries_make(endpoint, [(events.DEADLINE_WARNING, warning["game"], warning["seq"], data)])
    return made


def log_prune(*, at: dt.datetime | None = None, batch: int = 1000) -> int:
    """Forget finished deliveries older than `SCRAPYARD_WEBHOOK_LOG_DAYS`, a batch at a time."""
    at = at or time_controls.now()
    before = at - dt.timedelta(days=settings.SCRAPYARD_WEBHOOK_LOG_DAYS)
    old = list(
        Delivery.objects.filter(created_at__lt=before).exclude(status=DeliveryStatus.PENDING).values_list("pk", flat=True)[:batch]
    )
    if old:
        Delivery.objects.filter(pk__in=old).delete()
    return len(old)

