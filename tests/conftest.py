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


def _let_test_flushes_truncate() -> None:
    """The events table refuses TRUNCATE (games migration 0004) unless the transaction sets
    `scrapyard.allow_truncate`; a test database's flush between transactional tests does.

    And the flush is made cheaper, for the 227 transactional tests' teardowns (about 0.4 s each
    on PostgreSQL, a tenth of a 15-minute suite):
    - only the tables that hold rows are emptied, and a small one by DELETE: TRUNCATE gives each
      table and index new files, made durable at commit, where a DELETE of a few rows writes a
      little WAL (a dozen small tables: about 80 ms against 4 ms). DELETE runs with the
      session's replication role, under which neither the events table's append-only trigger
      nor the foreign keys' triggers fire (so the order does not matter); a table past
      `TRUNCATE_FROM` rows, and any that refers to it, is truncated, so dead rows do not pile up
      where autovacuum is off (CI's PostgreSQL). Without superuser rights, every table that
      holds rows is truncated;
    - the content types and permissions that `migrate` made are kept, so the post_migrate
      signal, which Django sends after each flush to make them again (a query or two per app),
      has nothing to do, and is not sent.
    With sequences to reset, every table is truncated and the signal sent, as before."""
    from django.core.management.commands import flush
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush
    emit_post_migrate = flush.emit_post_migrate_signal

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        deleted: list[str] = []
        if not reset_sequences:
            deleted, tables = _emptied(self.connection, [table for table in tables if table not in MADE_BY_MIGRATE])
        statements = original(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        if deleted:
            quote = self.connection.ops.quote_name
            statements = ["SELECT set_config('session_replication_role', 'replica', true)",
                          *(f"DELETE FROM {quote(table)}" for table in deleted), *statements]
        # A flush waits at most FLUSH_LOCK_WAIT for each table's lock, then fails saying so: behind
        # a connection left idle in a transaction (a thread of the test, a server beside it) it
        # waited for ever.
        return ["SELECT set_config('scrapyard.allow_truncate', 'on', true)",
                f"SELECT set_config('lock_timeout', '{FLUSH_LOCK_WAIT}', true)", *statements] if statements else []

    def emit_unless_kept(verbosity, interactive, database, **kwargs):
        from django.db import connections

        if not _kept_what_migrate_made(connections[database]):
            emit_post_migrate(verbosity, interactive, database, **kwargs)

    execute_sql_flush = DatabaseOperations.execute_sql_flush

    def execute_naming_the_lock_holders(self, sql_list):
        from django.db import OperationalError

        try:
            execute_sql_flush(self, sql_list)
        except OperationalError as error:
            if "lock timeout" not in str(error):
                raise
            raise OperationalError(f"the flush waited {FLUSH_LOCK_WAIT} for a table's lock; the other sessions "
                                   f"of this database: {_other_sessions(self.connection)}") from error

    DatabaseOperations.sql_flush = sql_flush
    DatabaseOperations.execute_sql_flush = execute_naming_the_lock_holders
    flush.emit_post_migrate_signal = emit_unless_kept


def _other_sessions(connection) -> list[tuple]:
    """(pid, state, seconds in its transaction, its last statement) of each other session on the
    test database that is not idle: the one idle in a transaction is what a flush waits for."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, state, extract(epoch FROM now() - xact_start)::int, left(query, 200) "
                       "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
                       "AND state <> 'idle' ORDER BY xact_start")
        return cursor.fetchall()


MADE_BY_MIGRATE = frozenset({"django_content_type", "auth_permission"})
FLUSH_LOCK_WAIT = "120s"
TRUNCATE_FROM = 2000  # rows


def _kept_what_migrate_made(connection) -> bool:
    """Whether the content types and permissions are still there (a flush on PostgreSQL keeps
    them, above; SQLite's flush is Django's own and empties them)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT FROM django_content_type) AND EXISTS (SELECT FROM auth_permission)")
        return cursor.fetchone()[0]


def _emptied(connection, tables: list[str]) -> tuple[list[str], list[str]]:
    """Of `tables`, those that hold rows: the ones to DELETE from, and the ones to TRUNCATE (past
    `TRUNCATE_FROM` rows, with every table whose foreign key refers to one of those, which
    PostgreSQL truncates only together; all of them without superuser rights)."""
    tables = sorted(tables)
    if not tables:
        return [], []
    quote = connection.ops.quote_name
    probes = " UNION ALL ".join(
        f"SELECT {number}, (SELECT count(*) FROM (SELECT FROM {quote(table)} LIMIT {TRUNCATE_FROM + 1}) s)"
        for number, table in enumerate(tables))
    with connection.cursor() as cursor:
        cursor.execute(probes)
        counts = {tables[number]: count for number, count in cursor.fetchall()}
        cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        superuser = cursor.fetchone()[0]
        cursor.execute("SELECT r.relname, t.relname FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid "
                       "JOIN pg_class t ON t.oid = c.confrelid WHERE c.contype = 'f'")
        referring = cursor.fetchall()
    holding = {table for table, count in counts.items() if count}
    truncated = {table for table in holding if counts[table] > TRUNCATE_FROM or not superuser}
    grew = bool(truncated)
    while grew:
        grew = False
        for table, referred in referring:
            if referred in truncated and table not in truncated and table in counts:
                truncated.add(table)
                grew = True
    return sorted(holding - truncated), sorted(truncated)


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


