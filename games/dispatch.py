"""Sending a Celery task by its registered name, so that writers never import `games.tasks`
(tasks import the services; the services only name the tasks they want run).

With `CELERY_TASK_ALWAYS_EAGER` (one process, no broker) the task runs here and now, as
`delay` would run it.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import redis
from django.conf import settings
from django.db import InterfaceError, OperationalError

from project.celery import app, tasks_eager

# What a task retries: what the infrastructure did wrong. A refused move is an answer, not a
# failure. Every app's tasks share it.
INFRASTRUCTURE_ERRORS = (OperationalError, InterfaceError, ConnectionError)
APPLY_TIMEOUT = "games.apply_timeout"


def send(name: str, args: tuple, *, eta: dt.datetime | None = None, **options: Any) -> None:
    if tasks_eager():
        if name not in app.tasks:  # the web process has not imported the tasks modules yet
            app.loader.import_default_modules()
        app.tasks[name].apply(args)
        return
    app.send_task(name, args, eta=eta, **options)


def broker_check() -> str:
    """"ok" if the broker answers within two seconds, else what went wrong (for /api/health/)."""
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as error:  # any failure is the answer
        return f"error: {type(error).__name__}"


def broker_started_at(now: dt.datetime) -> dt.datetime | None:
    """At the latest, when the broker (Redis) last started: a message sent before then went with
    the memory of the one that stopped (Redis keeps nothing on disk here). None for the embedded
    files broker, or while Redis does not answer."""
    if not settings.REDIS_URL:
        return None
    try:
        uptime = _broker_client().info("server")["uptime_in_seconds"]
    except Exception:  # away: nothing can be sent meanwhile anyway
        return None
    return now - dt.timedelta(seconds=uptime + 1)  # uptime counts whole seconds


@functools.cache
def _broker_client():
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
