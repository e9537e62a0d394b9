"""Prometheus metrics: what an operator watches (`GET /metrics`, project.ops).

Every process of a node (gunicorn's, uvicorn's, each Celery worker's) counts in its own files
under `PROMETHEUS_MULTIPROC_DIR` (settings: `var/metrics/` by default), and the scrape sums them:
prometheus_client's multiprocess mode. A counter of a process that died still counts; the open
streams gauge counts live processes only. Queue depths and the oldest waiting task are read from
the broker at scrape time, so any node's /metrics tells the whole installation's queues.

Each metric is fed from one place: moves and streams by `MetricsMiddleware` (the API's answer,
so every refusal is counted under its stable code), deadline lateness where a timeout is applied
(games.timeouts), bot decisions where a bot thinks (games.services.bot_turns), mails and webhook
deliveries from their Celery tasks' return values (`task_postrun`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from celery.signals import before_task_publish, task_postrun
from prometheus_client import Counter, Gauge, Histogram

MOVES = Counter(
    "scrapyard_moves", "Move submissions answered, by outcome and the refusal's code",
    ["outcome", "code"],
)
MOVE_SECONDS = Histogram(
    "scrapyard_move_seconds", "Time to answer a move submission, in the web process",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
OPEN_STREAMS = Gauge(
    "scrapyard_open_streams", "Streams open now, by kind", ["kind"], multiprocess_mode="livesum",
)
DEADLINE_LATENESS = Histogram(
    "scrapyard_deadline_lateness_seconds", "How long after its deadline a timeout was applied",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300),
)
BOT_DECISION = Histogram(
    "scrapyard_bot_decision_seconds", "A bot's time to choose its move",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10),
)
MAILS = Counter("scrapyard_mails", "Attempts at sending a mail, by what became of it", ["outcome"])
WEBHOOK_DELIVERIES = Counter(
    "scrapyard_webhook_deliveries", "Attempts at a webhook delivery, by outcome", ["outcome"],
)

QUEUES = ("deadlines", "bots", "default", "webhooks")
# kombu's Redis transport keeps a queue's messages under its name, and those with a priority
# under the name plus a separator and the priority step.
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITY_STEPS = (0, 3, 6, 9)

_MOVE_PATH = re.compile(r"^/api/games/\d+/moves/?$")
_STREAM_KINDS = ((re.compile(r"^/api/games/\d+/chat/stream/?$"), "chat"),
                 (re.compile(r"^/api/games/\d+/stream/?$"), "game"),
                 (re.compile(r"^/api/stream/?$"), "account"))


def multiprocess_dir() -> Path:
    return Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])


# --- moves and streams: the API's answers ---------------------------------------------------------


class MetricsMiddleware:
    """Counts each move submission by its answer and times it; counts the streams open. Works
    in the WSGI server and in the ASGI stream server alike (a stream's body is async)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        started = time.perf_counter()
        return _counting(request, self.get_response(request), started)

    async def _acall(self, request):
        started = time.perf_counter()
        return _counting(request, await self.get_response(request), started)


def _counting(request, response, started: float):
    """Count a move's answer; have a stream's body count itself open while it is read. (Under
    ASGI this middleware may run in the sync chain, with the async view's stream as the body.)"""
    if _is_move(request):
        _count_move(response, time.perf_counter() - started)
    elif getattr(response, "is_async", False) and response.status_code == 200:
        kind = _stream_kind(request.path)
        if kind:
            response.streaming_content = _counted(response.streaming_content, kind)
    return response


def _is_move(request) -> bool:
    return request.method == "POST" and _MOVE_PATH.match(request.path) is not None


def _count_move(response, seconds: float) -> None:
    MOVE_SECONDS.observe(seconds)
    if response.status_code < 400:
        _accepted().inc()
        return
    data = getattr(response, "data", None)
    code = data.get("code") if isinstance(data, dict) else None
    if not code:  # an answer outside DRF (project.http): its body is the same JSON shape
        try:
            code = json.loads(response.content).get("code")
        except (ValueError, AttributeError):
            code = None
    MOVES.labels(outcome="refused", code=str(code or response.status_code)).inc()


@functools.cache
def _accepted() -> Counter:
    # Most answers are this one: its child is looked up once, not from its labels at each move
    # (multiprocess mode keeps a child's value per process, by pid, so it is safe across forks).
    return MOVES.labels(outcome="accepted", code="")


def _stream_kind(path: str) -> str | None:
    return next((kind for pattern, kind in _STREAM_KINDS if pattern.match(path)), None)


async def _counted(items, kind: str):
    gauge = OPEN_STREAMS.labels(kind=kind)
    gauge.inc()
    try:
        async for item in items:
            yield item
    finally:
        gauge.dec()


# --- workers ---------------------------------------------------------------------------------


@contextmanager
def timed(histogram: Histogram) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        histogram.observe(time.perf_counter() - started)


def deadline_late(seconds: float) -> None:
    DEADLINE_LATENESS.observe(max(0.0, seconds))


@task_postrun.connect
def _count_outcomes(sender=None, retval=None, state=None, args=None, **_: Any) -> None:
    """`consumers.deliver` returns what the attempt came to, for the consumer named first in its
    arguments (mail, webhooks); None: nothing was due (another worker had it)."""
    consumer = args[0] if getattr(sender, "name", "") == "consumers.deliver" and args else ""
    counter = {"mail": MAILS, "hooks": WEBHOOK_DELIVERIES}.get(consumer)
    if counter is not None:
        outcome = retval if isinstance(retval, str) else ("error" if state == "FAILURE" else "not_due")
        counter.labels(outcome=outcome).inc()


@before_task_publish.connect
def _stamp_sent_at(headers=None, **_: Any) -> None:
    """Each message carries when it was sent, so the scrape can tell the oldest one waiting."""
    if headers is not None:
        headers.setdefault("scrapyard_sent_at", time.time())


# --- queues, read at scrape time -------------------------------------------------------------------


def queue_figures(redis_url: str, now: float | None = None) -> dict[str, tuple[int, float]]:
    """{queue: (messages waiting, seconds the oldest has waited)} on the Redis broker."""
    import redis

    now = time.time() if now is None else now
    client = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)
    figures = {}
    try:
        for queue in QUEUES:
            keys = [queue if step == 0 else f"{queue}{_PRIORITY_SEPARATOR}{step}" for step in _PRIORITY_STEPS]
            pipe = client.pipeline(transaction=False)
            for key in keys:
                pipe.llen(key)
                pipe.lindex(key, -1)  # kombu pushes on the left and takes from the right
            answers = pipe.execute()
            depth = sum(answers[0::2])
            oldest = max((_waited(message, now) for message in answers[1::2] if message), default=0.0)
            figures[queue] = (depth, oldest)
    finally:
        client.close()
    return figures


def _waited(message: bytes, now: float) -> float:
    try:
        headers = json.loads(message).get("headers") or {}
    except ValueError:
        return 0.0
    sent = headers.get("scrapyard_sent_at")
    if not isinstance(sent, (int, float)):
        return 0.0
    eta = headers.get("eta")
    if eta:  # a message with an ETA only starts waiting then
        try:
            sent = max(sent, datetime.fromisoformat(eta).timestamp())
        except ValueError:
            pass
    return max(0.0, now - sent)
