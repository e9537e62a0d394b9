"""Telling live streams that a game has a new event: a Redis publish after the commit.

Each write that appends events calls `event_recorded(game_id, seq)` once committed (a chat line, `chat_after_commit`); once
its transaction commits, the game's id and seq go out on the channel `scrapyard:game:<id>`, which
every stream process listens to (`streams.hub`). Redis publishes a channel to every client of the
server whatever db it chose, so the channels begin with `SCRAPYARD_REDIS_NAMESPACE` (`scrapyard`),
which two installations sharing one Redis set apart. A lost publish (Redis away) delays a stream
by at most its re-check interval: streams read the log itself, the message only wakes them. With
no Redis (the embedded default) nothing is published and streams poll.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import redis
from django.conf import settings
from django.db import transaction

from games.models import Game

log = logging.getLogger(__name__)


def game_prefix() -> str:
    return f"{settings.SCRAPYARD_REDIS_NAMESPACE}:game:"


def account_prefix() -> str:
    """An account seated in a game it did not make (a pairing, a tournament's table, a join)
    hears of it at once on its feed, which until then watches only the games it knew."""
    return f"{settings.SCRAPYARD_REDIS_NAMESPACE}:account:"


def channel(game_id: int) -> str:
    return f"{game_prefix()}{game_id}"


@functools.cache
def _client(url: str) -> redis.Redis:
    # Short timeouts: a move must never wait on a stream notification.
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def event_recorded(game_id: int, seq: int) -> None:
    """The game's log grew to `seq` and the write committed (`games.projection`)."""
    if settings.REDIS_URL:
        _publish(game_id, seq)


def chat_after_commit(game: Game, line_id: int) -> None:
    """A chat line said: the game's streams (and its chat streams) wake; the log is unchanged."""
    if not settings.REDIS_URL:
        return
    game_id, seq = game.pk, game.seq
    transaction.on_commit(lambda: _publish(game_id, seq, chat=line_id), robust=True)


def members_changed(game: Game) -> None:
    """Who may watch the game changed without an event (an invitation declined): its streams
    check their callers' access again before sending anything more."""
    if not settings.REDIS_URL:
        return
    game_id, seq = game.pk, game.seq
    transaction.on_commit(lambda: _publish(game_id, seq, members=1), robust=True)


def seated(game: Game, user_id: int) -> None:
    """The account took a seat: its feed (`GET /api/stream/`) looks at its games again."""
    if not settings.REDIS_URL:
        return
    game_id = game.pk
    transaction.on_commit(lambda: _publish_to_account(user_id, game_id), robust=True)


def account_news(user_id: int, game_id: int) -> None:
    """Something concerning the account changed outside a game's log (an invitation): its feed
    looks again, once the change commits."""
    if not settings.REDIS_URL:
        return
    transaction.on_commit(lambda: _publish_to_account(user_id, game_id), robust=True)


def feed_item(user_id: int, row_id: int) -> None:
    """An item of the account's feed was stored (`streams.account_feed`): its streams read their
    rows. Raises `redis.RedisError` when Redis is away, so the feed's consumer tries again; with
    no Redis (the embedded default) nothing is published and the streams poll."""
    if settings.REDIS_URL:
        _client(settings.REDIS_URL).publish(f"{account_prefix()}{user_id}", json.dumps({"feed": row_id}))


def _publish_to_account(user_id: int, game_id: int) -> None:
    try:
        _client(settings.REDIS_URL).publish(f"{account_prefix()}{user_id}", json.dumps({"game": game_id}))
    except redis.RedisError as error:
        log.warning("seat notice for account %s not sent (%s); its feed re-checks soon", user_id, error)


def _publish(game_id: int, seq: int, **more: int) -> None:
    notice = (channel(game_id), json.dumps({"game": game_id, "seq": seq, **more}))
    held = getattr(_together, "notices", None)
    if held is not None:
        held.append(notice)
        return
    try:
        _client(settings.REDIS_URL).publish(*notice)
    except redis.RedisError as error:
        log.warning("stream notice for game %s seq %s not sent (%s); streams re-check soon", game_id, seq, error)


_together = threading.local()


@contextmanager
def publishing_together() -> Iterator[None]:
    """Within it, this thread's game notices wait and leave together at its end, in one round
    trip (a pipeline, in order): the after-commit thread runs the jobs of a burst of moves this
    way (`consumers.after_commit`), far cheaper than publishing each alone
    (docs/decisions/0005-after-commit-thread.md)."""
    if getattr(_together, "notices", None) is not None:
        yield  # already inside: the outer one sends
        return
    _together.notices = []
    try:
        yield
    finally:
        notices, _together.notices = _together.notices, None
        if notices and settings.REDIS_URL:
            _publish_all(notices)


def _publish_all(notices: list[tuple[str, str]]) -> None:
    try:
        pipeline = _client(settings.REDIS_URL).pipeline(transaction=False)
        for notice in notices:
            pipeline.publish(*notice)
        pipeline.execute()
    except redis.RedisError as error:
        log.warning("%d stream notices not sent (%s); streams re-check soon", len(notices), error)
