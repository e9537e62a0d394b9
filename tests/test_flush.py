"""The test database's flush between transactional tests (tests/conftest.py): it leaves no row
a test wrote, small tables emptied by DELETE and large ones truncated, the log's append-only
guard back in force after it, and the content types and permissions `migrate` made kept."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from games.models import Event, Game
from tests import conftest
from tests.api.conftest import play_opening, start_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _tables_with_rows() -> set[str]:
    """Of the tables a flush empties (Django's own list: its migration records are not one)."""
    tables = [table for table in _flushed() if table not in conftest.MADE_BY_MIGRATE]
    deleted, truncated = conftest._emptied(connection, tables)
    return {*deleted, *truncated}


def _flushed() -> list[str]:
    return connection.introspection.django_table_names(only_existing=True, include_views=False)


def test_a_flush_empties_every_table_a_test_wrote_and_keeps_what_migrate_made(monkeypatch):
    game_id, players = start_game("scavenge", 2)
    play_opening(game_id, players, 4)
    monkeypatch.setattr(conftest, "TRUNCATE_FROM", 3)  # the events (5 rows) truncated, the rest deleted
    deleted, truncated = conftest._emptied(connection, _flushed())
    assert "games_event" in truncated and "games_game" in deleted
    kinds, permissions = ContentType.objects.count(), Permission.objects.count()

    call_command("flush", verbosity=0, interactive=False)

    assert _tables_with_rows() == set()
    assert (ContentType.objects.count(), Permission.objects.count()) == (kinds, permissions) != (0, 0)
    game_id, _ = start_game("scavenge", 2)  # the next test's rows: the guard refuses to delete an event
    with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM games_event WHERE game_id = %s", [game_id])
    assert Game.objects.filter(pk=game_id).exists() and Event.objects.filter(game_id=game_id).exists()
