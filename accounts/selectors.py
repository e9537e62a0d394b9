"""Reads of accounts: vacation, settings as their owner sees them, who an account is to the mailer
(its address and the notices it wants), and scoped API tokens as their owner sees them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from accounts.models import Account, ApiToken
from games import time_controls

User = get_user_model()


def vacation_of(*, user: Any) -> Account | None:
    """The user's account row, if it has one yet (a new account has no vacation history)."""
    return Account.objects.filter(user=user).first()


def vacation_info(account: Account | None, at: dt.datetime | None = None) -> dict[str, Any]:
    """Where the account's vacation stands this (UTC) year; a missing row is a fresh account."""
    at = at or time_controls.now()
    account = account or Account()
    used = _vacation_used_this_year(account, at)
    allowed = account.vacation_days_per_year * time_controls.DAY
    return {
        "on_vacation": account.vacation_since is not None,
        "since": account.vacation_since,
        "year": at.year,
        "days_per_year": account.vacation_days_per_year,
        "days_used": round(used / time_controls.DAY, 4),
        "days_left": round(max(0.0, allowed - used) / time_controls.DAY, 4),
        "ends_at": vacation_end(account, at),
    }


def _vacation_used_this_year(account: Account, at: dt.datetime) -> float:
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    running = (at - account.vacation_since).total_seconds() if account.vacation_since else 0.0
    return earlier + running


def vacation_end(account: Account, at: dt.datetime) -> dt.datetime | None:
    """When the days left run out, for an account on vacation."""
    if account.vacation_since is None:
        return None
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    left = max(0.0, account.vacation_days_per_year * time_controls.DAY - earlier)
    return account.vacation_since + dt.timedelta(seconds=left)


def account_email(*, user_id: int) -> str:
    """Where to write to the account ("" if it gave no address)."""
    return User.objects.filter(pk=user_id).values_list("email", flat=True).first() or ""


def account_settings(account: Account) -> dict[str, Any]:
    """The account as its owner sees it: name, email, whether a program plays it, and which
    notices it wants by email."""
    return {
        **account_info(account),
        "email": account.user.email,
        "notify": {notice: account.wants(notice) for notice in Account.NOTICES},
        "language": account.language,
    }


def account_info(account: Account) -> dict[str, Any]:
    return {"username": account.user.username, "bot": account.is_bot}


def mail_account(*, user_id: int) -> dict[str, Any] | None:
    """Who an account is to the mailer: its name, address and the notices it wants."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return None
    account = Account.objects.filter(user=user).first()
    wants = {notice: account.wants(notice) if account else True for notice in Account.NOTICES}
    return {"user": user, "username": user.username, "email": user.email, "notify": wants,
            "language": account.language if account else ""}


def accounts_with_email(*, email: str) -> list[int]:
    """The accounts that gave this address (a bounce names an address, not an account)."""
    return list(User.objects.filter(email__iexact=email).values_list("pk", flat=True))


def accounts_with_any_email(*, among: Iterable[int] | None = None) -> list[int]:
    """Every account that gave an address (those play by email may write to); of `among` only,
    when given."""
    users = User.objects.exclude(email="")
    if among is not None:
        users = users.filter(pk__in=list(among))
    return list(users.values_list("pk", flat=True))


def accounts_emails() -> list[tuple[int, str]]:
    """(account, address) of every account that gave an address."""
    return list(User.objects.exclude(email="").values_list("pk", "email"))


def user_get(*, user_id: int) -> Any:
    return User.objects.get(pk=user_id)


def vacations_since(*, user_ids: list[int]) -> dict[int, Any]:
    """When each of these accounts went on vacation (None: not on vacation), for their clocks."""
    return dict(Account.objects.filter(user_id__in=user_ids).values_list("user_id", "vacation_since"))


def bot_account_user(*, username: str) -> Any:
    """The user of the bot account named `username`, or None when there is none."""
    bot = Account.objects.select_related("user").filter(user__username=username, is_bot=True).first()
    return None if bot is None else bot.user


def is_bot_account(*, user: Any) -> bool:
    return Account.objects.filter(user=user, is_bot=True).exists()


def tokens_live(*, user: Any, at: dt.datetime | None = None):
    """The account's scoped tokens that still work: not revoked, not expired."""
    at = at or time_controls.now()
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    return live.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=at))


def token_info(token: ApiToken, key: str | None = None) -> dict[str, Any]:
    """A token as its owner sees it; the key only in the answer that made it."""
    return {
        "id": token.pk,
        "name": token.name,
        "scopes": token.scopes,
        "prefix": token.prefix,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        **({"token": key} if key is not None else {}),
    }


def token_list(*, user: Any) -> list[dict[str, Any]]:
    return [token_info(token) for token in tokens_live(user=user).order_by("pk")]


def language_and_zone(*, user_id: int) -> tuple[str, str]:
    """(language, time zone) an account chose for pages and mail: "" where it chose no language
    (the browser's then), "UTC" where it named no zone (its mail preference's)."""
    found = Account.objects.filter(user_id=user_id).values_list("language", "user__mail_preference__time_zone").first()
    return (found[0] or "", found[1] or "UTC") if found else ("", "UTC")
