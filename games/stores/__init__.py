"""The storage seam: what the event writer (`games.writer`, with `games.concurrency`, `games.log`,
`games.projection` and `games.deadlines`) asks of the database, and nothing else of it.

Two stores stand behind it, chosen at start by `SCRAPYARD_STORE`:

- `reference` (`games.stores.reference`): the plain Django ORM, one call per write, written to
  be read. It says what the write path does, row by row; it locks the game row for every change
  and so cannot check a version (`checks_version` is False).
- `fast` (`games.stores.fast`, the default): the same reads and writes as hand-written
  statements, a move in two of them on PostgreSQL (docs/decisions/0001).

The contract suite (`tests/games/test_store_contract.py`) plays the same games on both and
checks that they store the same rows and answer alike: a change to one store that the other
does not match fails there.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Protocol

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.db.models import Model
from django.dispatch import receiver

from games.models import Game

FIRST_ID = object()  # a value standing for the id the first write of a unit of work returns


class VersionMoved(Exception):
    """A guarded unit of work found its game changed since the move was read: nothing was
    written, and the move is to be decided again from a new read."""


class UnitOfWork(Protocol):
    """The writes of one change, gathered while it is decided and run, in the order given, by
    `run`. A write may give `FIRST_ID` as a value: the id of the unit's first write (the
    event's, `insert_event`). Rows are given as {attname: value}."""

    def insert(self, model: type[Model], rows: list[dict[str, Any]], *, returning: bool = False,
               ignore_conflicts: bool = False) -> None: ...

    def insert_event(self, event: Model, row: dict[str, Any]) -> None:
        """The event's INSERT, the unit's first write: `run` gives the event its id."""

    def update(self, model: type[Model], pk: int, changes: dict[str, Any]) -> None: ...

    def delete(self, model: type[Model], pks: list[int]) -> None: ...

    def run(self) -> int | None:
        """Run the writes gathered since the last run; the first one's id, if it returns one.
        A guarded unit whose game moved on writes nothing and raises `VersionMoved`."""


class Store(Protocol):
    checks_version: bool  # whether `read(checked=True)` and `unit(guard=...)` are supported

    def read(self, game_id: int, *, user_id: int | None = None, idempotency_key: str | None = None,
             checked: bool = False) -> Game | None:
        """The game for a change, its row locked unless `checked`, with what a move needs:
        `seat_rows()` in seat order, each seat with its owner's `vacation_since`;
        `deadline_rows()` in seat order; `last_hash` (the newest event's hash; absent when it
        cannot be read, and `games.log` reads it again); `earlier_key` (with an
        `idempotency_key`, the caller's earlier use of it as a dict holding at least `event_id`,
        `request_digest` and `event_game`, or None); with `checked`, `row_version`, the version
        a guarded unit checks. Its columns are remembered (`remember_loaded`). None if there is
        no such game."""

    def game_read(self, game_id: int) -> Game | None:
        """The game for a read (its answer, its legal moves), nothing locked: `seat_rows()` in
        seat order, each seat's `user` loaded (at least its `username`), and `deadline_rows()` in
        seat order; `game.seats` and `game.deadlines` work as on any game. None if there is no
        such game."""

    def life_marks(self, game_id: int, types: tuple[str, ...]) -> list[tuple[int | None, str | None, bool]]:
        """The game's events whose payload's `type` is one of `types` or that put their seat out
        of the game (`forfeit` true), in seq order, each as (seat, type or None, forfeit): what
        a reader needs of the log beyond the game row (`games.selectors.life`), in one statement."""

    def events(self, game_id: int, *, after: int, upto: int | None = None) -> list[Model]:
        """The game's events with `after` < seq (<= `upto` when given), in seq order, as the ORM
        loads them: the log a reader (`/events/`, a stream) asks for past what it has."""

    def unit(self, guard: tuple[int, str] | None = None) -> UnitOfWork:
        """A new unit of work; `guard` (the game's id and `row_version`) makes it write only
        while the game row is still at that version."""

    def new_instance(self, model: type[Model], **values: Any) -> Model:
        """`model(**values)`, for a row about to be written."""

    def remember_loaded(self, game: Game) -> None:
        """Note the game's columns as they are now, for `game_changes`."""

    def game_changes(self, game: Game) -> dict[str, Any]:
        """The game's columns changed since `remember_loaded` (all, if it was never called)."""


NAMES = {"fast": "games.stores.fast", "reference": "games.stores.reference"}


_chosen: Store | None = None


def current() -> Store:
    """The store `SCRAPYARD_STORE` names: looked up once, not at each of a move's few calls (a
    setting's read costs a microsecond through Django's lazy settings)."""
    return _chosen or _choose()


def _choose() -> Store:
    global _chosen
    _chosen = _named(settings.SCRAPYARD_STORE)
    return _chosen


@receiver(setting_changed)
def _setting_changed(*, setting: str, **kwargs: Any) -> None:
    """A test that changes the setting gets the store it names."""
    global _chosen
    if setting == "SCRAPYARD_STORE":
        _chosen = None


@functools.cache
def _named(name: str) -> Store:
    if name not in NAMES:
        raise ImproperlyConfigured(f"SCRAPYARD_STORE is {name!r}; it is one of {', '.join(sorted(NAMES))}")
    return importlib.import_module(NAMES[name]).STORE
