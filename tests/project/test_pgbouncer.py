"""CI runs the suite through PgBouncer in transaction pooling (.ci/run), so every PostgreSQL test
is also a test that nothing relies on a session. These check that the run really goes through it,
and that the settings keep to what transaction pooling allows."""

from __future__ import annotations

import os

import pytest
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_the_database_settings_keep_no_state_beyond_a_transaction():
    options = connection.settings_dict.get("OPTIONS", {})
    assert connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert options.get("server_side_binding") is not True
    assert options.get("prepare_threshold") is None  # psycopg prepares nothing on the server


@pytest.mark.skipif(not os.environ.get("SCRAPYARD_EXPECT_PGBOUNCER"), reason="only where .ci/run put PgBouncer in front")
def test_the_suite_reaches_postgresql_through_pgbouncer_in_transaction_pooling():
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"], port=settings["PORT"], user=settings["USER"] or "postgres",
                         dbname="pgbouncer", autocommit=True) as admin:
        config = {row[0]: row[1] for row in admin.execute("SHOW CONFIG").fetchall()}
        pools = {row[0]: row for row in admin.execute("SHOW POOLS").fetchall()}
    assert config["pool_mode"] == "transaction"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        (database,) = cursor.fetchone()
    assert database in pools

