"""Who is asking and what they may do: tokens with scopes.

Three kinds of token travel as `Authorization: Token <key>` or, alike, `Authorization: Bearer
<key>`. An account's first token (DRF's authtoken, from `POST /api/accounts/` or
`/api/accounts/token/`) may do everything, as may a browser session. A scoped token (`POST
/api/tokens/`) may do only what its scopes name, until it expires or is revoked; the server keeps
only its key's SHA-256, so a stolen database holds no usable key. An OAuth access token (keys
starting `syo_`, `accounts.oauth`), which a player gave a third-party app, has the same scopes and
is read, kept and revoked the same way (django-oauth-toolkit keeps its SHA-256 too). A view
names the scope each method needs (`scopes`); a request outside its token's scopes gets 403
`missing_scope` naming the scope.

Every API request names its token, and reading it cost a statement per request
(docs/decisions/0009-tokens-kept-per-process.md). Each process keeps the tokens it has read for
`SCRAPYARD_TOKEN_CACHE_SECONDS` (10), but only while it hears every revocation: a revoked token's
key digest is published on Redis (`<namespace>:token-revoked`) once the revocation commits, and a
thread in each process listens and forgets it at once, so a revoked token stops working on every
process together. While that listener is not connected (Redis away, or no Redis at all) the process
keeps no tokens and reads each one every time; a listener that reconnects starts with an empty
memory. An expiry is checked on every request. Minting a token checks, under the account's lock
that revoking also takes, that the token asking is still live: a revoked token never mints. Each
request gets its own fresh copy of the account and token, so nothing one request loads onto them is
seen by another.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading
import time
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.db.models import Model
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.permissions import BasePermission

from accounts.models import ApiToken
from games import time_controls
from project.instances import loaded_instance

log = logging.getLogger(__name__)

SCOPES = ("read", "play", "bot", "webhooks", "account")
SCOPED_PREFIX = "sy_"
OAUTH_PREFIX = "syo_"
KEYWORDS = (b"token", b"bearer")


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ScopedTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, also reading scoped tokens (their keys start with `sy_`) and
    OAuth access tokens (`syo_`), each as `Token <key>` or `Bearer <key>`."""

    def authenticate(self, request):
        """DRF's, with the header read from the WSGI environ: DRF asks `request.headers`, which
        Django builds from every environ entry (granian's hold the server's whole process
        environment), a cost on every request for the one header wanted here."""
        words = request.META.get("HTTP_AUTHORIZATION", "").encode("latin-1").split()
        if not words or words[0].lower() not in KEYWORDS:
            return None
        if len(words) == 1:
            raise exceptions.AuthenticationFailed(_("Invalid token header. No credentials provided."))
        if len(words) > 2:
            raise exceptions.AuthenticationFailed(_("Invalid token header. Token string should not contain spaces."))
        try:
            key = words[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed(
                "Invalid token header. Token string should not contain invalid characters.") from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        digest = key_digest(key)
        known = _known.get(digest) if hearing_revocations() else None
        if known is not None and known[0] > time.monotonic():
            user, token = _copy(known[1]), _copy(known[2])
        else:
            user, token = self._look_up(key)
            _remember(digest, user, token)
        if _expired(token):
            raise exceptions.AuthenticationFailed(_("this token has expired"))
        return user, token

    def _look_up(self, key: str) -> tuple[Any, Any]:
        if key.startswith(OAUTH_PREFIX):
            return _oauth_look_up(key)
        if not key.startswith(SCOPED_PREFIX):
            return super().authenticate_credentials(key)
        token = ApiToken.objects.select_related("user").filter(key_digest=key_digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("invalid token"))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("user inactive or deleted"))
        return token.user, token


def _oauth_look_up(key: str) -> tuple[Any, Any]:
    from oauth2_provider.models import get_access_token_model

    token = get_access_token_model().objects.select_related("user").filter(token_checksum=key_digest(key)).first()
    if token is None or token.user is None:  # revoked tokens are deleted; a client's own has no user
        raise exceptions.AuthenticationFailed(_("invalid token"))
    if not token.user.is_active:
        raise exceptions.AuthenticationFailed(_("user inactive or deleted"))
    return token.user, token


def _expired(token: Any) -> bool:
    if isinstance(token, ApiToken):
        return token.expires_at is not None and token.expires_at <= time_controls.now()
    expires = getattr(token, "expires", None)  # an OAuth access token always expires
    return expires is not None and expires <= time_controls.now()


_known: dict[str, tuple[float, Model, Model]] = {}  # key digest -> (until, account, token)
_known_lock = threading.Lock()
KNOWN_AT_MOST = 10_000


