"""How the event writer (`games.writer`) keeps two writers of one game apart: one class per way,
chosen for each change by where it runs. Callers never see these; they hand the writer a
decision and the writer opens the game with the strategy that fits.

- `VersionCheck` (PostgreSQL, a move outside any transaction): the read locks nothing and
  notes the game row's version (`xmin`, which every UPDATE of the row changes); the unit of work
  writes only while the row is still at that version, else nothing, and the move is decided
  again from a new read. Two statements, each its own transaction (docs/decisions/0002).
- `RowLock` (PostgreSQL: a move inside a caller's transaction, and every other change): the
  read locks the row (SELECT ... FOR UPDATE) until the
  transaction ends; a change that stores no event still moves the version, so a `VersionCheck`
  move read before it writes nothing.
- `DatabaseLock` (SQLite): each write transaction takes the database's one write lock as it
  begins (IMMEDIATE, `project.settings`); no version to check or move.

Each strategy reads and writes through the store (`games.stores`); `VersionCheck` only with a
store that `checks_version` (the reference store does not: its moves take the row lock).

The unique (game, seq) constraint backs all three: two writers can never both store event n.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections, models, transaction

from games import stores
from games.models import Game


class _Strategy:
    def __init__(self, store: stores.Store) -> None:
        self.store = store


class RowLock(_Strategy):
    guarded = False  # whether the unit of work refuses to write once the game moved on

    def read(self, game_id: int, *, whole: bool, user_id: int | None = None,
             idempotency_key: str | None = None) -> Game | None:
        """The game, its row locked. `whole`: with its seats, deadline rows, newest hash and the
        caller's idempotency key (`Store.read`), as a move needs; otherwise the row alone, for
        a change that reads the rest as it goes."""
        if whole:
            return self.store.read(game_id, user_id=user_id, idempotency_key=idempotency_key)
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is not None:
            self.store.remember_loaded(game)
        return game

    def unit(self, game: Game) -> stores.UnitOfWork:
        return self.store.unit()

    def version_moved(self, game: Game) -> None:
        """Give the row a new version (an UPDATE that changes no value still does)."""
        Game.objects.filter(pk=game.pk).update(id=models.F("id"))


class DatabaseLock(RowLock):
    def version_moved(self, game: Game) -> None:
        """No writer checks a version here: the transaction held the database's write lock."""


class VersionCheck(_Strategy):
    guarded = True

    def read(self, game_id: int, *, whole: bool, user_id: int | None = None,
             idempotency_key: str | None = None) -> Game | None:
        """The game as one snapshot read, locked nowhere, with `row_version`."""
        return self.store.read(game_id, user_id=user_id, idempotency_key=idempotency_key, checked=True)

    def unit(self, game: Game) -> stores.UnitOfWork:
        return self.store.unit(guard=(game.pk, game.row_version))

    def version_moved(self, game: Game) -> None:
        """Nothing was locked and nothing written: no other writer can have missed this change."""


Strategy = RowLock | DatabaseLock | VersionCheck


@contextlib.contextmanager
def opened(*, optimistic: bool) -> Iterator[Strategy]:
    """`transaction.atomic()` around one change, and the strategy it runs under. `optimistic`
    (a move) takes `VersionCheck` where it can: on PostgreSQL, outside any other atomic block.

    Under `VersionCheck` Django keeps its atomic block, so on_commit callbacks run only once the
    block ends without an error, and are dropped if the unit found the row moved on
    (`stores.VersionMoved`, raised out of the block); psycopg is told autocommit, so it sends
    no BEGIN of its own, and at the block's end its commit and rollback find no transaction open
    and send nothing. Nothing may write in the block but the unit, and nothing may raise after it."""
    db = connections[DEFAULT_DB_ALIAS]
    store = stores.current()
    outermost = not db.in_atomic_block and db.get_autocommit()
    with transaction.atomic(using=db.alias):
        if optimistic and outermost and _checks_version(db, store):
            db.connection.autocommit = True  # psycopg's; Django's stays off until the block ends
            yield VersionCheck(store)
        else:
            yield DatabaseLock(store) if db.vendor == "sqlite" else RowLock(store)


def _checks_version(db: Any, store: stores.Store) -> bool:
    return (store.checks_version and db.vendor == "postgresql"
            and db.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
