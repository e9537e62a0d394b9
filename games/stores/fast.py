"""The fast store (`games.stores`): the write path every event takes (a move above all), written
by hand where the ORM's one statement per call would cost most of a move's time. It reads and
writes what the reference store (`games.stores.reference`) does, as the contract suite checks;
`games.concurrency` says which way each change runs.

On PostgreSQL a move is two statements, each its own transaction (docs/decisions/0001, 0002):

1. `locked_read`: the game row with its version (`xmin`, which every UPDATE of the row changes),
   its seats (and their owners' vacation), its deadline rows, the hash of its newest event and,
   when the request carries one, the idempotency key's earlier answer, as JSON columns of one
   SELECT;
2. `Writes.run`, the move's unit of work: the game's changed columns, updated only while the row
   is still at the version read, and, only if it was, the event's INSERT (with the idempotency
   key's), the deadline rows' changes and, when one is due, the snapshot, as one data-modifying
   WITH. A row that moved on in between writes nothing, and the move is decided again from a new
   read (`VersionMoved`).

Under a row lock the same read locks the row (SELECT ... FOR UPDATE) and the unit writes
unconditionally. SQLite runs the same statements one by one (it has no data-modifying WITH of
several tables), so both databases take the same code.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any

import orjson
import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.utils import CursorWrapper
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import timezone
from psycopg.types.json import Jsonb

from games.models import Deadline, Event, Game, IdempotencyKey, Seat
from games.stores import FIRST_ID, VersionMoved
from project.instances import loaded_instance

# The owner's account, reached as the reference store reaches it (`user__account__vacation_since`):
# through the seat's user, so this store names no other app's model.
ACCOUNT = Seat._meta.get_field("user").related_model._meta.get_field("account").related_model
VACATION_SINCE = ACCOUNT._meta.get_field("vacation_since")  # read with each seat, for its clock


def _quote(name: str) -> str:
    return _quoted(connection.vendor, name)


@functools.cache
def _quoted(vendor: str, name: str) -> str:
    return connection.ops.quote_name(name)


@functools.cache
def _columns(model: type[Model]) -> tuple[tuple[str, str], ...]:
    """The model's (attname, column) pairs: asked twice a move of the game (what was loaded, what
    changed), and the same for the life of the process."""
    return tuple((field.attname, field.column) for field in model._meta.concrete_fields)


def _rows_as_json(vendor: str, model: type[Model], where: str, extra: str = "") -> str:
    """A scalar subquery giving the model's rows matching `where` (alias `x`) as a JSON array of
    objects keyed by attribute name; `extra` adds `'name', <expression>` pairs."""
    pairs = ", ".join(f"'{attname}', x.{_quote(column)}" for attname, column in _columns(model))
    pairs += f", {extra}" if extra else ""
    table = _quote(model._meta.db_table)
    if vendor == "postgresql":
        return f"(SELECT COALESCE(json_agg(json_build_object({pairs})), '[]')::text FROM {table} x WHERE {where})"
    return f"(SELECT json_group_array(json_object({pairs})) FROM {table} x WHERE {where})"


def _instance(model: type[Model], raw: dict[str, Any], alias: str = DEFAULT_DB_ALIAS) -> Model:
    """A model instance from one JSON object of `_rows_as_json`, as the ORM would load it."""
    attnames, parsed = _json_shape(model)
    values = [raw[attname] for attname in attnames]
    for index, field in parsed:
        values[index] = _from_json(field, values[index])
    return loaded_instance(model, attnames, values, alias)


def new_instance(model: type[Model], **values: Any) -> Model:
    """`model(**values)` for a row about to be written (the move's event, its deadline rows),
    without `Model.__init__`'s walk: a column not given takes its default, and a foreign key
    given as an object sets its id and keeps the object, as the field's descriptor does. Any
    other keyword is refused as `Model.__init__` refuses it. While anything listens for the
    init signals (nothing in this project does), the model's own constructor is used."""
    if pre_init.receivers or post_init.receivers:
        return model(**values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    given = instance.__dict__
    for attname, name, target, default in _new_shape(model):
        if target is not None and name in values:
            value = values.pop(name)
            given[attname] = None if value is None else getattr(value, target)
            state.fields_cache[name] = value
        elif attname in values:
            given[attname] = values.pop(attname)
        else:
            given[attname] = default()
    if values:
        raise TypeError(f"{model.__name__}() got unexpected keyword arguments: {', '.join(sorted(values))}")
    return instance


@functools.cache
def _new_shape(model: type[Model]) -> tuple[tuple[str, str, str | None, Any], ...]:
    """For each concrete field: its attname, its name, for a foreign key (given as an object
    under its name) the attname its value is read from, and what makes its default."""
    return tuple((field.attname, field.name, field.target_field.attname if field.many_to_one else None,
                  field.get_default) for field in model._meta.concrete_fields)


@functools.cache
def _json_shape(model: type[Model]) -> tuple[tuple[str, ...], list[tuple[int, Any]]]:
    """The model's column attnames, and the fields whose JSON form is not already the value the
    ORM would hand over: whole numbers and strings are; a float may arrive as a whole number, a
    boolean as 0 or 1 (SQLite), a date as text."""
    fields = model._meta.concrete_fields
    plain = (models.AutoField, models.BigAutoField, models.IntegerField, models.CharField, models.TextField,
             models.ForeignKey)
    parsed = [(index, field) for index, field in enumerate(fields) if not isinstance(field, plain)]
    return tuple(field.attname for field in fields), parsed


def _from_json(field: Any, value: Any) -> Any:
    """A field's value as a JSON object of `_rows_as_json` holds it, as the ORM would load it."""
    value = field.to_python(value) if value is not None else None
    if isinstance(value, dt.datetime) and timezone.is_naive(value):
        value = timezone.make_aware(value, dt.timezone.utc)  # SQLite keeps UTC without its offset
    return value


@functools.cache
def _locked_read_sql(vendor: str, with_key: bool, checked: bool) -> str:
    """The statement of `locked_read`, written once per database and shape: with the row's
    version for a write that checks it, else locking the row (PostgreSQL)."""
    accounts, events = _quote(ACCOUNT._meta.db_table), _quote(Event._meta.db_table)
    vacation = (f"'vacation_since', (SELECT a.{_quote('vacation_since')} FROM {accounts} a "
                f"WHERE a.{_quote('user_id')} = x.{_quote('user_id')})")
    seats = _rows_as_json(vendor, Seat, f"x.{_quote('game_id')} = g.{_quote('id')}", vacation)
    deadlines = _rows_as_json(vendor, Deadline, f"x.{_quote('game_id')} = g.{_quote('id')}")
    last_hash = (f"(SELECT e.{_quote('hash')} FROM {events} e "
                 f"WHERE e.{_quote('game_id')} = g.{_quote('id')} AND e.{_quote('seq')} = g.{_quote('seq')})")
    if with_key:
        event_of_key = (f"'event_game', (SELECT e.{_quote('game_id')} FROM {events} e "
                        f"WHERE e.{_quote('id')} = x.{_quote('event_id')})")
        earlier = _rows_as_json(vendor, IdempotencyKey, f"x.{_quote('user_id')} = %s AND x.{_quote('key')} = %s",
                                event_of_key)
    else:
        earlier = "NULL"
    columns = ", ".join(f"g.{_quote(column)}" for _, column in _columns(Game))
    version = ", g.xmin::text AS row_version" if checked else ""
    sql = (f"SELECT {columns}, {seats} AS seats_json, {deadlines} AS deadlines_json, {last_hash} AS last_hash, "
           f"{earlier} AS earlier_json{version} FROM {_quote(Game._meta.db_table)} g WHERE g.{_quote('id')} = %s")
    return sql + (" FOR UPDATE OF g" if vendor == "postgresql" and not checked else "")


def locked_read(game_id: int, *, user_id: int | None = None, idempotency_key: str | None = None,
                checked: bool = False) -> Game | None:
    """The game with its row locked (PostgreSQL; SQLite takes its lock at the first write, and
    the unique (game, seq) constraint backs it) or with its version (below), its seats and
    deadline rows loaded as if prefetched, `last_hash` (the newest event's hash) and
    `earlier_key` (the caller's idempotency key row, with its event's game, or None).

    What comes from other tables than the game's is as it was when the statement began: after a
    wait for another writer's lock it may be older than the game row. Every write that changes
    the log changes `seq` too, so the version check refuses such a request before any of it is
    used; a request with an idempotency key looks for its key again then (`games.services.moves`).

    In a move whose write checks the row's version (`games.concurrency.VersionCheck`), nothing is locked: the
    statement reads one snapshot, and `row_version` is the version its write will check."""
    db = connections[DEFAULT_DB_ALIAS]
    sql = _locked_read_sql(db.vendor, bool(idempotency_key), checked)
    params: list[Any] = [user_id, idempotency_key] if idempotency_key else []
    with statement_cursor(db) as cursor:
        cursor.execute(sql, [*params, game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    attnames, converters = _loading(Game, db.vendor)
    game = loaded_instance(Game, attnames, _converted(db, converters, row[:len(attnames)]), db.alias)
    game.seats_json, game.deadlines_json, game.last_hash, game.earlier_json = row[len(attnames):len(attnames) + 4]
    if checked:
        game.row_version = row[len(attnames) + 4]
    seats_loaded = []
    for raw in orjson.loads(game.seats_json):
        seat = _instance(Seat, raw)
        seat.vacation_since = _from_json(VACATION_SINCE, raw["vacation_since"])  # what `deadlines` asks of the owner
        seats_loaded.append(seat)
    game._prefetched_objects_cache = {
        "seats": sorted(seats_loaded, key=lambda seat: seat.index),
        "deadlines": sorted((_instance(Deadline, raw) for raw in orjson.loads(game.deadlines_json)), key=lambda d: d.seat),
    }
    rows = orjson.loads(game.earlier_json) if game.earlier_json else []
    game.earlier_key = rows[0] if rows else None
    del game.seats_json, game.deadlines_json, game.earlier_json
    if game.last_hash is None:
        # After waiting for another writer's lock, PostgreSQL hands over the newest game row but
        # reads the other tables as they were when the statement began: a hash not seen here is
        # looked up again (`games.log`) before the log is called damaged.
        del game.last_hash
    remember_loaded(game)
    return game


USER = Seat._meta.get_field("user").related_model  # the seats' accounts, reached as the reference store reaches them


@functools.cache
def _game_read_sql(vendor: str) -> str:
    """The statement of `game_read`: the game's columns, its seats with their accounts' usernames
    and its deadline rows, as `locked_read` reads them, nothing locked."""
    users = _quote(USER._meta.db_table)
    username = (f"'username', (SELECT u.{_quote('username')} FROM {users} u "
                f"WHERE u.{_quote('id')} = x.{_quote('user_id')})")
    seats = _rows_as_json(vendor, Seat, f"x.{_quote('game_id')} = g.{_quote('id')}", username)
    deadlines = _rows_as_json(vendor, Deadline, f"x.{_quote('game_id')} = g.{_quote('id')}")
    columns = ", ".join(f"g.{_quote(column)}" for _, column in _columns(Game))
    return (f"SELECT {columns}, {seats} AS seats_json, {deadlines} AS deadlines_json "
            f"FROM {_quote(Game._meta.db_table)} g WHERE g.{_quote('id')} = %s")


def game_read(game_id: int) -> Game | None:
    """The game for a read, in one statement (one snapshot): its seats in seat order, each with
    its account (only `id` and `username` loaded: what a game's answer names), and its deadline
    rows in seat order, loaded as if prefetched. None if there is no such game."""
    db = connections[DEFAULT_DB_ALIAS]
    with statement_cursor(db) as cursor:
        cursor.execute(_game_read_sql(db.vendor), [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    attnames, converters = _loading(Game, db.vendor)
    game = loaded_instance(Game, attnames, _converted(db, converters, row[:len(attnames)]), db.alias)
    seats_json, deadlines_json = row[len(attnames):]
    seats_loaded = []
    for raw in orjson.loads(seats_json):
        seat = _instance(Seat, raw, db.alias)
        if seat.user_id is not None:  # the account as `.only("id", "username")` loads it
            seat._state.fields_cache["user"] = loaded_instance(USER, ("id", "username"),
                                                               [seat.user_id, raw["username"]], db.alias)
        seats_loaded.append(seat)
    # Kept apart from Django's prefetch cache, which holds querysets: `game.seats` (a count, a
    # filter) still asks the database, as without a prefetch; `seat_rows()` reads these.
    game._read_rows = {
        "seats": sorted(seats_loaded, key=lambda seat: seat.index),
        "deadlines": sorted((_instance(Deadline, raw, db.alias) for raw in orjson.loads(deadlines_json)),
                            key=lambda d: d.seat),
    }
    return game


@functools.cache
def _life_marks_sql(vendor: str, types: tuple[str, ...]) -> str:
    """The statement of `life_marks`: the marks read out of the payload in the database, so only
    the few marked events' three values come back, not their payloads. The types are written into
    the statement (code's constants, quoted), not bound: on PostgreSQL its condition is then the
    partial index `event_life_marks`' own (migration 0019), which the planner uses even for the
    prepared statement's generic plan, and a long game's events are not read one by one."""
    payload, seq, game = _quote("payload"), _quote("seq"), _quote("game_id")
    if vendor == "postgresql":
        kind, forfeit = f"({payload} ->> 'type')", f"COALESCE(({payload} -> 'forfeit') = 'true'::jsonb, false)"
    else:  # SQLite's JSON1, as Django's own lookups read a key there
        kind, forfeit = f"json_extract({payload}, '$.type')", f"COALESCE(json_type({payload}, '$.forfeit') = 'true', 0)"
    listed = ", ".join("'" + name.replace("'", "''") + "'" for name in types)
    return (f"SELECT {_quote('seat')}, {kind}, {forfeit} FROM {_quote(Event._meta.db_table)} "
            f"WHERE {game} = %s AND ({kind} IN ({listed}) OR {forfeit}) ORDER BY {seq}")


def life_marks(game_id: int, types: tuple[str, ...]) -> list[tuple[int | None, str | None, bool]]:
    """The events that mark a game's life (`Store.life_marks`), in one statement (prepared where
    the connection keeps them: it runs at every seq a reader is first to see)."""
    db = connections[DEFAULT_DB_ALIAS]
    with statement_cursor(db) as cursor:
        cursor.execute(_life_marks_sql(db.vendor, tuple(types)), [game_id])
        return [(seat, kind, bool(forfeit)) for seat, kind, forfeit in cursor.fetchall()]


@functools.cache
def _events_sql(vendor: str, bounded: bool) -> str:
    """The statement of `events`, with an upper bound on seq or without."""
    columns = ", ".join(_quote(column) for _, column in _columns(Event))
    seq = _quote("seq")
    upto = f" AND {seq} <= %s" if bounded else ""
    return (f"SELECT {columns} FROM {_quote(Event._meta.db_table)} WHERE {_quote('game_id')} = %s "
            f"AND {seq} > %s{upto} ORDER BY {seq}")


def events(game_id: int, *, after: int, upto: int | None = None) -> list[Event]:
    """The game's events after seq `after` (up to `upto`), in seq order (`Store.events`): one
    statement, prepared where the connection keeps them (a page asks for the log's new events at
    every move, a stream for every watcher's news), loaded as the ORM loads them."""
    db = connections[DEFAULT_DB_ALIAS]
    bounds = [_as_bigint(after), *([] if upto is None else [_as_bigint(upto)])]
    with statement_cursor(db) as cursor:
        cursor.execute(_events_sql(db.vendor, upto is not None), [game_id, *bounds])
        rows = cursor.fetchall()
    attnames, converters = _loading(Event, db.vendor)
    return [loaded_instance(Event, attnames, _converted(db, converters, row), db.alias) for row in rows]


def _as_bigint(bound: int) -> int:
    """A seq bound within what a database integer holds: a reader may ask for events after any
    number at all (SQLite refuses a parameter beyond 64 bits, where the ORM reads such a bound as
    past every row), and no seq lies beyond these."""
    return max(-(2**63), min(bound, 2**63 - 1))


def _converted(db: Any, converters: tuple, values: tuple) -> list[Any]:
    """Column values as the ORM hands them over (JSON decoded, SQLite's datetimes made aware)."""
    converted = []
    for (expression, field_converters), value in zip(converters, values):
        for convert in field_converters:
            value = convert(value, expression, db)
        converted.append(value)
    return converted


@functools.cache
def _loading(model: type[Model], vendor: str) -> tuple[tuple[str, ...], tuple[tuple[Any, list], ...]]:
    """The model's column attnames, and for each column its expression and the converters the ORM
    would run on its values: worked out once, not looked up field by field at every move (a
    field's hash is Python code, and the game has twenty-odd columns)."""
    db = connections[DEFAULT_DB_ALIAS]
    fields = model._meta.concrete_fields
    converters = []
    for field in fields:
        expression = field.get_col(model._meta.db_table)
        field_converters = [*db.ops.get_db_converters(expression), *expression.get_db_converters(db)]
        if isinstance(field, models.JSONField) and field.decoder is None:
            field_converters = [_json_value if convert == field.from_db_value else convert for convert in field_converters]
        converters.append((expression, field_converters))
    return tuple(field.attname for field in fields), tuple(converters)


_LONG_DIGITS = re.compile(r"[0-9]{19}")


def _json_value(value: Any, expression: Any, db: Any) -> Any:
    """A JSON column's value as `JSONField.from_db_value` gives it, decoded by orjson (a game has
    four JSON columns, an event two, each read at every request: the standard library's decoder
    is several Python calls a value). What orjson would read otherwise than the standard library
    goes the field's own way: a text it refuses, and any with a run of 19 digits or more (orjson
    reads a whole number beyond 64 bits as a float; a seed may be one)."""
    if value is None or not isinstance(value, str) or _LONG_DIGITS.search(value):
        return expression.target.from_db_value(value, expression, db)
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return expression.target.from_db_value(value, expression, db)


def remember_loaded(game: Game) -> None:
    """Note the columns as read, so the update writes only those that changed. A JSON column's
    value is copied (the move may change it in place); every other value is immutable."""
    loaded = {attname: getattr(game, attname) for attname, _ in _columns(Game)}
    for attname in _json_attnames():
        value = loaded[attname]
        if isinstance(value, (dict, list)):
            loaded[attname] = orjson.loads(orjson.dumps(value))
    game._as_loaded = loaded


@functools.cache
def _json_attnames() -> tuple[str, ...]:
    return tuple(field.attname for field in Game._meta.concrete_fields if isinstance(field, models.JSONField))


class Writes:
    """A unit of work: the writes of one event (its INSERT, the game's changed columns, the
    deadline rows, a snapshot when one is due), gathered while the move is decided and then run
    as one statement on PostgreSQL (a data-modifying WITH; its parts touch different rows, never
    one row twice) or one by one elsewhere. A part may refer to the id `RETURNING id` of the
    first part as `{first_id}`; the event given to `insert_event` gets that id when it runs.

    `guard` (a game's id and the version its move read, `locked_read`) makes the unit one that
    writes only while the game row is at that version: the game's UPDATE checks it (`g` in the
    statement; one that changes nothing is added if the move changed no column), and every other
    part writes only if that UPDATE did, else `run` raises `VersionMoved` and nothing is written.
    PostgreSQL only."""

    def __init__(self, guard: tuple[int, str] | None = None) -> None:
        self.guard = guard
        self.guard_part: tuple[str, list[Any]] | None = None  # the game's checked UPDATE
        self.parts: list[tuple[str, list[Any]]] = []
        self.first_returns = False  # whether the first part returns an id
        self.event: Model | None = None  # the event whose INSERT is the first part
        self.db = connections[DEFAULT_DB_ALIAS]  # the connection itself: `connection` looks it up on each use

    def _q(self, name: str) -> str:
        return _quoted(self.db.vendor, name)

    def add(self, sql: str, params: list[Any]) -> None:
        self.parts.append((sql, params))

    def insert(self, model: type[Model], rows: list[dict[str, Any]], *, returning: bool = False,
               ignore_conflicts: bool = False) -> None:
        """INSERT rows given as {attname: value}; values are prepared as the ORM would."""
        if not rows:
            return
        columns, plan = _columns_plan(model, tuple(rows[0]), self.db.vendor)
        casts = _casts(model, tuple(rows[0]), self.db.vendor) if self.guard is not None else None
        values, params = [], []
        for row in rows:
            marks = []
            for number, (attname, field, shortcut) in enumerate(plan):
                value = row[attname]
                if value is FIRST_ID:
                    marks.append("{first_id}")
                    params.append(FIRST_ID)  # stands in its place until the id is known
                else:
                    # Guarded, the values are a subquery's, whose types the columns no longer tell.
                    marks.append(f"%s::{casts[number]}" if casts else "%s")
                    params.append(_prepared(field, shortcut, value, self.db))
            values.append(f"({', '.join(marks)})")
        sql = f"INSERT INTO {self._q(model._meta.db_table)} ({', '.join(columns)}) "
        if self.guard is None:
            sql += f"VALUES {', '.join(values)}"
        else:
            sql += f"SELECT v.* FROM (VALUES {', '.join(values)}) v, g"  # no row of g, no row written
        if ignore_conflicts:
            sql += " ON CONFLICT DO NOTHING"
        if returning:
            sql += f" RETURNING {self._q('id')}"
            self.first_returns = not self.parts
        self.add(sql, params)

    def insert_event(self, event: Model, row: dict[str, Any]) -> None:
        """The event's INSERT, as the first part: `run` gives the event its id."""
        if self.parts:
            raise ValueError("an event's INSERT is the first write of its unit")
        self.insert(type(event), [row], returning=True)
        self.event = event

    def update(self, model: type[Model], pk: int, changes: dict[str, Any]) -> None:
        if not changes:
            return
        columns, plan = _columns_plan(model, tuple(changes), self.db.vendor)
        sets = ", ".join(f"{column} = %s" for column in columns)
        params = [_prepared(field, shortcut, changes[attname], self.db) for attname, field, shortcut in plan]
        sql = f"UPDATE {self._q(model._meta.db_table)} SET {sets} WHERE {self._q('id')} = %s"
        if self.guard is None:
            self.add(sql, [*params, pk])
        elif model is Game and pk == self.guard[0]:
            self.guard_part = (f"{sql} AND xmin = %s::xid RETURNING 1", [*params, pk, self.guard[1]])
        else:
            self.add(f"{sql} AND EXISTS (SELECT FROM g)", [*params, pk])

    def delete(self, model: type[Model], pks: list[int]) -> None:
        if pks:
            marks = ", ".join("%s" for _ in pks)
            sql = f"DELETE FROM {self._q(model._meta.db_table)} WHERE {self._q('id')} IN ({marks})"
            self.add(sql + (" AND EXISTS (SELECT FROM g)" if self.guard is not None else ""), list(pks))

    def run(self) -> int | None:
        """Run the writes; the first part's returned id, if it returns one (also the event's)."""
        if not self.parts and self.guard_part is None:
            return None
        first_id = self._run()
        self.parts, self.guard_part, self.first_returns = [], None, False
        if self.event is not None:
            self.event.pk = first_id
            self.event._state.adding = False  # stored: from here on the model refuses to save it again
            self.event = None
        return first_id

    def _run(self) -> int | None:
        with statement_cursor(self.db) as cursor:
            if self.guard is not None:
                return self._run_guarded(cursor)
            if self.db.vendor == "postgresql" and len(self.parts) > 1:
                return self._run_as_one(cursor)
            first_id = None
            for number, (sql, params) in enumerate(self.parts):
                cursor.execute(sql.replace("{first_id}", "%s"), [first_id if p is FIRST_ID else p for p in params])
                if number == 0 and self.first_returns:
                    first_id = cursor.fetchone()[0]
            return first_id

    def _run_as_one(self, cursor: Any) -> int | None:
        clauses, params = self._clauses()
        final = "SELECT id FROM w0" if self.first_returns else "SELECT 1"
        cursor.execute(f"WITH {', '.join(clauses)} {final}", params)
        row = cursor.fetchone()
        return row[0] if self.first_returns and row else None

    def _run_guarded(self, cursor: Any) -> int | None:
        guard_sql, guard_params = self.guard_part or (
            f"UPDATE {self._q(Game._meta.db_table)} SET {self._q('id')} = {self._q('id')} "
            f"WHERE {self._q('id')} = %s AND xmin = %s::xid RETURNING 1", list(self.guard))
        clauses, params = self._clauses()
        first = "(SELECT id FROM w0)" if self.first_returns else "NULL"
        cursor.execute(f"WITH {', '.join([f'g AS ({guard_sql})', *clauses])} SELECT {first}, (SELECT count(*) FROM g)",
                       [*guard_params, *params])
        first_id, written = cursor.fetchone()
        if not written:
            raise VersionMoved(f"game {self.guard[0]} changed since its move was read")
        return first_id

    def _clauses(self) -> tuple[list[str], list[Any]]:
        clauses, params = [], []
        for number, (sql, part_params) in enumerate(self.parts):
            clauses.append(f"w{number} AS ({sql.replace('{first_id}', '(SELECT id FROM w0)')})")
            params += [p for p in part_params if p is not FIRST_ID]
        return clauses, params


class _PreparingCursor(psycopg.Cursor):
    """Server-side binding, each statement prepared at its first run on the connection (psycopg
    keeps the connection's prepared statements by their text; the unit of work has a few shapes)."""

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True, binary=binary)


def statement_cursor(db: Any) -> Any:
    """The cursor for the move's two statements: Django's, or with
    where the connection keeps prepared statements (`project.postgresql`: straight to PostgreSQL, or
    through a PgBouncer that carries them) one that prepares them (Django's own cursors
    bind on the client and never prepare, as PgBouncer's transaction pooling needs). Django's
    again while queries are logged (DEBUG, a test counting statements): a prepared statement's
    run carries no text for the log."""
    if db.vendor != "postgresql" or db.queries_logged or not db.keeps_prepared_statements():
        return db.cursor()
    db.ensure_connection()
    db.validate_thread_sharing()
    # psycopg prepares nothing on a connection without a threshold, which Django leaves unset;
    # its client-binding cursors, all the other queries', never prepare whatever the threshold.
    if db.connection.prepare_threshold is None:
        db.connection.prepare_threshold = 0
    # One cursor a connection, kept between statements: a new one costs its set-up and forgets
    # the adapters it looked up for the move's values (a statement's parameters, each time).
    kept = getattr(db.connection, "_move_cursor", None)
    if kept is None or kept.closed:
        kept = db.connection._move_cursor = _PreparingCursor(db.connection)
    return _KeptCursorWrapper(kept, db)


class _KeptCursorWrapper(CursorWrapper):
    """Django's cursor wrapper (its error translation, its thread check), leaving the kept cursor
    open at the block's end: it closes with its connection."""

    def __exit__(self, type, value, traceback):
        return None


@functools.cache
def _casts(model: type[Model], attnames: tuple[str, ...], vendor: str) -> tuple[str, ...]:
    """The SQL types of these columns, for values that reach them from a subquery."""
    db = connections[DEFAULT_DB_ALIAS]
    return tuple(model._meta.get_field(name).cast_db_type(db) for name in attnames)


@functools.cache
def _columns_plan(model: type[Model], attnames: tuple[str, ...], vendor: str) -> tuple[tuple[str, ...], tuple]:
    """For a write of these attnames of the model: their quoted columns, and each one's field
    and `_shortcut`. A move writes the same few shapes over and over; each is worked out once."""
    fields = [model._meta.get_field(name) for name in attnames]
    return (tuple(_quoted(vendor, field.column) for field in fields),
            tuple((field.attname, field, _shortcut(field, vendor)) for field in fields))


def _prepared(field: Any, shortcut: tuple[type, Any] | None, value: Any, db: Any) -> Any:
    """A value as the ORM would send it (`shortcut` is the field's `_shortcut`); a JSON value to
    PostgreSQL encoded by orjson rather than the standard library (a move writes several: the
    event's payloads, the game's `to_act`)."""
    if shortcut is not None:
        kind, typed = shortcut
        if value is None:
            return None
        if type(value) is kind:
            return value if typed is None else typed(value)
    if db.vendor == "postgresql" and isinstance(field, models.JSONField) and field.encoder is None \
            and value is not None:
        return Jsonb(value, dumps=_json_text)
    return field.get_db_prep_save(value, db)


@functools.cache
def _shortcut(field: Any, vendor: str) -> tuple[type, Any] | None:
    """For a whole-number, text or boolean column, the value type whose `get_db_prep_save` the
    unit of work does itself (a move's twenty-odd values need not go through the field), and what
    Django makes of it: the same value, or on PostgreSQL an integer column's typed number (Int4,
    Int8: a parameter's type that stays the same from move to move, as a prepared statement
    wants). The exact type: a boolean is never taken for a number."""
    if isinstance(field, models.ForeignKey):
        return _shortcut(field.target_field, vendor)
    db = connections[DEFAULT_DB_ALIAS]
    if isinstance(field, models.BooleanField):
        return bool, None
    if isinstance(field, (models.CharField, models.TextField)):
        return str, None
    if isinstance(field, (models.AutoField, models.BigAutoField, models.IntegerField)) and db.vendor == vendor:
        typed = type(field.get_db_prep_save(1, db))
        return int, (None if typed is int else typed)
    return None


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def game_changes(game: Game) -> dict[str, Any]:
    """The game's columns that differ from what `remember_loaded` noted (all, if nothing was)."""
    loaded = getattr(game, "_as_loaded", None)
    changed = {}
    for attname, _ in _columns(Game):
        if attname == "id":
            continue
        value = getattr(game, attname)
        if loaded is None or loaded.get(attname) != value:
            changed[attname] = value
    return changed


class FastStore:
    """The store behind `games.stores`, made of this module's functions (no layer between)."""

    checks_version = True
    read = staticmethod(locked_read)
    game_read = staticmethod(game_read)
    life_marks = staticmethod(life_marks)
    events = staticmethod(events)
    unit = Writes
    new_instance = staticmethod(new_instance)
    remember_loaded = staticmethod(remember_loaded)
    game_changes = staticmethod(game_changes)


STORE = FastStore()