def _remember(digest: str, user: Model, token: Model) -> None:
    seconds = settings.SCRAPYARD_TOKEN_CACHE_SECONDS
    if seconds <= 0 or not hearing_revocations():
        return
    with _known_lock:
        if len(_known) >= KNOWN_AT_MOST:
            _known.clear()  # rare: a burst of new tokens; they are read again
        _known[digest] = (time.monotonic() + seconds, _copy(user), _copy(token))


def known_live(digest: str) -> bool:
    """Whether this process holds the token as live in memory now (no database read): a live
    stream checks its token this way before each item, and reads it afresh only when this says
    no (revoked, expired, or simply not remembered)."""
    if not hearing_revocations():
        return False
    known = _known.get(digest)
    if known is None or known[0] <= time.monotonic():
        return False
    return not _expired(known[2])


def forget_token(key_digest_: str | None = None) -> None:
    """Drop a token (all, if None) from this process's memory: revoked here, it stops at once."""
    with _known_lock:
        if key_digest_ is None:
            _known.clear()
        else:
            _known.pop(key_digest_, None)


def revoked(digest: str) -> None:
    """The token with this key digest was revoked (or its key replaced): forget it here at once,
    and in every other process once the transaction commits."""
    forget_token(digest)
    transaction.on_commit(lambda: _publish_revoked(digest), robust=True)


def revocation_channel() -> str:
    return f"{settings.SCRAPYARD_REDIS_NAMESPACE}:token-revoked"


def _publish_revoked(digest: str) -> None:
    forget_token(digest)  # again: a request between the forget and the commit may have read it back
    if not settings.REDIS_URL:
        return
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2).publish(
            revocation_channel(), digest
        )
    except redis.RedisError as error:
        # The other processes' listeners see the same outage, drop their memory and read each token.
        log.warning("token revocation not published (%s); other processes read every token until Redis is back", error)


_hearing = threading.Event()  # set while this process's listener is subscribed
_listener_pid: int | None = None
_listener_lock = threading.Lock()
PING_SECONDS = 5.0


def hearing_revocations() -> bool:
    """Whether this process hears every revocation now (and so may keep tokens it read)."""
    if _listener_pid is None:
        _start_listener()
    return _hearing.is_set()


def _forked() -> None:
    global _listener_pid
    _listener_pid = None  # the parent's listener thread is not in this process: start our own


os.register_at_fork(after_in_child=_forked)


def _start_listener() -> None:
    global _listener_pid
    with _listener_lock:
        if _listener_pid is not None:
            return
        _listener_pid = os.getpid()
        _hearing.clear()
        forget_token()
        if settings.REDIS_URL:
            threading.Thread(target=_listen, args=(settings.REDIS_URL,), name="token-revocations", daemon=True).start()


def _listen(url: str) -> None:
    while True:
        try:
            _listen_once(url)
        except Exception as error:  # Redis away: read every token until the listener is back
            if _hearing.is_set():
                log.warning("token revocation listener lost Redis (%s); reading every token meanwhile", error)
        _hearing.clear()
        forget_token()
        time.sleep(1)


def _listen_once(url: str) -> None:
    """Subscribe, then forget each revoked digest as it comes. A ping every few seconds proves
    the connection alive; no answer for three of them counts as a lost connection."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=3 * PING_SECONDS)
    try:
        pubsub = client.pubsub()
        pubsub.subscribe(revocation_channel())
        answered = pinged = time.monotonic()
        while True:
            message = pubsub.get_message(timeout=PING_SECONDS)
            now = time.monotonic()
            if message is not None:
                answered = now
                if message["type"] == "subscribe":
                    forget_token()  # revocations may have gone by unheard before this
                    _hearing.set()
                elif message["type"] == "message":
                    forget_token(message["data"].decode())
            if now - pinged >= PING_SECONDS:
                pubsub.ping()
                pinged = now
            if now - answered > 3 * PING_SECONDS:
                raise ConnectionError("no answer to pings")
    finally:
        client.close()


def _copy(instance: Model) -> Model:
    """A fresh instance with the same column values and nothing loaded onto it."""
    names, columns = _attnames(type(instance)), instance.__dict__  # every column is in the kept instance's dict
    return loaded_instance(type(instance), names, [columns[name] for name in names], instance._state.db)


@functools.cache
def _attnames(model: type[Model]) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def is_oauth(auth: Any) -> bool:
    """Whether the credential is a third-party app's OAuth access token (oauth2_provider's)."""
    return isinstance(auth, Model) and hasattr(auth, "token_checksum")


def scopes_of(auth: Any) -> frozenset[str]:
    """What the request's credentials may do: a scoped token its scopes, an OAuth access token
    those its player granted, anything else all."""
    if isinstance(auth, ApiToken):
        return frozenset(auth.scopes)
    if is_oauth(auth):
        return frozenset(auth.scope.split())
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
