"""A move writes as few index entries as it can on PostgreSQL: the game row is rewritten in place
(a HOT update: no index of the table names a column a move changes), and the event and clock rows
carry no index of `game_id` alone beside their unique (game, ...) ones."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Game
from games.stores import fast
from tests.api.conftest import start_game

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _moves(players, game_id: int, count: int) -> None:
    for _ in range(count):
        game = players[0].get(f"/api/games/{game_id}/").json()
        mover = players[game["to_act"][0]]
        listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
        assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201


def _this_transaction(counter: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counter}('games_game'::regclass)")
        return cursor.fetchone()[0]


def test_every_move_rewrites_the_game_row_in_place():
    # The test's own transaction holds every move, so the counters of this transaction count them all.
    # Its eight versions of the row stay on the row's page only if the page has room for them all
    # (none is pruned before the transaction ends): a page the earlier tests of this database had
    # filled, with autovacuum pinning it, did not. So this transaction's game lands on an all but
    # empty page; what is tested is that no move writes an indexed column.
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE games_game SET (fillfactor = 10)")  # undone with the transaction
    game_id, players = start_game("scavenge", 2)
    updates, in_place = (_this_transaction(f) for f in ("pg_stat_get_xact_tuples_updated",
                                                         "pg_stat_get_xact_tuples_hot_updated"))
    _moves(players, game_id, 8)
    updates = _this_transaction("pg_stat_get_xact_tuples_updated") - updates
    in_place = _this_transaction("pg_stat_get_xact_tuples_hot_updated") - in_place
    assert updates >= 8 and in_place == updates, (updates, in_place)


def test_no_index_of_the_game_table_names_a_column_a_move_changes(monkeypatch):
    written: set[str] = set()
    update = fast.Writes.update

    def noted(self, model, pk, changes):
        if model is Game:
            written.update(Game._meta.get_field(name).column for name in changes)
        return update(self, model, pk, changes)

    game_id, players = start_game("scavenge", 2)
    monkeypatch.setattr(fast.Writes, "update", noted)
    _moves(players, game_id, 3)
    assert {"seq", "to_act", "updated_at"} <= written
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE i.indrelid = 'games_game'::regclass""")
        indexed = {name for (name,) in cursor.fetchall()}
        cursor.execute("SELECT pg_get_expr(indpred, indrelid) FROM pg_index "
                       "WHERE indrelid = 'games_game'::regclass AND indpred IS NOT NULL")
        predicates = " ".join(text for (text,) in cursor.fetchall())
    assert not written & indexed
    assert not [column for column in written if column in predicates]


def test_events_and_clocks_are_indexed_by_game_only_through_their_unique_keys():
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT t.relname, array_agg(a.attname ORDER BY a.attname) FROM pg_index i
            JOIN pg_class t ON t.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE t.relname IN ('games_event', 'games_deadline') GROUP BY t.relname, i.indexrelid""")
        indexes = cursor.fetchall()
    assert ("games_event", ["game_id"]) not in indexes and ("games_deadline", ["game_id"]) not in indexes
    assert ("games_event", ["game_id", "seq"]) in indexes and ("games_deadline", ["game_id", "seat"]) in indexes
