"""Who is asking and what they may do: tokens with scopes.

Two kinds of token travel as `Authorization: Token <key>`. An account's first token (DRF's
authtoken, from `POST /api/accounts/` or `/api/accounts/token/`) may do everything, as may a
browser session. A scoped token (`POST /api/tokens/`) may do only what its scopes name, until it
expires or is revoked; the server keeps only its key's SHA-256, so a stolen database holds no
usable key. A view names the scope each method needs (`scopes`); a request outside its token's
scopes gets 403 `missing_scope` naming the scope.
"""

from __future__ import annotations

import hashlib
from typing import Any

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
        if not key.startswith(SCOPED_PREFIX):
            return super().authenticate_credentials(key)
        token = ApiToken.objects.select_related("user").filter(key_digest=key_digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("invalid token")
        if token.expires_at is not None and token.expires_at <= time_controls.now():
            raise exceptions.AuthenticationFailed("this token has expired")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("user inactive or deleted")
        return token.user, token


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
        needed = getattr(view, "scopes", {}).get(request.method)
        if needed is None or request.user is None or not request.user.is_authenticated:
            return True
        if needed not in scopes_of(request.auth):
            raise MissingScope(needed)
        return True
