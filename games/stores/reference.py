"""The reference store (`games.stores`): what the write path reads and writes, in the plain
Django ORM, one call at a time. It is the specification the fast store (`games.stores.fast`)
is held to by the contract suite (`tests/games/test_store_contract.py`): read it first to learn
what a change stores; run it (`SCRAPYARD_STORE=reference`) to rule the fast store out.

It locks the game row for every change (SELECT ... FOR UPDATE on PostgreSQL; SQLite's write
lock) and so never checks a row version: `checks_version` is False, and `games.concurrency`
takes the row lock for moves too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from django.db.models import F, Model, Prefetch, Q

from games.models import Deadline, Event, Game, IdempotencyKey, Seat
from games.stores import FIRST_ID


class ReferenceStore:
    checks_version = False

    def read(self, game_id: int, *, user_id: int | None = None, idempotency_key: str | None = None,
             checked: bool = False) -> Game | None:
        if checked:
            raise ValueError("the reference store locks the row; it has no version to check")
        seats = Seat.objects.order_by("index").annotate(vacation_since=F("user__account__vacation_since"))
        game = (
            Game.objects.select_for_update()
            .prefetch_related(Prefetch("seats", seats), Prefetch("deadlines", Deadline.objects.order_by("seat")))
            .filter(pk=game_id)
            .first()
        )
        if game is None:
            return None
        last_hash = Event.objects.filter(game=game, seq=game.seq).values_list("hash", flat=True).first()
        if last_hash is not None:
            game.last_hash = last_hash
        game.earlier_key = _earlier_key(user_id, idempotency_key) if idempotency_key else None
        self.remember_loaded(game)
        return game

    def game_read(self, game_id: int) -> Game | None:
        seats = Seat.objects.order_by("index").select_related("user")
        return (
            Game.objects.prefetch_related(Prefetch("seats", seats), Prefetch("deadlines", Deadline.objects.order_by("seat")))
            .filter(pk=game_id)
            .first()
        )

    def life_marks(self, game_id: int, types: tuple[str, ...]) -> list[tuple[int | None, str | None, bool]]:
        marked = Event.objects.filter(game_id=game_id).filter(Q(payload__type__in=types) | Q(payload__forfeit=True))
        return [(seat, payload.get("type"), payload.get("forfeit") is True)
                for seat, payload in marked.order_by("seq").values_list("seat", "payload")]

    def events(self, game_id: int, *, after: int, upto: int | None = None) -> list[Event]:
        events = Event.objects.filter(game_id=game_id, seq__gt=after)
        if upto is not None:
            events = events.filter(seq__lte=upto)
        return list(events.order_by("seq"))

    def unit(self, guard: tuple[int, str] | None = None) -> Unit:
        if guard is not None:
            raise ValueError("the reference store locks the row; it has no version to check")
        return Unit()

    def new_instance(self, model: type[Model], **values: Any) -> Model:
        return model(**values)

    def remember_loaded(self, game: Game) -> None:
        game._as_loaded = copy.deepcopy(_columns_of(game))

    def game_changes(self, game: Game) -> dict[str, Any]:
        loaded = getattr(game, "_as_loaded", {})
        return {name: value for name, value in _columns_of(game).items()
                if name != "id" and (name not in loaded or loaded[name] != value)}


def _earlier_key(user_id: int | None, key: str) -> dict[str, Any] | None:
    return (IdempotencyKey.objects.filter(user_id=user_id, key=key)
            .values("event_id", "request_digest", event_game=F("event__game_id")).first())


def _columns_of(game: Game) -> dict[str, Any]:
    return {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields}


class Unit:
    """A unit of work as a list of ORM calls, run in order. Each call takes the id of the
    unit's first write (`FIRST_ID` in a row stands for it) and returns its own id, if any."""

    def __init__(self) -> None:
        self._writes: list[Callable[[int | None], int | None]] = []

    def insert(self, model: type[Model], rows: list[dict[str, Any]], *, returning: bool = False,
               ignore_conflicts: bool = False) -> None:
        def write(first_id: int | None) -> int | None:
            objects = [model(**_with_first_id(row, first_id)) for row in rows]
            model.objects.bulk_create(objects, ignore_conflicts=ignore_conflicts)
            return objects[0].pk if returning else None

        if rows:
            self._writes.append(write)

    def insert_event(self, event: Model, row: dict[str, Any]) -> None:
        if self._writes:
            raise ValueError("an event's INSERT is the first write of its unit")

        def write(first_id: int | None) -> int:
            event.save()
            return event.pk

        self._writes.append(write)

    def update(self, model: type[Model], pk: int, changes: dict[str, Any]) -> None:
        def write(first_id: int | None) -> None:
            model.objects.filter(pk=pk).update(**changes)

        if changes:
            self._writes.append(write)

    def delete(self, model: type[Model], pks: list[int]) -> None:
        def write(first_id: int | None) -> None:
            model.objects.filter(pk__in=pks).delete()

        if pks:
            self._writes.append(write)

    def run(self) -> int | None:
        writes, self._writes = self._writes, []
        first_id = None
        for number, write in enumerate(writes):
            written = write(first_id)
            if number == 0:
                first_id = written
        return first_id


def _with_first_id(row: dict[str, Any], first_id: int | None) -> dict[str, Any]:
    return {name: first_id if value is FIRST_ID else value for name, value in row.items()}


STORE = ReferenceStore()
