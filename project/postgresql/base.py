"""Django's PostgreSQL backend, but for how a kept connection is judged alive.

With `CONN_HEALTH_CHECKS`, Django sends `SELECT 1` on a persistent connection at the first query
of every request that reuses it: a round trip, and the client's and the server's CPU for it, on
every move. A connection the server or a pooler ended while it sat idle (a restart,
`pg_terminate_backend`, PgBouncer's idle cut) has something to read: the server's last message,
or the end of the stream. So the check looks first, without waiting, whether the idle socket
has anything to read; only then does it ask the server, as Django would. A connection with
nothing to read is taken as alive, as it would be by Django between its check and the next
query; one whose server vanished without a word fails at its next query, as it would have
failed at the check."""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        try:
            waiting, _, _ = select.select([self.connection.fileno()], [], [], 0)
        except (OSError, ValueError):  # no socket any more
            return False
        return super().is_usable() if waiting else True
