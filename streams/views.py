"""Live streams of a game's log: `GET /api/games/{id}/stream/`.

The first item is `game_full`: the game as the caller sees it now (`game`: what
`GET /api/games/{id}/` gives, view included; `legal_moves`: what `/legal-moves/` gives a seated
caller, else null; `seq`: the event the state includes, also its SSE `id:`), so a client needs no
other request to start. The stream goes on from that seq: only events after it come, unless the
client asks for earlier ones with `?after=N` or `Last-Event-ID: N` (then the events after N).
Each event item is exactly what `GET /api/games/{id}/events/` gives the caller (a spectator sees
only public payloads), as Server-Sent Events (`id:` is the event's seq, so a browser's
EventSource resumes by itself with `Last-Event-ID`) or, with `Accept: application/x-ndjson`, one
JSON object a line. After each batch of events comes a `game_state` (`id:` its seq): the state the
newest of them left, so a bot plays from its stream alone.

Every state item (`game_full`, `game_state`) says the `seq`, `status`, `to_act`, the clocks
(`deadline`, `deadlines`: each due time) and `result`, the same for every caller (all of it is in
`GET /api/games/{id}/`), and `legal_moves`: null for a spectator; for a seat, its own moves at that
seq when it is to act (else none), taken from the same read of the game as the state (so they
are the moves at that very seq, with no read of the stream's own). No stream ever carries another
seat's moves, and the public part is read once for all of a game's streams (`streams.feed`), so
neither an item nor its timing tells one seat anything of another's.

A comment (an empty line in NDJSON) every `SCRAPYARD_STREAM_KEEPALIVE_SECONDS` (15) keeps proxies
from closing an idle stream; the stream ends after the state that says a game is finished. The
chat stream and the account feed, which may have nothing to say for hours, open with such a
comment (an empty NDJSON line), sent with the headers: a client, and any proxy between, knows at
once that the stream is open.

Access follows the caller, not the moment it connected. Every item is rendered for the caller's
seat at that event: a `seat_left` naming the caller makes it a spectator from there on (so the
seat's next occupant's secrets never reach it), a `seat_taken` naming it seats it. Before each
batch the stream checks that its token still works (from the process's memory of tokens, which
every revocation reaches at once: `accounts.auth`), or that its browser session is still signed in
(a logout reaches it at once; a session ended otherwise is read again at most every
`SCRAPYARD_TOKEN_CACHE_SECONDS`: `streams.sessions`) and, for a private game, that the caller may
still see it whenever its seat changed or a notice says who may watch changed (an invitation
declined; `streams.hub`). When access is gone the stream sends a last item, `stream_end`, with
its `reason` (`token_revoked`, `session_ended`, `access_lost`), and ends. The chat stream and
the account feed end the same way.

Opening a stream counts against the caller's rate limit (its account's, else its address's, as a
token that does not work is counted too), and the answer says where it stands in `RateLimit` and
`RateLimit-Policy`; over the limit, 429 `rate_limited` with `Retry-After`.

Streams are async views for an ASGI server (`project.asgi`, the `streams` process of `make run`):
a stream is a coroutine waiting on the process's hub (`streams.hub`), never a thread or a sync
worker. A WSGI server hands a stream request's connection to the stream process on its machine
(`streams.handoff`), or else answers with a redirect to `SCRAPYARD_STREAM_URL`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse, StreamingHttpResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.utils.encoders import JSONEncoder

from accounts import auth
from apikit import errors as apikit_errors
from apikit import http_errors
from chat import selectors as chat_selectors
from games import errors, selectors
from project import throttles
from project.security import origin_of
from rules.words import msg
from streams import account_feed, handoff, sessions
from streams.feed import FEED
from streams.hub import HUB

# A game's `status` as the API gives it (GET /api/games/{id}/).
OPEN, ACTIVE, FINISHED = "open", "active", "finished"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"


# Why a stream ended early.
TOKEN_REVOKED, SESSION_ENDED, ACCESS_LOST = "token_revoked", "session_ended", "access_lost"


def _stream_route(view):
    """GET streams. HEAD answers as GET would, after the same token, scope and access checks,
    with the headers only and no stream held open. Any other method is 405 `method_not_allowed`
    in the API's JSON shape, not Django's empty HTML answer."""

    @functools.wraps(view)
    async def route(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            refused = _refusal(exceptions.MethodNotAllowed(request.method))
            refused["Allow"] = "GET, HEAD"
            return refused
        response = await view(request, *args, **kwargs)
        if request.method == "HEAD" and response.streaming:
            response.streaming_content = _nothing()  # the stream's generator is never started
        return response

    return route


async def _nothing() -> AsyncIterator[str]:
    return
    yield


@dataclass
class Caller:
    """Who a stream serves, kept so the stream can check again, as it runs, what they may see."""

    user: Any
    key: str | None = field(default=None, repr=False)  # the token it opened with (None: a session, or nobody)
    digest: str | None = None  # the token's key digest, by which revocations name it
    session_key: str | None = field(default=None, repr=False)  # the browser session it opened with
    session: str | None = None  # that session's digest, by which a logout names it
    session_sure_until: float = 0.0  # read as signed in lately: no need to read it again before
    session_epoch: int = -1  # the hub's subscription when it was read (a new one may have missed a logout)
    invitation: str = ""  # a private game's link lets its holder watch
    seat: int | None = None
    private: bool = False
    access_seen: tuple[int, int] | None = None  # the hub's access version at the last check

    def follow(self, event) -> bool:
        """Move the caller's seat with a seat event naming it; whether it did."""
        payload = event.payload if isinstance(event.payload, dict) else {}
        kind = payload.get("type")
        if kind not in ("seat_taken", "seat_left") or not self.user.is_authenticated:
            return False
        if payload.get("username") != self.user.get_username():
            return False
        self.seat = event.seat if kind == "seat_taken" else None
        return True


