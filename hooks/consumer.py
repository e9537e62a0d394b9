"""Webhooks as a consumer of the log (`consumers.framework`): what an endpoint follows (its
owner's games, or the one game it names), the notices it is owed (`hooks.events`), and one signed
POST per delivery. The cursor, the lease, the retries, the sweep and the queue are the framework's."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import models, transaction
from django.db.models import Q
from django.utils import formats, translation
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from consumers import framework
from games import selectors, time_controls
from hooks import events, signing, transport
from hooks.models import Attempt, Delivery, DeliveryStatus, Endpoint

NAME = "hooks"


class Webhooks(framework.Consumer):
    name = NAME
    queue = "webhooks"  # a slow or hostile endpoint delays only other webhooks
    row_model = Delivery
    done_status = "delivered"
    look_back = dt.timedelta(days=1)
    sweep_seconds = 1.0
    quota_kinds = (events.PING,)  # the one message a person makes at will

    @property
    def quota(self) -> tuple[int, float]:
        return settings.SCRAPYARD_WEBHOOK_PINGS_PER_HOUR, 3600.0

    @property
    def retry_waits(self) -> list[float]:
        return settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS

    @property
    def lease_seconds(self) -> float:
        return 2 * settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS + 30

    @property
    def missed_sweep_seconds(self) -> float:
        return settings.SCRAPYARD_WEBHOOK_MISSED_SWEEP_SECONDS

    # --- what it wants ---

    def listens_to(self, game_id: int) -> bool:
        return Endpoint.objects.filter(active=True).exists()

    def listening_scope(self, game_id: int) -> str:
        return ""  # any active endpoint at all: a server with none pays nothing per move

    def recipients(self, game_id: int) -> dict[int, int | None]:
        """Every active endpoint following the game: its owner's games (unless it names one
        game), or the game it names; of a private game only those whose owners may see it now
        (a declined invitee is told nothing more)."""
        accounts = selectors.account_seats(game_id=game_id)
        following = Endpoint.objects.filter(active=True).filter(
            Q(game_id=game_id) | Q(game_id__isnull=True, owner_id__in=list(accounts))
        ).values_list("pk", "owner_id")
        viewers = selectors.private_game_viewers(game_id=game_id)
        return {pk: accounts.get(owner) for pk, owner in following if viewers is None or owner in viewers}

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        endpoint = Endpoint.objects.filter(pk=recipient, active=True).first()
        if endpoint is None:
            return []
        seen = selectors.events_seen_by(game_id=game["game"], seat=seat, after=after, upto=game["seq"],
                                        since=endpoint.created_at)
        return [delivery_fields(endpoint, type_, game["game"], seq, data)
                for type_, seq, data in events.notices(game, seen) if type_ in endpoint.events]

    def followed(self, since: dt.datetime) -> list[dict[str, Any]]:
        following = list(Endpoint.objects.filter(active=True).values_list("pk", "owner_id", "game_id"))
        if not following:
            return []
        owners = sorted({owner for _, owner, game in following if game is None})
        named = sorted({game for _, _, game in following if game is not None})
        moved = selectors.games_moved_since(user_ids=owners, game_ids=named, since=since)
        return [{"game": game["game"], "seq": game["seq"],
                 "recipients": [pk for pk, owner, one in following
                                if one == game["game"] or (one is None and owner in game["accounts"])]}
                for game in moved]

    # --- how it delivers ---

    def deliverable(self, rows: models.QuerySet) -> models.QuerySet:
        return rows.filter(endpoint__active=True)

    def deliver(self, row: Delivery) -> framework.Outcome:
        endpoint = Endpoint.objects.get(pk=row.endpoint_id)
        body = events.encoded(row.payload)
        attempted_at = time_controls.now()
        outcome = transport.post(
            endpoint.url, body, signing.headers(endpoint.secret, row.webhook_id, int(time.time()), body),
            timeout=settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS,
            allow_loopback=settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK,
        )
        return framework.Outcome(delivered=outcome.delivered, retry=outcome.retry, note=outcome.error,
                                 detail=(outcome, attempted_at))

    def settle(self, row: Delivery, outcome: framework.Outcome, at: dt.datetime) -> None:
        posted, attempted_at = outcome.detail if outcome.detail else (None, at)
        if posted is not None:
            Attempt.objects.create(
                delivery=row, at=attempted_at, status_code=posted.status_code, error=posted.error,
                duration_ms=posted.duration_ms, response_body=posted.response_body,
            )
        if row.status == self.done_status:
            row.delivered_at = at
        elif row.status == framework.FAILED and outcome.retry:
            # it was worth retrying, and every retry failed: the endpoint is down
            _endpoint_disable(Endpoint.objects.get(pk=row.endpoint_id), row, outcome.note)

    def periodic(self) -> int:
        log_prune()
        return deadline_warnings_note()

    def account_field(self) -> str:
        return "endpoint__owner_id"


def delivery_fields(endpoint: Endpoint, type_: str, game_id: int | None, seq: int | None, data: dict,
                    key: str = "") -> dict[str, Any]:
    """A delivery's fields; its id from (endpoint, type, game, seq), or from `key` for a message
    that stands for no event (a ping)."""
    return {"key": events.webhook_id(endpoint.pk, key or type_, game_id, seq), "endpoint": endpoint, "type": type_,
            "game_id": game_id, "seq": seq, "payload": events.body(type_, data, time_controls.now())}


WEBHOOKS = framework.register(Webhooks())


def deliveries_make(endpoint: Endpoint, notices: list[tuple[str, int | None, int | None, dict]]) -> int:
    """Store (type, game, seq, data) notices as deliveries, once each, sent after the commit."""
    return framework.rows_make(WEBHOOKS, [delivery_fields(endpoint, *notice) for notice in notices])


def invitation_changed(sender: Any, *, game_id: int, invitee_id: int, inviter_id: int | None, status: str,
                       **kwargs: Any) -> int:
    """`games.signals.invitation_changed` receiver: a delivery to each active endpoint of the
    invitee and of the inviter that wants this type (one naming another game does not), once per
    (endpoint, type, game, invitee)."""
    type_ = events.INVITATIONS.get(status)
    notice = selectors.invitation_notice_get(game_id=game_id, invitee_id=invitee_id)
    if type_ is None or notice is None:
        return 0
    data = {**notice, "status": "pending" if type_ == events.INVITATION_CREATED else status}
    made = 0
    owners = {invitee_id, inviter_id} - {None}
    with transaction.atomic():
        for endpoint in Endpoint.objects.filter(active=True, owner_id__in=owners):
            if type_ in endpoint.events and endpoint.game_id in (None, game_id):
                key = f"{type_}_{game_id}_{invitee_id}"
                row = {**delivery_fields(endpoint, type_, None, None, data, key=key), "game_id": game_id}
                made += framework.rows_make(WEBHOOKS, [row])
    return made


def endpoints_changed() -> None:
    """An endpoint was made or enabled: every process asks the database again."""
    transaction.on_commit(lambda: framework.listeners_changed(WEBHOOKS), robust=True)


# --- its own notices and upkeep ---------------------------------------------------------------


def _endpoint_disable(endpoint: Endpoint, delivery: Delivery, error: str) -> None:
    hours = sum(settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS) / 3600
    reason = f"delivery {delivery.webhook_id} failed for {hours:.1f} h ({error}); set active to true to resume"
    disabled = Endpoint.objects.filter(pk=endpoint.pk, active=True).update(
        active=False, disabled_at=time_controls.now(), disabled_reason=reason[:300]
    )
    if disabled:
        owner_id, url = endpoint.owner_id, endpoint.url
        failed = {"delivery": delivery.webhook_id, "hours": hours, "error": error}
        transaction.on_commit(lambda: _tell_owner(owner_id, endpoint.pk, url, failed), robust=True)


def _tell_owner(owner_id: int, endpoint_id: int, url: str, failed: dict[str, Any]) -> None:
    """The owner is told in its account's language (English where it chose none: a mail has no
    browser to ask), and the mail says that language (Content-Language). The endpoint's
    `disabled_reason` stays in English, as every code and field of the API does; the mail says the
    same in the owner's words (the transport's error code, `http_503`, as it is)."""
    address = account_selectors.account_email(user_id=owner_id)
    if not address:
        return  # the endpoint's state (GET /api/webhooks/{id}/) says it all
    chosen, _zone = account_selectors.language_and_zone(user_id=owner_id)
    language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
    with translation.override(language):
        said = {"id": endpoint_id, "url": url, **failed, "hours": formats.number_format(failed["hours"], 1)}
        subject = _("Scrapyard: webhook %(id)s disabled") % said
        body = "\n\n".join([
            _("Your webhook %(id)s (%(url)s) has been disabled: delivery %(delivery)s failed for %(hours)s h "
              "(%(error)s).") % said,
            _("Its deliveries are kept (GET /api/webhooks/%(id)s/deliveries/); PATCH /api/webhooks/%(id)s/ with "
              "{\"active\": true} sends the pending ones and resumes it.") % said,
        ]) + "\n"
    EmailMessage(subject=subject, body=body, from_email=None, to=[address],
                 headers={"Content-Language": language}).send()


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
                    made += deliveries_make(endpoint, [(events.DEADLINE_WARNING, warning["game"], warning["seq"], data)])
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

