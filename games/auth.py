"""Who is asking and what they may do: tokens with scopes.

Two kinds of token travel as `Authorization: Token <key>`. An account's first token (DRF's
authtoken, from `POST /api/accounts/` or `/api/accounts/token/`) may do everything, as may a
browser session. A scoped token (`POST /api/tokens/`) may do only what its scopes name, until it
expires or is revoked; the server keeps only its key's SHA-256, so a stolen database holds no
usable key. A view names the scope each method needs (`scopes`); a request outside its token's
scopes gets 403 `missing_scope` naming the scope.

Every API request names its token, and reading it cost a statement per request (a fifth of a
move's time). Each process keeps the tokens it has read for `SCRAPYARD_TOKEN_CACHE_SECONDS` (10):
revoking a token takes effect at once in the process that revokes it and within that time in
the others; an expiry is checked on every request. Each request gets its own fresh copy of the
account and token, so nothing one request loads onto them is seen by another.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from django.conf import settings
from django.db.models import Model
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.permissions import BasePermission

from games import time_controls
from games.models import ApiToken

SCOPES = ("read", "play", "bot", "webhooks", "account")
SCOPED_PREFIX = "sy_"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ScopedTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, also reading scoped tokens (their keys start with `sy_`)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        digest = key_digest(key)
        known = _known.get(digest)
        if known is not None and known[0] > time.monotonic():
            user, token = _copy(known[1]), _copy(known[2])
        else:
            user, token = self._look_up(key)
            _remember(digest, user, token)
        if isinstance(token, ApiToken) and token.expires_at is not None and token.expires_at <= time_controls.now():
            raise exceptions.AuthenticationFailed("this token has expired")
        return user, token

    def _look_up(self, key: str) -> tuple[Any, Any]:
        if not key.startswith(SCOPED_PREFIX):
            return super().authenticate_credentials(key)
        token = ApiToken.objects.select_related("user").filter(key_digest=key_digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("invalid token")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("user inactive or deleted")
        return token.user, token


_known: dict[str, tuple[float, Model, Model]] = {}  # key digest -> (until, account, token)
_known_lock = threading.Lock()
KNOWN_AT_MOST = 10_000


def _remember(digest: str, user: Model, token: Model) -> None:
    seconds = settings.SCRAPYARD_TOKEN_CACHE_SECONDS
    if seconds <= 0:
        return
    with _known_lock:
        if len(_known) >= KNOWN_AT_MOST:
            _known.clear()  # rare: a burst of new tokens; they are read again
        _known[digest] = (time.monotonic() + seconds, _copy(user), _copy(token))


def forget_token(key_digest_: str | None = None) -> None:
    """Drop a token (all, if None) from this process's memory: revoked here, it stops at once."""
    with _known_lock:
        if key_digest_ is None:
            _known.clear()
        else:
            _known.pop(key_digest_, None)


def _copy(instance: Model) -> Model:
    """A fresh instance with the same column values and nothing loaded onto it."""
    names = [field.attname for field in instance._meta.concrete_fields]
    return type(instance).from_db(instance._state.db, names, [getattr(instance, name) for name in names])


def scopes_of(auth: Any) -> frozenset[str]:
    """What the request's credentials may do: a scoped token its scopes, anything else all."""
    if isinstance(auth, ApiToken):
        return frozenset(auth.scopes)
    return frozenset(SCOPES)


class MissingScope(exceptions.PermissionDenied):
    def __init__(self, scope: str):
        super().__init__(f"this token lacks the {scope!r} scope")
        self.error_code = "missing_scope"


class TokenScopes(BasePermission):
    """The scope the view's `scopes` names for the request's method (none: anyone may)."""

    def has_permission(self, request, view) -> bool:
        scopes = getattr(view, "scopes", {})
        # HEAD is GET without the body: it tells as much (status, ETag, length), so it needs GET's scope.
        needed = scopes.get(request.method) or (scopes.get("GET") if request.method == "HEAD" else None)
        if needed is None or request.user is None or not request.user.is_authenticated:
            return True
        if needed not in scopes_of(request.auth):
            raise MissingScope(needed)
        return True
