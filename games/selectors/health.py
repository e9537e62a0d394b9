"""Whether this process reaches the database and the broker."""

from __future__ import annotations

from django.db import connection

from games import dispatch


def health() -> dict[str, str]:
    """Whether this process reaches the database and the broker; any failure is the answer."""
    checks = {"database": _database_check(), "broker": dispatch.broker_check()}
    return {"status": "ok" if all(value == "ok" for value in checks.values()) else "degraded", **checks}


def _database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as error:  # any failure is the answer
        return f"error: {type(error).__name__}"
