"""The move's statements are prepared wherever the connection keeps prepared statements, found out
at the first move, not by a setting a newcomer must know (project/postgresql/base.py): straight to
PostgreSQL yes; through PgBouncer only from 1.21 with `max_prepared_statements` over 0, as its
admin console says; through a pooler that cannot be asked, no. CI runs this through PgBouncer in
transaction pooling (.ci/run), where the answer must be its console's."""

from __future__ import annotations

import os

import pytest
from django.db import connection

from project.postgresql import base
from tests.api.conftest import play_opening, start_game


@pytest.mark.parametrize(("version", "config", "keeps"), [
    ("PgBouncer 1.18.0", {"max_prepared_statements": "200"}, False),  # no such setting before 1.21
    ("PgBouncer 1.21.0", {"max_prepared_statements": "0"}, False),
    ("PgBouncer 1.21.0", {}, False),
    ("PgBouncer 1.22.1", {"max_prepared_statements": "100"}, True),
    ("PgBouncer 1.24.0 libevent 2.1.12", {"max_prepared_statements": "200"}, True),
    ("PgBouncer 2.0.0", {"max_prepared_statements": None}, False),
    ("Odyssey 1.3", {"max_prepared_statements": "100"}, False),
])
def test_pgbouncer_keeps_prepared_statements_from_1_21_with_a_limit_over_zero(version, config, keeps):
    assert base.pgbouncer_keeps_prepared_statements(version, config) is keeps


@pytest.mark.django_db
@pytest.mark.postgres
def test_the_connection_is_judged_by_where_it_goes_and_the_answer_is_kept_per_process(monkeypatch, settings):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = None
    monkeypatch.setattr(base, "_found", {})
    keeps = connection.keeps_prepared_statements()
    if os.environ.get("SCRAPYARD_EXPECT_PGBOUNCER"):  # CI: through PgBouncer, which says what it keeps
        console = base.pgbouncer_console(connection.get_connection_params())
        assert console is not None and console[0].startswith("PgBouncer")
        assert keeps is base.pgbouncer_keeps_prepared_statements(*console)
    else:
        assert keeps is True  # straight to PostgreSQL
        assert base.pgbouncer_console(connection.get_connection_params()) is None  # no console here
    monkeypatch.setattr(base, "_keeps_prepared_statements", lambda *_: pytest.fail("asked again"))
    assert connection.keeps_prepared_statements() is keeps
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = not keeps  # the setting, when given, says it instead
    assert connection.keeps_prepared_statements() is (not keeps)


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_pooler_whose_console_does_not_answer_keeps_nothing(monkeypatch, settings):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = None
    monkeypatch.setattr(base, "_found", {})
    monkeypatch.setattr(base, "pgbouncer_console", lambda params: None)
    connection.ensure_connection()
    # The pid the connection was given at start differs from the server's, as a pooler's does.
    pooled = type("Info", (), {"backend_pid": -1})()
    raw = connection.connection
    monkeypatch.setattr(type(raw), "info", property(lambda self: pooled))
    assert connection.keeps_prepared_statements() is False


@pytest.mark.django_db
@pytest.mark.postgres
def test_moves_prepare_their_statements_where_the_connection_keeps_them(monkeypatch, settings):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = None
    monkeypatch.setattr(base, "_found", {})
    game_id, players = start_game("scavenge", 2)
    play_opening(game_id, players, 3)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        (prepared,) = cursor.fetchone()
    if connection.keeps_prepared_statements():
        assert prepared >= 2  # the locked read and the unit of work
    else:
        assert prepared == 0
