"""Sending a Celery task by its registered name, so that writers never import `games.tasks`
(tasks import the services; the services only name the tasks they want run).

With `CELERY_TASK_ALWAYS_EAGER` (one process, no broker) the task runs here and now, as
`delay` would run it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import InterfaceError, OperationalError

from project.celery import app, tasks_eager

# What a task retries: what the infrastructure did wrong. A refused move is an answer, not a
# failure. Every app's tasks share it.
INFRASTRUCTURE_ERRORS = (OperationalError, InterfaceError, ConnectionError)
PLAY_BOTS = "games.play_bots"
APPLY_TIMEOUT = "games.apply_timeout"
PLAY_CONDITIONALS = "games.play_conditionals"


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
