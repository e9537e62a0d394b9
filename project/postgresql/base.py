"""Django's PostgreSQL backend, but for how a kept connection is judged alive.

With `CONN_HEALTH_CHECKS`, Django sends `SELECT 1` on a persistent connection at the first query
of every request that reuses it: a round trip, and the client's and the server's CPU for it, on
every move. A connection the server or a pooler ended while it sat idle (a restart,
`pg_terminate_backend`, PgBouncer's idle cut) has something to read: the server's last message,
or the end of the stream. So the check looks first, without waiting, whether the idle socket
has anything to read; only then does it ask the server, as Django would. A connection with
nothing to read is taken as alive, as it would be by Django between its check and the next
query; one whose server vanished without a word fails at its next query, as it would have
failed at the check.

It also finds out whether the connection keeps prepared statements (`keeps_prepared_statements`):
straight to PostgreSQL or through a PgBouncer that carries them, not through one that does not."""

from __future__ import annotations

import logging
import re
import select
from typing import Any

from django.db.backends.postgresql import base

log = logging.getLogger(__name__)


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        try:
            waiting, _, _ = select.select([self.connection.fileno()], [], [], 0)
        except (OSError, ValueError):  # no socket any more
            return False
        return super().is_usable() if waiting else True

    def keeps_prepared_statements(self) -> bool:
        """Whether this connection's prepared statements stay its own from one transaction to the
        next, so the move's statements may be prepared (`games.stores.fast.statement_cursor`,
        docs/decisions/0003-prepared-statements-where-kept.md): `SCRAPYARD_DB_PREPARED_STATEMENTS`
        when set, else found out once per process and server at the first move."""
        from django.conf import settings

        if settings.SCRAPYARD_DB_PREPARED_STATEMENTS is not None:
            return settings.SCRAPYARD_DB_PREPARED_STATEMENTS
        where = (self.settings_dict["HOST"], self.settings_dict["PORT"], self.settings_dict["NAME"])
        if where not in _found:
            self.ensure_connection()
            _found[where] = _keeps_prepared_statements(self.connection, self.get_connection_params())
        return _found[where]


_found: dict[tuple, bool] = {}  # per (host, port, database): what the first move found out


def _keeps_prepared_statements(connection: Any, params: dict[str, Any]) -> bool:
    """Straight to PostgreSQL, a connection keeps its prepared statements. Through a pooler it
    keeps them only if the pooler carries them across server connections: PgBouncer 1.21+ with
    `max_prepared_statements` over 0, as its admin console says. A pooler is told apart by the
    backend pid: the one the connection was given at start (the pooler's own key) is not the
    server's `pg_backend_pid()`. A pooler that cannot be asked keeps nothing, as far as we know."""
    with connection.cursor() as cursor:
        (server_pid,) = cursor.execute("SELECT pg_backend_pid()").fetchone()
    if server_pid == connection.info.backend_pid:
        return True
    console = pgbouncer_console(params)
    if console is None:
        log.warning("the database connection goes through a pooler whose console does not answer: the move's "
                    "statements are not prepared (SCRAPYARD_DB_PREPARED_STATEMENTS=on if it keeps them)")
        return False
    return pgbouncer_keeps_prepared_statements(*console)


def pgbouncer_console(params: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    """PgBouncer's version and settings from its admin console (the database `pgbouncer` on the same
    address, which needs the user in `admin_users` or `stats_users`), or None."""
    import psycopg

    libpq = {key: value for key, value in params.items() if key in _LIBPQ_KEYS}
    try:
        # The console speaks only the simple query protocol: no parameters, nothing prepared.
        with psycopg.connect(**{**libpq, "dbname": "pgbouncer", "connect_timeout": 2}, autocommit=True,
                             prepare_threshold=None) as console:
            (version,) = console.execute("SHOW VERSION").fetchone()
            config = {row[0]: row[1] for row in console.execute("SHOW CONFIG").fetchall()}
    except psycopg.Error:
        return None
    return version, config


def pgbouncer_keeps_prepared_statements(version: str, config: dict[str, str]) -> bool:
    """PgBouncer carries a client's prepared statements across server connections from 1.21 on, when
    `max_prepared_statements` is over 0 (its default was 0 until 1.24)."""
    found = re.search(r"PgBouncer (\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) < (1, 21):
        return False
    limit = str(config.get("max_prepared_statements") or "0")
    return limit.isdigit() and int(limit) > 0


_LIBPQ_KEYS = {"host", "hostaddr", "port", "user", "password", "passfile", "sslmode", "sslrootcert", "sslcert",
               "sslkey", "sslpassword", "service", "target_session_attrs", "application_name"}
