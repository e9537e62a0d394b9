"""One beat sends the schedule however many run: a lease in Redis.

Beyond one machine each node may run beat (docs/scaling.md's topology runs it on two, so losing one
machine does not stop the clocks). Every beat ticks, but only the one holding the lease sends
what is due; the lease is a Redis key set with NX and an expiry that its holder renews on every
tick, so when the holder dies (SIGKILL, a machine gone) another beat takes over within
`SCRAPYARD_BEAT_LEASE_SECONDS` (3). The sweeps are idempotent besides (each task checks its
(game, seq) and a send is keyed), so the moment two beats overlap during a takeover, or one
whose lease ran out while it was paused, costs a duplicate message and no duplicate effect.

Without Redis (the embedded default: one machine, one beat) there is nothing to share, and the
beat always holds the lease.

Every beat, holding the lease or not, is also the deadlines' backstop: once a second a thread of
its own (`run_backstop`, started with beat) applies the timeouts more than
`SCRAPYARD_CLOCKS_BACKSTOP_SECONDS` overdue itself (`timeouts.apply_overdue`).
Deadlines live in PostgreSQL, so this needs no broker: through a Redis outage the timeouts fire
on time give or take the grace, where the broker's path must wait for Redis, then for the
workers to reconnect, then for a sweep and a message per timeout (docs/decisions/0023). A timeout
is idempotent under its game's lock, so the backstop and a message racing it apply it once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

from celery import signals
from celery.beat import PersistentScheduler
from django.conf import settings

log = logging.getLogger(__name__)

BACKSTOP_EVERY_SECONDS = 1.0

# Renew when the key still names us; take it when nobody holds it. Answers 1 when we hold it.
_HOLD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""


class Lease:
    """A named lease in Redis, held by one holder at a time until it stops renewing it."""

    def __init__(self, redis_url: str, name: str, seconds: float, holder: str | None = None) -> None:
        import redis

        self.client = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)
        self.key = name
        self.milliseconds = int(seconds * 1000)
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._hold = self.client.register_script(_HOLD)

    def hold(self) -> bool:
        """Take or renew the lease; False while another holds it, or Redis cannot be reached."""
        try:
            return bool(self._hold(keys=[self.key], args=[self.holder, self.milliseconds]))
        except Exception as error:  # Redis away: nobody can send tasks anyway
            log.warning("beat lease unreachable (%s)", error)
            return False

    def release(self) -> None:
        try:
            if self.client.get(self.key) == self.holder.encode():
                self.client.delete(self.key)
        except Exception:
            pass


def lease_name() -> str:
    return f"{settings.SCRAPYARD_REDIS_NAMESPACE}:beat:lease"


class LeasedScheduler(PersistentScheduler):
    """Celery beat's scheduler that sends only while it holds the installation's lease."""

    def __init__(self, *args, **kwargs) -> None:
        self.lease = None
        if settings.REDIS_URL:
            self.lease = Lease(settings.REDIS_URL, lease_name(), settings.SCRAPYARD_BEAT_LEASE_SECONDS)
        self.leading = self.lease is None
        super().__init__(*args, **kwargs)

    def tick(self, *args, **kwargs) -> float:
        if self.lease is not None:
            holding = self.lease.hold()
            if holding != self.leading:
                log.warning("beat %s the lease", "took" if holding else "lost")
                self.leading = holding
            if not holding:
                return self.standby_seconds()
        # Never sleep past a renewal: the lease must not run out while we wait for the next entry.
        return min(super().tick(*args, **kwargs), self.standby_seconds())

    def standby_seconds(self) -> float:
        return settings.SCRAPYARD_BEAT_LEASE_SECONDS / 3

    def close(self) -> None:
        if self.lease is not None and self.leading:
            self.lease.release()  # a clean stop hands over at once
        super().close()


# --- the deadlines' backstop ------------------------------------------------------------------


def enforce_overdue_deadlines() -> int:
    """One pass of the backstop (see the module doc): the timeouts the broker's path left overdue."""
    from django.db import close_old_connections

    from games import timeouts

    try:
        close_old_connections()  # beat lives for months: a connection PostgreSQL dropped is not reused
        fired = timeouts.apply_overdue(grace_seconds=settings.SCRAPYARD_CLOCKS_BACKSTOP_SECONDS)
    except Exception as error:  # the database away: the next pass tries again
        log.warning("deadline backstop failed (%s)", error)
        return 0
    if fired:
        log.warning("beat applied %d overdue timeout(s) the broker's path had not", fired)
    return fired


def run_backstop(stop: threading.Event) -> None:
    """Pass after pass, a second apart, until `stop` is set: in a thread of its own, so that
    beat's sends (slow while its connection to a Redis just back is made again) hold none up."""
    while not stop.wait(BACKSTOP_EVERY_SECONDS):
        enforce_overdue_deadlines()


@signals.beat_init.connect
def _start_backstop(**_: object) -> None:
    """Every beat (`celery beat`, or embedded in a worker) runs the backstop from its start."""
    threading.Thread(target=run_backstop, args=(threading.Event(),), name="deadline-backstop", daemon=True).start()