def pytest_configure(config: pytest.Config) -> None:
    """The Dutch catalogues compiled where their .mo is missing or stale (project/messages.py),
    so a fresh clone's test run reads them as `make test`'s does."""
    from project.messages import compile_stale

    compile_stale()


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
def _default_language_between_tests():
    """A request leaves its language active in its thread (Django's LocaleMiddleware does not
    undo it, the next request picks its own): a test that calls the code directly after another
    test's Dutch request reads English, as a fresh process would."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS


@pytest.fixture(autouse=True)
def _mail_addresses_taken_as_confirmed(settings):
    """Accounts made by tests get mail without following the confirmation link; the tests of
    confirmation turn it on (tests/mail/test_abuse.py)."""
    settings.SCRAPYARD_MAIL_VERIFY = False


@pytest.fixture(autouse=True)
def _statements_unprepared_unless_a_test_asks(settings):
    """In process, the tests read the move's statements by their text (a libpq trace, the query
    log): nothing prepared, as through CI's PgBouncer, wherever the suite runs. The tests of
    prepared statements and of finding out where they are kept set it themselves
    (tests/games/test_prepared_statements.py, tests/project/test_prepared_detection.py); servers a
    test starts in a process of their own find out as `make run` does."""
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = False


def _requests_wait_for_their_news() -> None:
    """A commit's news runs on the web process's after-commit thread, as in production
    (`consumers.after_commit`): a request of the test client returns once the news of what it
    committed has run (`drain`), where a test looks at its effects, as a client of a real server
    sees them soon after the answer. The request itself has answered before the news ran, as in
    production; only the test's next step waits."""
    from django.test import Client

    request = Client.request

    def request_then_drain(self, **kwargs):
        try:
            return request(self, **kwargs)
        finally:
            _drained()

    Client.request = request_then_drain


_requests_wait_for_their_news()


def _drained() -> None:
    from consumers import after_commit

    if not after_commit.drain(timeout=30):
        pytest.fail("the after-commit thread did not finish its jobs within 30 s", pytrace=False)


@pytest.fixture(autouse=True)
def _after_commit_news_drained():
    """What a test queued for the after-commit thread has run before the test's database is
    emptied, and before the next test."""
    yield
    _drained()


@pytest.fixture
def django_capture_on_commit_callbacks(django_capture_on_commit_callbacks):
    """pytest-django's, with the news of the callbacks it runs (`execute=True`) drained on the
    way out, where the test looks at their effects.

    In a test inside one transaction (`django_db` without `transaction=True`) nothing is
    committed, and the callbacks are run inside the test's transaction: no other connection, the
    after-commit thread's among them, sees what the test wrote (and on SQLite the thread would
    wait for the test's write lock). There, and only there, the news runs in the caller, on the
    test's connection (`after_commit.in_the_caller` for the block). A test that commits
    (`transaction=True`) runs it on the thread."""
    from django.db import DEFAULT_DB_ALIAS, connections

    from consumers import after_commit

    @contextlib.contextmanager
    def capture(*, using=DEFAULT_DB_ALIAS, execute=False):
        uncommitted = execute and connections[using].in_atomic_block
        with contextlib.ExitStack() as stack:
            if uncommitted:
                stack.enter_context(after_commit.in_the_caller())
            callbacks = stack.enter_context(django_capture_on_commit_callbacks(using=using, execute=execute))
            yield callbacks
        _drained()

    return capture


@pytest.fixture(autouse=True)
def _feed_tasks_run_where_sent(monkeypatch):
    """The account feed's fan-outs and deliveries (`streams.account_feed`) run where they are
    sent, as its own workers would take them at once: a stream test needs its items, and the
    workers have their own tests (tests/workers/). Every other consumer's tasks go to the broker."""
    from consumers import framework

    send = framework._send

    def inline(consumer, task, args):
        if consumer.name != "feed":
            return send(consumer, task, args)
        if task == framework.FAN_OUT:
            framework.fan_out(consumer, args[1])
        elif task == framework.DELIVER:
            framework.attempt(consumer, args[1])

    monkeypatch.setattr(framework, "_send", inline)


@pytest.fixture(autouse=True)
def _counts_of_earlier_tests_forgotten():
    """Rate-limit counts live in the shared cache, keyed by account id; SQLite gives a rolled-back
    test's ids to the next test, which must not inherit its counts (nor a game id's answers the
    receivers keep in the process for a moment)."""
    from django.core.cache import cache

    from consumers import framework
    from games.selectors import seen
    from project import throttles
    from streams import account_feed

    framework.forget_remembered()
    account_feed.forget_remembered()
    seen.forget()
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


PLAYERS_RECORDS = {("players.example", "TXT"): ["v=spf1 ip4:127.0.0.1 -all"]}


@pytest.fixture
def gateway():
    """The play-by-email SMTP gateway, in this process; yields its port."""
    from mail import authentication
    from mail.gateway import close_connections, controller
    from tests.mail.smtp import free_port

    # No DNS in tests: fixed records. The players' mail server is 127.0.0.1 (their mail passes
    # SPF, as a real provider's does); a forger writes from elsewhere (127.0.0.2, tests/mail/smtp.py).
    before = authentication.use_resolver(authentication.FixedRecords(PLAYERS_RECORDS))
    port = free_port()
    server = controller("127.0.0.1", port)
    server.start()
    yield port
    server.stop()
    authentication.use_resolver(before)
    # The gateway's database calls ran on its pools' threads: close their connections, so the
    # test database can be dropped.
    close_connections()
