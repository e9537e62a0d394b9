"""Accounts: sign-up, tokens, and vacation (which stops the account's correspondence and bank
clocks; see `games.deadlines`).

Each account has `vacation_days_per_year` (default 30), counted per calendar year (UTC) of the
day the vacation ends. While on vacation the clocks stop (a deadline already passed stays passed);
they run again when it ends, by `vacation_set(on=False)` or when the days run out
(`vacations_expire`, run by every deadline sweep). A person on vacation may still move.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from games import deadlines, selectors, time_controls
from games.errors import InvalidCredentials, InvalidInput, NoVacationLeft, UsernameTaken
from games.models import Account

User = get_user_model()


def account_create(*, username: str, password: str, email: str = "") -> tuple[Any, Token]:
    candidate = User(username=username, email=email)
    try:
        User.username_validator(username)
        if email:
            validate_email(email)
        validate_password(password, user=candidate)
    except ValidationError as error:
        raise InvalidInput("; ".join(error.messages)) from None
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
    except IntegrityError:
        raise UsernameTaken(f"the username {username!r} is taken") from None
    return user, Token.objects.create(user=user)


def token_obtain(*, username: str, password: str) -> Token:
    user = User.objects.filter(username=username).first()
    if user is None or not user.is_active or not user.check_password(password):
        raise InvalidCredentials("wrong username or password")
    token, _ = Token.objects.get_or_create(user=user)
    return token


def account_of(user: Any) -> Account:
    """The user's account row, made on first use."""
    account, _ = Account.objects.get_or_create(user=user)
    return account


@transaction.atomic
def vacation_set(*, user: Any, on: bool, at: dt.datetime | None = None) -> Account:
    """Start or end the user's vacation; starting with no days left raises NoVacationLeft."""
    at = at or time_controls.now()
    account_of(user)
    account = Account.objects.select_for_update().get(user=user)
    if on == (account.vacation_since is not None):
        return account
    if on:
        if selectors.vacation_info(account, at)["days_left"] <= 0:
            raise NoVacationLeft(f"no vacation days left in {at.year}")
        account.vacation_since = at
        account.save(update_fields=["vacation_since"])
        deadlines.clocks_of_user_set(user, at, running=False)
    else:
        _vacation_close(account, at)
        deadlines.clocks_of_user_set(user, at, running=True)
    return account


def _vacation_close(account: Account, at: dt.datetime) -> None:
    if account.vacation_year != at.year:
        account.vacation_year, account.vacation_used_seconds = at.year, 0.0
    account.vacation_used_seconds += (at - account.vacation_since).total_seconds()
    account.vacation_since = None
    account.save(update_fields=["vacation_year", "vacation_used_seconds", "vacation_since"])


def vacations_expire(*, at: dt.datetime | None = None) -> int:
    """End every vacation whose days ran out, restarting clocks from that moment."""
    at = at or time_controls.now()
    ended = 0
    for account in Account.objects.filter(vacation_since__isnull=False).select_related("user"):
        end = selectors.vacation_end(account, at)
        if end is not None and end <= at:
            with transaction.atomic():
                locked = Account.objects.select_for_update().get(pk=account.pk)
                if locked.vacation_since is not None:
                    _vacation_close(locked, end)
                    deadlines.clocks_of_user_set(locked.user, end, running=True)
                    ended += 1
    return ended
