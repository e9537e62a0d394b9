"""Accounts: sign-up, tokens (the first, all-powerful one, and scoped ones: `accounts.auth`), and vacation (which stops the account's correspondence and bank
clocks; see `games.deadlines`).

Each account has `vacation_days_per_year` (default 30), counted per calendar year (UTC) of the
day the vacation ends. While on vacation the clocks stop (a deadline already passed stays passed);
they run again when it ends, by `vacation_set(on=False)` or when the days run out
(`vacations_expire`, run by every deadline sweep). A person on vacation may still move.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any, Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authtoken.models import Token

from accounts import auth, selectors
from accounts.errors import AccountHasPlayed, InvalidCredentials, TokenNotFound, TooManyTokens, UsernameTaken
from accounts.models import Account, ApiToken
from apikit.errors import InvalidInput
from games import selectors as game_selectors
from games import time_controls
from games.errors import NoVacationLeft
from games.services.clocks import clocks_of_user_set
from rules.words import msg

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
        raise UsernameTaken(msg("the username {name!r} is taken", name=username)) from None
    return user, Token.objects.create(user=user)


def token_obtain(*, username: str, password: str) -> Token:
    user = User.objects.filter(username=username).first()
    if user is None or not user.is_active or not user.check_password(password):
        raise InvalidCredentials(msg("wrong username or password"))
    token, _ = Token.objects.get_or_create(user=user)
    return token


def account_of(user: Any) -> Account:
    """The user's account row, made on first use."""
    account, _ = Account.objects.get_or_create(user=user)
    return account


@transaction.atomic
def bot_account_mark(*, user: Any) -> Account:
    """The account becomes a bot's: people seat it as they seat the server's bots, and a program
    plays it through the API. Only an account that has never taken a seat may become one (its
    games were a person's); marking it again changes nothing."""
    account = Account.objects.select_for_update().get(pk=account_of(user).pk)
    if account.is_bot:
        return account
    if game_selectors.has_taken_a_seat(user=user):
        raise AccountHasPlayed(msg("an account that has played as a person cannot become a bot's; make a new one"))
    account.is_bot = True
    account.save(update_fields=["is_bot"])
    return account


@transaction.atomic
def account_update(*, user: Any, email: str | None = None, notify: dict[str, bool] | None = None,
                   language: str | None = None) -> Account:
    """Change the account's email address and which notices it wants by email (play by email);
    a notice left out keeps its setting."""
    account = Account.objects.select_for_update().get(pk=account_of(user).pk)
    if email is not None:
        try:
            if email:
                validate_email(email)
        except ValidationError:
            raise InvalidInput(msg("{email!r} is not an email address", email=email), fields={"email": ["not an email address"]}) from None
        user.email = email
        user.save(update_fields=["email"])
    if notify:
        unknown = sorted(set(notify) - set(Account.NOTICES))
        if unknown:
            raise InvalidInput(msg("no such notice: {unknown}; the notices are {notices}", unknown=', '.join(unknown), notices=', '.join(Account.NOTICES)))
        account.notify = {**account.notify, **{notice: bool(on) for notice, on in notify.items()}}
        account.save(update_fields=["notify"])
    if language is not None:
        account.language = language
        account.save(update_fields=["language"])
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
            raise NoVacationLeft(msg("no vacation days left in {year}", year=at.year))
        account.vacation_since = at
        account.save(update_fields=["vacation_since"])
        clocks_of_user_set(user, at, running=False)
    else:
        _vacation_close(account, at)
        clocks_of_user_set(user, at, running=True)
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
                    clocks_of_user_set(locked.user, end, running=True)
                    ended += 1
    return ended


# --- scoped tokens ---------------------------------------------------------------------------

TOKENS_PER_ACCOUNT = 100  # live (unrevoked, unexpired) ones: enough for every bot and client


def token_create(
    *, user: Any, scopes: Iterable[str], name: str = "", expires_at: dt.datetime | None = None, by: Any = None
) -> tuple[ApiToken, str]:
    """A new scoped token and its key, which is never shown again. `by` is the credential asking:
    a scoped token can give another token only scopes it holds itself."""
    wanted = sorted(set(scopes))
    unknown = [scope for scope in wanted if scope not in auth.SCOPES]
    if not wanted or unknown:
        raise InvalidInput(msg("scopes must be some of {scopes}; not {value}", scopes=', '.join(auth.SCOPES), value=unknown or 'none'))
    lacking = [scope for scope in wanted if scope not in auth.scopes_of(by)]
    if lacking:
        raise auth.MissingScope(lacking[0])
    now = time_controls.now()
    if expires_at is not None and expires_at <= now:
        raise InvalidInput(msg("expires_at must be in the future"))
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # one count at a time per account; revoking waits too
        _still_live(by)
        if selectors.tokens_live(user=user, at=now).count() >= TOKENS_PER_ACCOUNT:
            raise TooManyTokens(msg("an account may hold {tokens_per_account} live tokens; revoke one first", tokens_per_account=TOKENS_PER_ACCOUNT))
        key = auth.SCOPED_PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(
            user=user,
            name=name,
            key_digest=auth.key_digest(key),
            prefix=key[: len(auth.SCOPED_PREFIX) + 6],
            scopes=wanted,
            expires_at=expires_at,
        )
    return token, key


def token_revoke(*, user: Any, token_id: int) -> None:
    """The token stops working at once; revoking it again changes nothing."""
    token = ApiToken.objects.filter(pk=token_id, user=user).first()
    if token is None:
        raise TokenNotFound(msg("you have no token {token_id}", token_id=token_id))
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # a mint by this token waits, then sees it revoked
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=time_controls.now())
        auth.revoked(token.key_digest)  # every process forgets it once this commits


def _still_live(by: Any) -> None:
    """The credential asking to mint is still live, read under the account's lock (a process's
    memory of tokens may be a moment behind a revocation; the database is not)."""
    if isinstance(by, ApiToken):
        live = ApiToken.objects.filter(pk=by.pk, revoked_at__isnull=True).exists()
    elif isinstance(by, Token):
        live = Token.objects.filter(key=by.key).exists()
    else:
        return  # a browser session
    if not live:
        raise exceptions.AuthenticationFailed(_("invalid token"))


@transaction.atomic
def first_token_rotate(*, user: Any) -> Token:
    """The account's first token gets a new key; the old one stops working at once everywhere."""
    _first_token_drop(user)
    return Token.objects.create(user=user)


@transaction.atomic
def first_token_revoke(*, user: Any) -> None:
    """The account's first token stops working at once everywhere; `POST /api/accounts/token/`
    (username and password) makes a new one. Revoking it again changes nothing."""
    _first_token_drop(user)


def _first_token_drop(user: Any) -> None:
    User.objects.select_for_update().get(pk=user.pk)  # a mint by the old key waits, then finds it gone
    old = Token.objects.filter(user=user).first()
    if old is not None:
        digest = auth.key_digest(old.key)  # before the delete: the key is the row's primary key
        old.delete()
        auth.revoked(digest)