@_stream_route
async def game_stream(request, game_id: int):
    if not isinstance(request, ASGIRequest):
        return _elsewhere(request)
    try:
        caller = await _caller(request)  # first: it counts the opening, whatever is refused after
        asked = _resume_point(request)
        caller.invitation = request.GET.get("invitation", "")
        caller.access_seen = HUB.access_version(game_id)  # before the read: a change during it is seen
        full = await _run(_game_full, game_id=game_id, caller=caller)  # unknown: refused here
    except (apikit_errors.ServiceError, exceptions.APIException) as error:
        return _shared_with_pages(request, _refusal(error))
    # game_full holds everything up to its seq; a resume point past it names no event there can
    # be (seqs only grow): read as the game's seq, so the next event comes.
    after = full["seq"] if asked is None else min(asked, full["seq"])
    kind = _kind(request)
    return _shared_with_pages(request, _streaming(_stream(game_id, caller, full, after, kind), kind))


@_stream_route
async def chat_stream(request, game_id: int):
    """`GET /api/games/{id}/chat/stream/`: the game's chat lines the caller may read (as
    `GET /api/games/{id}/chat/` gives them), live; `id:` is the line's id, so `Last-Event-ID` or
    `?after=` resumes. Players and spectators hear their own channel while the game runs."""
    if not isinstance(request, ASGIRequest):
        return _elsewhere(request)
    try:
        caller = await _caller(request)
        after = _resume_point(request) or 0
        caller.invitation = request.GET.get("invitation", "")
        await _run(selectors.game_for, game_id=game_id, user=caller.user, invitation=caller.invitation)
        after = await _run(chat_selectors.chat_resume_point, game_id=game_id, after=after)
    except (apikit_errors.ServiceError, exceptions.APIException) as error:
        return _shared_with_pages(request, _refusal(error))
    kind = _kind(request)
    return _shared_with_pages(request, _streaming(_chat(game_id, caller, after, kind), kind))


