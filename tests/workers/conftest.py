"""Real Celery workers (with beat embedded) against the test database and a Redis db of their own.

`start_worker(**env)` starts `celery -A project worker -B` on every queue (or `queues=`) in its own
process group, waits until it is ready, and returns a handle; every worker a test started is stopped at its end (SIGTERM, then
SIGKILL). The test process itself sends tasks (bot wake-ups after commit) to the same Redis db.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from tests.isolation import worker_db

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).parent / "celery"
# Mirrored from this process's own db (tests.isolation counts those up from REDIS_URL's).
TEST_REDIS_DB = worker_db(int(urlsplit(os.environ.get("REDIS_URL", "redis:///0")).path.strip("/") or 0))


def wait_for(predicate, timeout: float, interval: float = 0.1):
    """Poll until `predicate()` is truthy; returns its value, or fails after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"not true within {timeout} s: {getattr(predicate, '__doc__', None) or predicate}")


class Worker:
    def __init__(self, name: str, process: subprocess.Popen, log: Path):
        self.name, self.process, self.log = name, process, log

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the whole worker (main process, pool and beat) at once."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self, grace: float = 15) -> None:
        """SIGTERM (Celery's warm shutdown: the tasks running finish), SIGKILL after `grace` s."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.kill()


def _test_database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _test_redis_url() -> str:
    parts = urlsplit(os.environ["REDIS_URL"])
    return urlunsplit(parts._replace(path=f"/{TEST_REDIS_DB}"))


@pytest.fixture
def redis_url():
    """A flushed Redis db for the test, which this process's Celery app sends to as well."""
    import redis

    from project.celery import app

    url = _test_redis_url()
    redis.Redis.from_url(url).flushdb()
    before = app.conf.broker_url
    _point_celery_at(app, url)
    yield url
    _point_celery_at(app, before)
    redis.Redis.from_url(url).flushdb()


def _point_celery_at(app, url: str) -> None:
    # kombu keeps one pool per broker URL process-wide: drop the app's references, close nothing.
    app._pool = None
    app.amqp._producer_pool = None
    app.conf.broker_url = url


@pytest.fixture
def start_worker(redis_url, tmp_path):
    started: list[Worker] = []

    def start(name: str = "w1", concurrency: int = 2, beat: bool = True,
              queues: str = "deadlines,bots,default,mail,webhooks", **env: str) -> Worker:
        var = tmp_path / name
        var.mkdir(exist_ok=True)
        log = var / "worker.log"
        environment = {
            **os.environ,
            "DATABASE_URL": _test_database_url(),
            "REDIS_URL": redis_url,
            "SCRAPYARD_VAR_DIR": str(var),
            "SCRAPYARD_CLOCKS_RESEND": "3",
            # Addresses count as confirmed, as in the test process (tests/conftest.py).
            "SCRAPYARD_MAIL_VERIFY": "0",
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        command = [
            str(CELERY), "-A", "project", "worker", "--loglevel=INFO", f"--concurrency={concurrency}",
            f"--hostname={name}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
            f"--queues={queues}",
        ] + (["--beat", f"--schedule={var / 'beat-schedule'}"] if beat else [])
        with open(log, "wb") as out:
            process = subprocess.Popen(
                command, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        worker = Worker(name, process, log)
        started.append(worker)
        wait_for(lambda: " ready." in worker.text() or process.poll() is not None, 30)
        assert process.poll() is None, worker.text()[-3000:]
        return worker

    yield start
    # The test is over: what a worker still runs is nobody's (a task retrying against a Redis
    # the test took away held one teardown 15 s), and the Redis db is flushed after.
    for worker in started:
        worker.stop(grace=3)
    connection.close()
