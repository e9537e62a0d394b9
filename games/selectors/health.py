"""Whether this process reaches the database and the broker: `/api/health/` and, with the
stream server's subscription besides, `/api/ready/` (`project.ops`)."""

from __future__ import annotations

from django.db import connection

from games import dispatch


def health() -> dict[str, str]:
    """Whether this process reaches the database and the broker; any failure is the answer."""
    checks = health_checks()
    return {"status": "ok" if all(value == "ok" for value in checks.values()) else "degraded", **checks}


def health_checks() -> dict[str, str]:
    return {"database": _database_check(), "broker": dispatch.broker_check()}


def _database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as error:  # any failure is the answer
        return f"error: {type(error).__name__}"
