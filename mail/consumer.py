"""Mail as a consumer of the log (`consumers.framework`): whom a game's news is for (its seated
accounts, once their address is confirmed; till then it is held), the mails it owes
(`mail.services.outbound`) and how one is sent (`mail.services.sending`). The cursor, the lease,
the retries, the sweep and the queue are the framework's; the digests, deadline warnings and
unread replies are this consumer's own upkeep. Forced moves are a consumer of their own
(`mail.forced`), registered here before mail, so that their fan-out is sent first."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import models

from accounts import selectors as account_selectors
from consumers import framework
from games import selectors, time_controls
from mail import forced
from mail.models import Outgoing, Preference
from mail.services import inbound, outbound, sending

HELD_LOOK_BACK = dt.timedelta(days=1)  # a game that ended this recently is caught up at confirmation


class Mail(framework.Consumer):
    name = outbound.MAIL
    queue = "mail"  # a slow mail relay delays only mail (not the sweeps, nor replies by mail)
    row_model = Outgoing
    done_status = "sent"
    lease_seconds = sending.LEASE.total_seconds()
    resend_seconds = sending.LEASE.total_seconds()
    look_back = outbound.LOOK_BACK
    sweep_seconds = 5.0
    missed_sweep_seconds = 5.0
    # Made on a stranger's say-so (a mail in, a sign-up), or on a signed-in act's (addresses replaced).
    quota_kinds = (outbound.ANSWER, outbound.VERIFY, outbound.ADDRESSES_REPLACED)

    @property
    def retry_waits(self) -> list[float]:
        return settings.SCRAPYARD_MAIL_RETRY_SECONDS

    @property
    def quota(self) -> tuple[int, float]:
        return settings.SCRAPYARD_MAIL_ANSWER_LIMIT, outbound.ANSWER_WINDOW.total_seconds()

    # --- what it wants, and for whom ---

    def listens_to(self, game_id: int) -> bool:
        return selectors.game_has_addressees(game_id=game_id)

    def recipients(self, game_id: int) -> dict[int, int | None]:
        return selectors.account_seats(game_id=game_id)

    def ready(self, recipient: int) -> bool:
        return outbound.account_ready(recipient)

    def held(self, recipient: int) -> None:
        outbound.account_held(recipient)

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> int:
        return outbound.account_notices_make(recipient, seat, game, after)

    def followed(self, since: dt.datetime) -> list[dict[str, Any]]:
        ready = _confirmed_accounts()
        moved = selectors.games_moved_since(user_ids=sorted(ready), game_ids=[], since=since)
        return [{"game": game["game"], "seq": game["seq"],
                 "recipients": [account for account in game["accounts"] if account in ready]} for game in moved]

    def games_of(self, recipient: int) -> list[int]:
        return [game["game"] for game in _games_of(recipient) if game["status"] != "finished"]

    def games_past(self, recipient: int) -> dict[int, int]:
        return {game["game"]: game["seq"] for game in _games_of(recipient) if game["status"] == "finished"}

    # --- how it delivers ---

    def deliver(self, row: Outgoing) -> framework.Outcome:
        return sending.outgoing_deliver(row)

    def settle(self, row: Outgoing, outcome: framework.Outcome, at: dt.datetime) -> None:
        row.error = outcome.note[:300]
        if outcome.delivered:
            row.sent_at = at

    def periodic(self) -> int:
        return outbound.digests_send() + outbound.deadline_warnings_note() + inbound.inbound_unread_handle()

    def account_field(self) -> str:
        return "user_id"

    def deliverable(self, rows: models.QuerySet) -> models.QuerySet:
        return rows


def _confirmed_accounts() -> set[int]:
    """The accounts with an address, and (when addresses must be confirmed) a confirmed one."""
    with_address = dict(account_selectors.accounts_emails())
    if not settings.SCRAPYARD_MAIL_VERIFY:
        return set(with_address)
    confirmed = Preference.objects.filter(user_id__in=list(with_address)).exclude(verified_email="")
    return {user for user, verified in confirmed.values_list("user_id", "verified_email")
            if verified.lower() == with_address[user].lower()}


def _games_of(recipient: int) -> list[dict[str, Any]]:
    since = time_controls.now() - HELD_LOOK_BACK
    moved = selectors.games_moved_since(user_ids=[recipient], game_ids=[], since=since)
    return [{**game, "status": selectors.game_get(game_id=game["game"]).status} for game in moved]


# Forced moves first: news reaches the consumers in this order, and a forced move played spares a mail.
FORCED_MOVES = framework.register(forced.ForcedMoves())
MAIL = framework.register(Mail())
