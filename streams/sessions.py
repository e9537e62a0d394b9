"""Browser sessions, as long streams check them.

A stream opened with a session cookie (the web client's EventSource) must stop when that
session ends, as a token's stream stops when the token is revoked. A logout publishes the
session's digest on the revoked tokens' channel (`accounts.auth`), which every stream process's hub
hears (`streams.hub`): the stream ends at once. A session that ends another way (deleted,
expired, or no longer valid after a password change) is found by reading it again, which a
stream does before a batch at most every `SCRAPYARD_TOKEN_CACHE_SECONDS`, and on every batch
while its hub cannot hear notices.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest

from accounts import auth

PREFIX = "session:"  # never a token's digest (hex only): the two share the revocation channel


def digest(session_key: str) -> str:
    """The name a session's end is published under: its key is a secret, so only its hash travels."""
    return PREFIX + auth.key_digest(session_key)


def still_signed_in(*, session_key: str, user_id: int) -> bool:
    """Whether the session still exists, unexpired, signed in as this account with its current
    password (what a request with its cookie would find)."""
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = get_user(request)
    return user.is_authenticated and user.pk == user_id


def logged_out(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """`user_logged_out`: publish the session's end, after the logout commits."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if session_key:
        auth.revoked(digest(session_key))