@_stream_route
async def account_stream(request):
    """`GET /api/stream/`: the caller's games as they change, on one connection: `game_started`,
    `your_turn` (again after each event while it stays the caller's turn), `deadline_warning`
    (once 80% of the move's time is used), `game_adjourned` (nobody moved for the abandonment
    days: the game is aborted at `aborts_at` unless someone moves), `game_over` (with the result);
    and the invitations to a private game to or from the account: `invitation_created`,
    `invitation_declined`, `invitation_cancelled`, `invitation_accepted`. On connecting, each game
    being played is announced, with `your_turn` where it is, and each pending invitation. Each
    item after that is a row of the feed's outbox (`streams.account_feed`), its id the SSE `id:`:
    `Last-Event-ID` (or `?after=`) resumes after it, with the items made since and none twice,
    while the account's feed was followed all along (a stream open within `LIVE_SECONDS`); else
    the stream opens afresh."""
    if not isinstance(request, ASGIRequest):
        return _elsewhere(request)
    try:
        caller = await _caller(request)
        if not caller.user.is_authenticated:
            raise exceptions.NotAuthenticated(_("the account feed needs an account: send Authorization: Token <key> (or Bearer <key>)"))
        resume = _resume_point(request)
    except (apikit_errors.ServiceError, exceptions.APIException) as error:
        return _shared_with_pages(request, _refusal(error))
    kind = _kind(request)
    return _shared_with_pages(request, _streaming(_account_feed(caller, kind, resume), kind))


STREAMS_BACK_IN_SECONDS = 2  # a supervised stream process that died answers again within this


def _elsewhere(request) -> HttpResponse:
    """A sync worker must not hold a stream: hand the connection to the stream process on this
    machine (`streams.handoff`: the client never sees another address), else send the client to
    the stream server named by SCRAPYARD_STREAM_URL, if one is. A stream process that should be here but is not (restarting) is not
    pretended: the client hears 503 and when to try again."""
    outcome = handoff.hand_over(request, settings.SCRAPYARD_STREAM_HANDOFF)
    if outcome == handoff.TAKEN:
        throttles.counted_elsewhere(request)  # by the stream process, which answers it
        return HttpResponse(status=204)  # written to a dead socket: the client hears the stream process
    if outcome == handoff.ABSENT or not settings.SCRAPYARD_STREAM_URL:
        answer = JsonResponse({"code": "streams_unavailable",
                               "detail": _("the stream server is restarting; try again in a moment")}, status=503)
        answer["Retry-After"] = str(STREAMS_BACK_IN_SECONDS)
        return answer
    return HttpResponseRedirect(settings.SCRAPYARD_STREAM_URL.rstrip("/") + request.get_full_path())


def _shared_with_pages(request, response):
    """Let the web client's pages read the stream (CORS): it is served from another port, and a
    browser's EventSource sends the session cookie only if the answer names its origin. Only the
    site's own pages (`SCRAPYARD_SITE_URL`) and the origins in `SCRAPYARD_WEB_ORIGINS` may: not
    any port of the same host, where anything at all may be listening."""
    origin = request.headers.get("Origin")
    if origin and (origin == origin_of(settings.SCRAPYARD_SITE_URL) or origin in settings.SCRAPYARD_WEB_ORIGINS):
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Allow-Credentials"] = "true"
        response["Vary"] = "Origin"
    return response


def _refusal(error: Exception) -> JsonResponse:
    """The error as the rest of the API answers it (`apikit.http_errors`)."""
    answer = http_errors.exception_handler(error, {})
    refused = JsonResponse(answer.data, status=answer.status_code)
    if "Retry-After" in answer:  # a 429's
        refused["Retry-After"] = answer["Retry-After"]
    return refused


def _kind(request) -> str:
    return NDJSON if NDJSON in request.headers.get("Accept", "") else SSE


