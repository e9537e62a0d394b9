"""The framework's first step: a committed event's news (`consumers.framework.news`: each
consumer's own notice, the live streams' among them, and the fan-outs of those it concerns) run
by one thread of the web process after the request has handed it over, not by the request: a
move's answer waits for none of it. `games.signals.events_recorded` reaches
`consumers.receivers`, which hands the news to this thread; nothing else runs here.

Why a thread and not the request: the consumers' notices are round trips to Redis and Celery
messages, none of them the answer (docs/decisions/0005). And what they cost must never show in
the mover's answer time, since some of it depends on the other seat (whether it queued a
conditional line, `games.services.conditionals`).

What this gives up: news queued when the process dies is lost. Every consumer is already
allowed to lose it (Redis away, a broker outage) and has the framework's net: the sweep finds
the fan-outs a lost message missed (bot turns, conditional lines, mail, webhooks), and streams
re-check the log. Jobs run in the order they were queued, one at a time. The jobs already queued
when the thread takes the next (a burst of moves under load) run as one burst, inside every
consumer's `together()` (the stream notices leave in one Redis round trip:
`announce.publishing_together`).

Every installation runs this thread: it is not a setting (the figures settled it). With
Celery's tasks eager a job runs at once in the caller: an eager task writes to the database,
and SQLite takes one writer at a time. No deployment runs eager (`make run` and the deployments
have workers): the tests that run the workers' tasks inline do (mail, the browser,
competition), and `bench.competition`.

The tests run this thread, as production does (tests/conftest.py): a request of the test client
returns once the news of what it committed has run here (`drain`), where the test looks at its
effects. Only a test inside one transaction (pytest-django's `db`) runs the news in the caller
(`in_the_caller`), when it runs the commit's callbacks itself: nothing it wrote is committed, so
no other connection, this thread's among them, would see it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from django.db import close_old_connections

from project.celery import tasks_eager

log = logging.getLogger(__name__)

_jobs: queue.SimpleQueue = queue.SimpleQueue()
BURST = 16  # jobs run together at most, their notices sent in one round trip
# `drain`'s marker in the queue, with the event to set once every job before it has run and the
# notices of its burst have left.
_DRAINED = object()

_worker: dict[str, Any] = {"pid": None, "thread": None}
_lock = threading.Lock()
# How many `in_the_caller` blocks are open: set by the tests alone, never by a deployment.
_in_the_caller = {"blocks": 0}


def soon(job: Callable[..., None], *args: Any) -> None:
    """Run `job(*args)` after the caller's request, in this process's after-commit thread."""
    if not in_background():
        _run(job, args)
        return
    _started()
    _jobs.put((job, args))


def in_background() -> bool:
    return not _in_the_caller["blocks"] and not tasks_eager()


@contextlib.contextmanager
def in_the_caller() -> Iterator[None]:
    """Run the news in the caller for the block: for a test inside one uncommitted transaction,
    whose writes no other connection (this thread's among them) would see (tests/conftest.py)."""
    _in_the_caller["blocks"] += 1
    try:
        yield
    finally:
        _in_the_caller["blocks"] -= 1


def drain(timeout: float = 5.0) -> bool:
    """Wait until every job queued so far has run (tests, and the process's exit)."""
    if _worker["thread"] is None or _worker["pid"] != os.getpid():
        return True
    done = threading.Event()
    _jobs.put((_DRAINED, (done,)))
    return done.wait(timeout)


def _started() -> None:
    # After a fork (gunicorn's workers), the parent's thread is not in the child: start one.
    if _worker["pid"] == os.getpid():
        return
    with _lock:
        if _worker["pid"] == os.getpid():
            return
        thread = threading.Thread(target=_loop, name="scrapyard-after-commit", daemon=True)
        thread.start()
        _worker.update(pid=os.getpid(), thread=thread)


def _loop() -> None:
    from consumers import framework  # here, not above: this module is imported before Django is set up

    while True:
        burst = _burst()
        jobs = [(job, args) for job, args in burst if job is not _DRAINED]
        try:
            if jobs:  # a burst of `drain` markers alone needs no connection
                _run(close_old_connections)  # as a request would: a connection past its age or broken is replaced
                with framework.together():  # the burst's stream notices in one round trip
                    for job, args in jobs:
                        _run(job, args)
        except Exception:  # a `together()` failed: the thread lives on, for the next burst
            log.exception("after-commit burst of %d jobs failed", len(jobs))
        finally:
            for job, args in burst:
                if job is _DRAINED:
                    args[0].set()  # only now: the burst's notices have left


def _burst() -> list[tuple[Callable[..., None], tuple]]:
    """The next job, and those queued behind it already (at most `BURST`): under load the jobs of
    several moves, whose notices then leave together."""
    burst = [_jobs.get()]
    while len(burst) < BURST:
        try:
            burst.append(_jobs.get_nowait())
        except queue.Empty:
            break
    return burst


def _run(job: Callable[..., None], args: tuple = ()) -> None:
    try:
        job(*args)
    except Exception:  # one effect's failure is logged; the next job still runs (and sweeps catch this one)
        log.exception("after-commit job %s%r failed", getattr(job, "__name__", job), args)


@atexit.register
def _finish_at_exit() -> None:
    """A worker stopped gracefully (a deploy) sends what it still holds, within a second."""
    drain(timeout=1.0)
