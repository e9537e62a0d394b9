"""The Celery workers' consumer (`CELERY_WORKER_CONSUMER`): Celery's own, made to come back from
a broker outage in about a second instead of dying or waiting out a long backoff.

Two things stood between a Redis outage and the deadlines firing again (docs/decisions/0023):

- A worker holding unacknowledged messages (every deadlines worker: its timeouts wait in it
  for their ETA) died the moment Redis went away: Celery's clean-up after a lost connection
  first collects the connection's transport and then closes it, and closing a Redis channel
  restores its unacknowledged messages through a client that collection had just taken away
  (an `AttributeError` Celery calls unrecoverable). The supervisor started the worker again,
  which cost a Django start on a busy machine and a fresh backoff.
- A worker that survived retried the broker after 2, 4, 6, ... up to 30 s between attempts
  (kombu's defaults), so it came back up to 30 s after Redis did.

Here a failed clean-up is finished by hand (the old connection dropped, late-acknowledged tasks
cancelled as `worker_cancel_long_running_tasks_on_connection_loss` asks: their messages come
back), and the broker is retried every `RETRY_SECONDS`.
"""

from __future__ import annotations

import functools
import logging

from celery.worker.consumer import Consumer as CeleryConsumer
from celery.worker.state import active_requests

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # between attempts to reach a broker that went away: one cheap connect each


class Consumer(CeleryConsumer):
    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(
            conn.ensure_connection, interval_start=RETRY_SECONDS, interval_step=0, interval_max=RETRY_SECONDS)
        return super().ensure_connected(conn)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError as error:  # closing a collected Redis connection (see the module doc)
            log.warning("broker connection lost; its clean-up failed (%r), finished here", error)
            self.connection = None
            if self.app.conf.worker_cancel_long_running_tasks_on_connection_loss:
                self._cancel_unacknowledged_tasks()

    def _cancel_unacknowledged_tasks(self) -> None:
        for request in tuple(active_requests):
            if request.task.acks_late and not request.acknowledged:
                try:
                    request.cancel(self.pool)
                except Exception:  # one task that will not cancel must not stop the rest
                    log.warning("could not cancel %r after the connection loss", request, exc_info=True)