def _streaming(items: AsyncIterator[str], kind: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(items, content_type=kind)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each item on at once
    return response


async def _account_feed(caller: Caller, kind: str, resume: int | None) -> AsyncIterator[str]:
    """The account's feed items: on opening (unless it resumes) what is current, then its rows
    (`streams.account_feed`) as they are made, each with its row's id as the SSE `id:`."""
    woken = asyncio.Event()
    reader = account_feed.Reader(caller.user.pk)
    HUB.watch_account(caller.user.pk, woken)
    _watch_token(caller, woken)
    try:
        yield _opened(kind)
        for item in await _run(reader.open, user=caller.user, resume=resume):
            yield _frame(item, kind, item["type"], reader.last)
        last_sent = time.monotonic()
        while True:
            woken.clear()
            rows = await _run(reader.next)
            signed_out = await _signed_out(caller)
            if signed_out:
                yield _end(signed_out, kind)
                return
            for row_id, item in rows:
                yield _frame(item, kind, item["type"], row_id)
                last_sent = time.monotonic()
            keep_alive = await _news_or_keep_alive(woken, last_sent, kind)
            if keep_alive:
                yield keep_alive
                last_sent = time.monotonic()
    finally:
        HUB.unwatch_account(caller.user.pk, woken)
        _unwatch_token(caller, woken)


def _keep_alive(kind: str) -> str:
    return "\n" if kind == NDJSON else ": keep-alive\n\n"


def _opened(kind: str) -> str:
    """A stream's first bytes when it has no item to start with: without a body byte some
    servers, proxies and clients hold even the headers back until the first item, hours later."""
    return "\n" if kind == NDJSON else ": open\n\n"


async def _news_or_keep_alive(woken: asyncio.Event, last_sent: float, kind: str) -> str | None:
    """Wait for news, but not past the next re-check of the log or the next keep-alive; the
    keep-alive to send if one is due now."""
    keepalive = settings.SCRAPYARD_STREAM_KEEPALIVE_SECONDS
    quiet = time.monotonic() - last_sent
    wait = max(0.0, min(settings.SCRAPYARD_STREAM_RECHECK_SECONDS, keepalive - quiet))
    try:
        await asyncio.wait_for(woken.wait(), timeout=wait)
    except asyncio.TimeoutError:
        if time.monotonic() - last_sent >= keepalive:
            return _keep_alive(kind)
    return None


def _resume_point(request) -> int | None:
    """Where the client asked to resume (None: it did not ask)."""
    # A browser's EventSource reconnects to the URL it opened (with its `?after=`) and sends the
    # last id it saw as Last-Event-ID: the header is the newer of the two.
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after")
    if raw is None:
        return None
    try:
        after = int(raw)
    except ValueError:
        raise errors.InvalidInput(msg("after (or Last-Event-ID) must be a whole number, not {raw!r}", raw=raw)) from None
    if after < 0:
        raise errors.InvalidInput(msg("after (or Last-Event-ID) must be 0 or more"))
    return after


async def _caller(request) -> Caller:
    """The account asking (anonymous: a spectator): a token as the API reads it, else the
    browser's session (an Authorization of another scheme is not read, as the API does not). A
    scoped token needs `read`. The opening counts against the account's rate limit, or its
    address's when there is no account or the token does not work."""
    header = request.headers.get("Authorization", "")
    # Not `keyword, _, key`: `_` is gettext here, and a local `_` made every refusal below a 500.
    keyword, _space, key = header.partition(" ")
    if keyword.lower() in ("token", "bearer") and key.strip():
        key = key.strip()
        authenticate = auth.ScopedTokenAuthentication().authenticate_credentials
        try:
            user, token = await _run(authenticate, key=key)
        except exceptions.AuthenticationFailed:
            await _counted(request, None)
            raise
        await _counted(request, user)
        if "read" not in auth.scopes_of(token):
            raise auth.MissingScope("read")
        return Caller(user=user, key=key, digest=auth.key_digest(key))
    if keyword.lower() in ("token", "bearer"):  # the keyword without a key (an empty variable)
        await _counted(request, None)
        raise exceptions.AuthenticationFailed(_("use Authorization: Token <key> or Bearer <key>"))
    # Another scheme (Basic, which a password-protected proxy in front adds to every request of
    # the browser) is not ours: the caller is its session or nobody, as for the API's requests.
    user = await _run(get_user, request=request)
    await _counted(request, user)
    if not user.is_authenticated:
        return Caller(user=user)
    session_key = request.session.session_key
    return Caller(user=user, session_key=session_key, session=sessions.digest(session_key))


async def _counted(request, user: Any) -> None:
    """The opening counted (`project.throttles.counted`, RateLimit headers on the answer); 429
    `rate_limited` over the limit."""
    wait = await _run(throttles.counted, request=request, user=user)
    if wait is not None:
        raise exceptions.Throttled(wait)


def _game_full(game_id: int, caller: Caller) -> dict[str, Any]:
    """The stream's first item, and the caller's seat and the game's privacy, read together."""
    game = selectors.game_for(game_id=game_id, user=caller.user, invitation=caller.invitation)
    caller.seat, caller.private = selectors.seat_of(game=game, user=caller.user), game.private
    legal = selectors.legal_moves_for(game=game, user=caller.user) if caller.seat is not None else None
    return {"type": "game_full", **selectors.public_state(game=game),
            "game": selectors.game_detail(game=game, user=caller.user), "legal_moves": legal}


async def _game_state(caller: Caller, state: dict[str, Any], game: Any) -> dict[str, Any] | None:
    """The state item for the caller (`state`: the public state the newest event sent left;
    `game`: the game as read with it), with the legal moves of the caller's seat at that very seq,
    taken from that read (no query of the stream's own: the moves are kept per seq and seat).
    None if the caller no longer holds the seat the stream followed (a seat event it has not sent)."""
    seat = caller.seat
    if seat is None:
        legal = None
    elif seat in state["to_act"] and state["status"] == ACTIVE:
        legal = await _run(selectors.seat_moves_at, game=game, user=caller.user, seat=seat)
        if legal is None or legal["seq"] != state["seq"]:
            return None
    else:
        legal = {"seq": state["seq"], "seat": seat, "moves": [], "notation": [], "words": []}  # as /legal-moves/ says it
    return {"type": "game_state", **state, "legal_moves": legal}


def _may_see(game_id: int, caller: Caller) -> bool:
    try:
        selectors.game_for(game_id=game_id, user=caller.user, invitation=caller.invitation)
    except errors.GameNotFound:
        return False
    return True


async def _token_live(caller: Caller) -> bool:
    """Whether the stream's token still works: from this process's memory when it holds the token
    (microseconds), else read afresh."""
    if caller.digest is None or auth.known_live(caller.digest):
        return True
    try:
        await _run(_token_check, key=caller.key)
    except exceptions.AuthenticationFailed:
        return False
    return True


def _token_check(key: str) -> None:
    """Raise AuthenticationFailed unless the token still works (read afresh, then remembered)."""
    auth.ScopedTokenAuthentication().authenticate_credentials(key)


async def _session_live(caller: Caller) -> bool:
    """Whether the stream's browser session is still signed in: not if a logout of it was heard;
    else from what the stream read of it lately while its hub hears every logout, else read afresh."""
    if caller.session is None:
        return True
    if HUB.revoked(caller.session):
        return False
    now, epoch = time.monotonic(), HUB.epoch
    if HUB.connected and epoch == caller.session_epoch and now < caller.session_sure_until:
        return True
    if not await _run(sessions.still_signed_in, session_key=caller.session_key, user_id=caller.user.pk):
        return False
    caller.session_sure_until, caller.session_epoch = now + settings.SCRAPYARD_TOKEN_CACHE_SECONDS, epoch
    return not HUB.revoked(caller.session)  # a logout heard during the read


async def _signed_out(caller: Caller) -> str | None:
    """Why the stream's credential no longer works (None: it does)."""
    if not await _token_live(caller):
        return TOKEN_REVOKED
    if not await _session_live(caller):
        return SESSION_ENDED
    return None


async def _lost(game_id: int, caller: Caller, seat_moved: bool) -> str | None:
    """Why the caller may no longer receive the game's items (None: it may): a revoked token or
    an ended session, or (a private game) no longer being allowed to see it."""
    signed_out = await _signed_out(caller)
    if signed_out:
        return signed_out
    if not caller.private:
        return None
    version = HUB.access_version(game_id)
    if seat_moved or version is None or version != caller.access_seen:
        caller.access_seen = version
        if not await _run(_may_see, game_id=game_id, caller=caller):
            return ACCESS_LOST
    return None


def _chat_after(game_id: int, caller: Caller, after: int) -> list[dict[str, Any]] | None:
    """The lines after `after` the caller may read; None if it may no longer see the game."""
    try:
        game = selectors.game_for(game_id=game_id, user=caller.user, invitation=caller.invitation)
    except errors.GameNotFound:
        return None
    return chat_selectors.chat_lines(game=game, user=caller.user, after=after)


def _watch_token(caller: Caller, woken: asyncio.Event) -> None:
    """Wake the stream when its token is revoked or its session logs out."""
    for digest in (caller.digest, caller.session):
        if digest is not None:
            HUB.watch_token(digest, woken)


def _unwatch_token(caller: Caller, woken: asyncio.Event) -> None:
    for digest in (caller.digest, caller.session):
        if digest is not None:
            HUB.unwatch_token(digest, woken)


def _end(reason: str, kind: str) -> str:
    return _frame({"type": "stream_end", "reason": reason}, kind, "stream_end")


def _fresh(selector, **arguments) -> Any:
    close_old_connections()  # the pool's threads keep connections across many reads: drop dead ones
    return selector(**arguments)


async def _run(selector, **arguments) -> Any:
    """Run a read in the shared thread pool, not in the request's own thread: a stream is a long
    request, and a thread (with a database connection) per open stream would not hold thousands.
    The pool's few threads keep their connections (CONN_MAX_AGE) for every stream."""
    return await sync_to_async(_fresh, thread_sensitive=False)(selector, **arguments)


UNCHECKED = ("unchecked",)  # an access version no hub reports


async def _stream(game_id: int, caller: Caller, full: dict[str, Any], after: int, kind: str) -> AsyncIterator[str]:
    recheck = settings.SCRAPYARD_STREAM_RECHECK_SECONDS
    woken = HUB.watch(game_id)
    # The hub counts a game's access notices only while someone watches it: one that came
    # between the full read and this watch was not counted, so the first pass checks access.
    caller.access_seen = UNCHECKED
    FEED.watch(game_id)
    _watch_token(caller, woken)
    last_sent = time.monotonic()
    try:
        yield _frame(full, kind, "game_full", full["seq"])
        while True:
            woken.clear()  # before reading, so news during the read wakes the next wait
            events, state, game = await FEED.since(game_id, after, HUB.newest(game_id), recheck, _run)
            finished = state["status"] == FINISHED
            moved = Caller(caller.user, seat=caller.seat)
            seat_moved = any([moved.follow(event) for event in events])
            reason = await _lost(game_id, caller, seat_moved)  # after the read: true of every event read
            if reason:
                yield _end(reason, kind)
                return
            for event in events:
                caller.follow(event)  # rendered for the seat the caller held at this event
                yield _frame(selectors.event_visible(event, caller.seat, finished), kind, event.kind, event.seq)
                after = event.seq
                last_sent = time.monotonic()
            told = await _game_state(caller, state, game) if events else None
            if told is not None:
                yield _frame(told, kind, "game_state", told["seq"])
            if finished:
                return
            keep_alive = await _news_or_keep_alive(woken, last_sent, kind)
            if keep_alive:
                yield keep_alive
                last_sent = time.monotonic()
    finally:
        FEED.unwatch(game_id)
        HUB.unwatch(game_id, woken)
        _unwatch_token(caller, woken)


async def _chat(game_id: int, caller: Caller, after: int, kind: str) -> AsyncIterator[str]:
    """Chat lies beside the log: each wake (a line said, or the game's news) and each re-check
    reads the lines after the last one sent (checking again that the caller may see the game).
    It runs on after the game ends (talk after a game is usual) until the client leaves."""
    woken = HUB.watch(game_id)
    _watch_token(caller, woken)
    last_sent = time.monotonic()
    try:
        yield _opened(kind)
        while True:
            woken.clear()
            lines = await _run(_chat_after, game_id=game_id, caller=caller, after=after)
            reason = await _signed_out(caller) or (ACCESS_LOST if lines is None else None)
            if reason:
                yield _end(reason, kind)
                return
            for line in lines:
                yield _frame(line, kind, "chat", line["id"])
                after = line["id"]
                last_sent = time.monotonic()
            keep_alive = await _news_or_keep_alive(woken, last_sent, kind)
            if keep_alive:
                yield keep_alive
                last_sent = time.monotonic()
    finally:
        HUB.unwatch(game_id, woken)
        _unwatch_token(caller, woken)


def _frame(body: dict[str, Any], kind: str, name: str, seq: int | None = None) -> str:
    """One item as an NDJSON line, or as a Server-Sent Event (`id:` the seq, when it has one),
    its JSON as the API writes it."""
    data = json.dumps(body, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
    if kind == NDJSON:
        return data + "\n"
    return (f"id: {seq}\n" if seq is not None else "") + f"event: {name}\ndata: {data}\n\n"
