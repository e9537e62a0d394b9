"""Shared fixtures.

Tests marked `postgres` or `redis` need those servers (`DATABASE_URL`, `REDIS_URL`). Without them
they skip on a developer's machine, and fail in CI (`CI=true`), where the services must be there.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# The toy sixth game joins the catalogue the way any game kept outside `rules/` does, so every
# shared suite runs it too (tests/rules/toy_race). Set before anything reads the catalogue; the
# servers the worker tests start inherit it.
os.environ["SCRAPYARD_EXTRA_RULES"] = "tests.rules.toy_race"
# A move's after-commit effects run in the request, where a test can wait for them
# (`games.after_commit`), in the servers the tests start too; the tests of that thread turn it on.
os.environ.setdefault("SCRAPYARD_AFTER_COMMIT_THREAD", "0")


def _let_test_flushes_truncate() -> None:
    """The events table refuses TRUNCATE (games migration 0004) unless the transaction sets
    `scrapyard.allow_truncate`; a test database's flush between transactional tests does."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        statements = original(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return ["SELECT set_config('scrapyard.allow_truncate', 'on', true)", *statements] if statements else []

    DatabaseOperations.sql_flush = sql_flush


_let_test_flushes_truncate()


def _drop_test_databases_behind_pgbouncer() -> None:
    """Through PgBouncer (CI runs the suite so), the pool still holds idle server connections to
    a test database when it is dropped; `WITH (FORCE)` (PostgreSQL 13) ends them, and PgBouncer
    opens new ones for the next database of that name."""
    from django.db.backends.postgresql.creation import DatabaseCreation

    def force(sql: str) -> str:
        return f"{sql} WITH (FORCE)" if sql.startswith("DROP DATABASE") else sql

    def forcing(cursor):
        execute = cursor.execute
        cursor.execute = lambda sql, *args, **kwargs: execute(force(sql), *args, **kwargs)
        return cursor

    original_nodb_cursor = DatabaseCreation._nodb_cursor

    @contextlib.contextmanager
    def _nodb_cursor(self):
        with original_nodb_cursor(self) as cursor:
            yield forcing(cursor)

    DatabaseCreation._nodb_cursor = _nodb_cursor


_drop_test_databases_behind_pgbouncer()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_newgateway(gateway) -> None:
    """A parallel run's process gets its Redis db, channel namespace and var directory before it
    starts pytest, and with it the settings (tests/isolation.py)."""
    from tests.isolation import environment_for

    changes = environment_for(gateway.id)
    gateway.remote_exec(f"import os; os.environ.update({changes!r}); channel.send(True)").receive()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a parallel run's process, the known long tests first, one share each
    (tests/scheduling.py); every process reorders alike, so their collections still match."""
    from tests.scheduling import deal_longest_first

    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        items[:] = deal_longest_first(items, int(workerinput["workercount"]))


@pytest.fixture(autouse=True)
def _rate_limits_out_of_the_way(settings):
    """The suite sends thousands of requests from one address; the tests of the limits set
    their own (tests/project/test_rate_limits.py)."""
    settings.SCRAPYARD_RATE_LIMITS = {scope: 1_000_000 for scope in settings.SCRAPYARD_RATE_LIMITS}


# A password hash costs about 0.3 s of CPU on purpose (PBKDF2, a million rounds), and the suite
# creates hundreds of accounts. What the tests prove is not the hash's strength, so they hash with
# one fast round (tests/api/test_games_api.py still signs in with the password it set, and is
# refused a wrong one). Deployments keep Django's hashers.
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS


@pytest.fixture(autouse=True)
def _mail_addresses_taken_as_confirmed(settings):
    """Accounts made by tests get mail without following the confirmation link; the tests of
    confirmation turn it on (tests/mail/test_abuse.py)."""
    settings.SCRAPYARD_MAIL_VERIFY = False


@pytest.fixture(autouse=True)
def _after_commit_in_the_request(settings):
    """The settings were read before this file set SCRAPYARD_AFTER_COMMIT_THREAD (pytest-django
    sets Django up first): the effects of a commit run in the request, where a test sees them."""
    settings.SCRAPYARD_AFTER_COMMIT_THREAD = False


@pytest.fixture(autouse=True)
def _counts_of_earlier_tests_forgotten():
    """Rate-limit counts live in the shared cache, keyed by account id; SQLite gives a rolled-back
    test's ids to the next test, which must not inherit its counts (nor a game id's answers the
    receivers keep in the process for a moment)."""
    from django.core.cache import cache

    from hooks import receivers as hooks_receivers
    from mail import receivers as mail_receivers
    from project import throttles

    hooks_receivers.forget_remembered()
    mail_receivers.forget_remembered()
    throttles.forget_allowances()
    try:
        cache.clear()
    except Exception:  # Redis away: the tests that need it say so themselves
        pass


def _postgres_missing() -> str | None:
    from django.db import connection

    if connection.vendor != "postgresql":
        return "needs PostgreSQL: set DATABASE_URL=postgres://..."
    return None


def _redis_missing() -> str | None:
    url = os.environ.get("REDIS_URL")
    if not url:
        return "needs Redis: set REDIS_URL=redis://..."
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        return f"needs Redis at {url}: {error}"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, missing in (("postgres", _postgres_missing), ("redis", _redis_missing)):
        if item.get_closest_marker(marker) is None:
            continue
        reason = missing()
        if reason is None:
            continue
        if IN_CI:
            pytest.fail(f"{reason} (CI=true: services are required, not optional)", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(autouse=True)
def reproducible_seeds(monkeypatch):
    """Games created in a test get seeds from a counter, so every run plays the same games."""
    from games.services import lobby

    counter = itertools.count()
    # Where game_create looks it up (patching the package's re-export would change nothing).
    monkeypatch.setattr(lobby, "new_seed", lambda: hashlib.sha256(f"test-seed-{next(counter)}".encode()).hexdigest())


@pytest.fixture
def receiver():
    """A webhook receiver: a real HTTP server on 127.0.0.1 (tests/hooks/receiver.py)."""
    from tests.hooks.receiver import Receiver

    server = Receiver()
    yield server
    server.close()


@pytest.fixture
def loopback_allowed(settings):
    """Webhooks may reach this machine (the receiver), as in a self-hosted setup."""
    settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK = True


@pytest.fixture
def sink(settings):
    """An SMTP server on loopback taking every mail this process sends (tests/mail/smtp.py)."""
    from aiosmtpd.controller import Controller

    from tests.mail.smtp import Sink, free_port

    box = Sink(free_port())
    server = Controller(box, hostname="127.0.0.1", port=box.port)
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", box.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    yield box
    server.stop()


@pytest.fixture
def gateway():
    """The play-by-email SMTP gateway, in this process; yields its port."""
    from asgiref.sync import SyncToAsync
    from django.db import connections

    from mail.gateway import controller
    from tests.mail.smtp import free_port

    port = free_port()
    server = controller("127.0.0.1", port)
    server.start()
    yield port
    server.stop()
    # The gateway's database calls ran on asgiref's one shared thread: close its connection, so
    # the test database can be dropped.
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()
