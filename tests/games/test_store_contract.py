"""The store contract (`games.stores`): the reference store (the plain ORM) and the fast store
(hand-written statements) store the same rows and answer alike.

Each installed game is played twice through the API, once on each store, from an empty database
(ids from 1 again), with the same seeds and a clock that stands still, so that every column is
comparable: a seat taken and left, a bank clock's deadlines and banks, moves across snapshot
boundaries, an idempotency key and its retry, a resignation. Both plays must leave the same
rows in every table the writer touches (events with their hashes, the game row, seats,
deadlines, snapshots, idempotency keys; everything but the rows' own ids) and give the same
answers to the same requests. The stores' reads are compared on their own too.

On PostgreSQL the fast store runs its version check and the reference its row lock; on SQLite
both run under the database lock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import rules
from accounts.models import Account
from games import concurrency, store, stores, time_controls
from games.models import Deadline, Event, Game, IdempotencyKey, Seat, Snapshot
from games.selectors import life
from games.services import lobby
from tests.api.conftest import Player, play_opening, register, start_game

pytestmark = pytest.mark.django_db(transaction=True)

STORES = tuple(stores.NAMES)
MOVES = 9
STILL = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def still_clock(monkeypatch):
    """Every timestamp the same in both plays (and inside the events' hashes)."""
    monkeypatch.setattr(timezone, "now", lambda: STILL)
    monkeypatch.setattr(time_controls, "now", lambda: STILL)


@pytest.mark.parametrize("rules_id", list(rules.catalog()))
def test_both_stores_store_the_same_rows_and_answer_alike(rules_id, settings, monkeypatch, still_clock):
    settings.SCRAPYARD_SNAPSHOT_EVERY = 4
    played = {}
    for name in STORES:
        settings.SCRAPYARD_STORE = name
        assert stores.current() is stores._named(name)
        played[name] = _play(rules_id, monkeypatch)
    (reference_rows, reference_answers), (fast_rows, fast_answers) = played["reference"], played["fast"]
    assert all(reference_rows["before the resignation"][table] for table in reference_rows["at the end"]), \
        "a table the play should have written is empty"
    for moment, tables in reference_rows.items():
        for table in tables:
            assert fast_rows[moment][table] == tables[table], (moment, table)
    assert len(fast_answers) == len(reference_answers)
    for (request, reference_answer), (_, fast_answer) in zip(reference_answers, fast_answers):
        assert fast_answer == reference_answer, request


def _play(rules_id: str, monkeypatch) -> tuple[dict[str, dict], list[tuple[str, Any]]]:
    """One game through the API on an empty database: the rows before its resignation and at its
    end, and every answer, in order."""
    _empty_database()
    seeds = itertools.count()
    monkeypatch.setattr(lobby, "new_seed", lambda: hashlib.sha256(f"contract-{next(seeds)}".encode()).hexdigest())
    answers: list[tuple[str, Any]] = []

    def asked(request: str, response: Any) -> Any:
        answers.append((request, (response.status_code, response.json())))
        return response

    count = 3 if rules.get(rules_id).max_players >= 3 else 2
    people = [register(f"contract{n}") for n in range(count + 1)]
    created = asked("create", people[0].post("/api/games/", {"rules": rules_id, "players": count,
                                                            "time_control": {"type": "bank"}}))
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    if count == 3:  # a seat taken and left while the game is open
        asked("join", people[count].post(f"/api/games/{game_id}/join/"))
        asked("leave", people[count].post(f"/api/games/{game_id}/leave/"))
    for player in people[1:count]:
        assert asked("join", player.post(f"/api/games/{game_id}/join/")).status_code == 201
    seated = _by_seat(game_id, people)
    for number in range(MOVES):
        if not _move(game_id, seated, number, asked):
            break
    rows = {"before the resignation": _rows()}
    mover = seated[0]
    asked("resign", mover.post(f"/api/games/{game_id}/resign/"))
    asked("detail", mover.get(f"/api/games/{game_id}/"))
    asked("events", mover.get(f"/api/games/{game_id}/events/"))
    rows["at the end"] = _rows()
    return rows, answers


def _move(game_id: int, seated: dict[int, Player], number: int, asked) -> bool:
    game = seated[0].get(f"/api/games/{game_id}/").json()
    if game["status"] != "active":
        return False
    mover = seated[game["to_act"][0]]
    listed = asked(f"legal {number}", mover.get(f"/api/games/{game_id}/legal-moves/")).json()
    headers = {"Idempotency-Key": f"contract-{number}"} if number % 3 == 1 else {}
    answer = asked(f"move {number}", mover.submit(game_id, listed["moves"][0], listed["seq"], **headers))
    assert answer.status_code == 201, answer.content
    if headers:  # the retry is answered from the key, and stores nothing
        asked(f"retry {number}", mover.submit(game_id, listed["moves"][0], listed["seq"], **headers))
    return True


def _by_seat(game_id: int, people: list[Player]) -> dict[int, Player]:
    names = dict(Seat.objects.filter(game_id=game_id).values_list("user__username", "index"))
    return {names[person.username]: person for person in people if person.username in names}


def _empty_database() -> None:
    """No rows, ids from 1, and nothing the process remembers of the last play."""
    call_command("flush", interactive=False, verbosity=0)
    store.recent_states.clear()
    cache.clear()


def _rows() -> dict[str, list[dict[str, Any]]]:
    """Every row the writer stores, without its own id, in a stable order; an idempotency key's
    event as its (game, seq)."""
    events = {event.pk: (event.game_id, event.seq) for event in Event.objects.all()}
    return {
        "games": _values(Game, "id"),
        "seats": _values(Seat, "game_id", "index"),
        "events": _values(Event, "game_id", "seq"),
        "deadlines": _values(Deadline, "game_id", "seat"),
        "snapshots": _values(Snapshot, "game_id", "seq"),
        "idempotency keys": [{**row, "event_id": events[row["event_id"]]}
                             for row in _values(IdempotencyKey, "user_id", "key")],
    }


def _values(model: type, *order: str) -> list[dict[str, Any]]:
    rows = list(model.objects.order_by(*order).values())
    assert all(row.keys() == {field.attname for field in model._meta.concrete_fields} for row in rows)
    return [{name: value for name, value in row.items() if name != "id"} for row in rows]


# --- the stores' reads ----------------------------------------------------------------------


def test_both_stores_read_a_game_alike(still_clock):
    """The same game read by each store: its columns, its seats in order with their owners'
    vacation, its deadline rows, its newest hash, an idempotency key's earlier use."""
    people = [register(f"reader{n}") for n in range(2)]
    created = people[0].post("/api/games/", {"rules": "terrafex", "players": 2, "time_control": {"type": "bank"}})
    game_id = created.json()["id"]
    assert people[1].post(f"/api/games/{game_id}/join/").status_code == 201
    seated = _by_seat(game_id, people)
    _move(game_id, seated, 1, lambda request, response: response)  # a move with a key
    away = get_user_model().objects.get(username=people[1].username)
    Account.objects.update_or_create(user=away, defaults={"vacation_since": STILL})
    user_id = IdempotencyKey.objects.get(key="contract-1").user_id

    reads = {name: _read(stores._named(name), game_id, user_id=user_id, key="contract-1") for name in STORES}
    assert reads["fast"] == reads["reference"]
    read = reads["reference"]
    assert read["last_hash"] == Event.objects.filter(game_id=game_id).latest("seq").hash
    assert read["earlier_key"] == {"event_id": Event.objects.filter(game_id=game_id).latest("seq").pk,
                                   "event_game": game_id, "request_digest": read["earlier_key"]["request_digest"]}
    assert [seat["vacation_since"] is not None for seat in read["seats"]] == [
        seat.user.username == people[1].username for seat in Seat.objects.filter(game_id=game_id).order_by("index")]
    assert read["deadlines"] and [row["seat"] for row in read["deadlines"]] == sorted(read["game"]["to_act"])
    for name in STORES:
        assert _read(stores._named(name), game_id, user_id=user_id, key="never-used")["earlier_key"] is None
        with transaction.atomic():
            assert stores._named(name).read(10**9) is None


def test_both_stores_read_a_game_for_its_readers_alike(still_clock):
    """`game_read`, the reads' one statement: the game's columns, its seats in order with their
    accounts' usernames (a bot's seat has none), its deadline rows; None for no game. Nothing of it
    asks the database again."""
    people = [register(f"viewer{n}") for n in range(2)]
    created = people[0].post("/api/games/", {"rules": "terrain_vague", "players": 3, "time_control": {"type": "bank"},
                                             "bots": [{"seat": 2, "bot": "random"}]})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert people[1].post(f"/api/games/{game_id}/join/").status_code == 201
    reads = {}
    for name in STORES:
        game = stores._named(name).game_read(game_id)
        with CaptureQueriesContext(connection) as queries:
            reads[name] = {
                "game": _fields(game),
                "seats": [{**_fields(seat), "username": seat.user.username if seat.user_id else None}
                          for seat in game.seat_rows()],
                "deadlines": [_fields(row) for row in game.deadline_rows()],
            }
        assert not queries.captured_queries, name
        assert game.seats.count() == 3 and game.deadlines.filter(seat=game.to_act[0]).exists(), name  # as on any game
        assert stores._named(name).game_read(10**9) is None
    assert reads["fast"] == reads["reference"]
    read = reads["reference"]
    assert [seat["username"] for seat in read["seats"]] == [people[0].username, people[1].username, None]
    assert read["deadlines"] and [row["seat"] for row in read["deadlines"]] == sorted(read["game"]["to_act"])


def test_both_stores_read_a_games_life_marks_alike():
    """`life_marks`, what a game's answer reads of the log beyond the game row: the proposals made
    (of the types asked for) and the seats put out, in seq order, and nothing else; none for a
    game with none."""
    game_id, players = start_game("scavenge", 3)
    assert {name: stores._named(name).life_marks(game_id, life.PROPOSALS) for name in STORES} == {
        "fast": [], "reference": []}
    game = players[0].get(f"/api/games/{game_id}/").json()
    quitter = next(seat for seat in range(3) if seat not in game["to_act"])
    assert players[quitter].post(f"/api/games/{game_id}/resign/").status_code == 200
    mover = players[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    offerer = players[next(seat for seat in range(3) if seat != quitter)]
    assert offerer.post(f"/api/games/{game_id}/draw/", {"action": "offer"}).status_code == 200
    assert mover.post(f"/api/games/{game_id}/takeback/", {"action": "request"}).status_code in (200, 409)
    marks = {name: stores._named(name).life_marks(game_id, life.PROPOSALS) for name in STORES}
    assert marks["fast"] == marks["reference"]
    (out, put_out, forfeit), offered = marks["reference"][:2]
    assert (out, forfeit) == (quitter, True) and offered == (players.index(offerer), life.DRAW_OFFERED, False)
    assert {name: stores._named(name).life_marks(game_id, ("no such type",)) for name in STORES} == {
        "fast": [(quitter, put_out, True)], "reference": [(quitter, put_out, True)]}
    assert stores._named("fast").life_marks(10**9, life.PROPOSALS) == []


def _read(chosen: stores.Store, game_id: int, *, user_id: int, key: str) -> dict[str, Any]:
    with transaction.atomic():
        game = chosen.read(game_id, user_id=user_id, idempotency_key=key)
    earlier = game.earlier_key
    return {
        "game": {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields},
        "seats": [{**_fields(seat), "vacation_since": seat.vacation_since} for seat in game.seat_rows()],
        "deadlines": [_fields(row) for row in game.deadline_rows()],
        "last_hash": game.last_hash,
        "earlier_key": earlier and {name: earlier[name] for name in ("event_id", "request_digest", "event_game")},
        "changes": chosen.game_changes(game),
    }


def _fields(instance: Any) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


# --- their units of work --------------------------------------------------------------------


@pytest.mark.parametrize("name", STORES)
def test_a_unit_writes_in_order_and_hands_its_first_id_on(name, still_clock):
    """The first write's id stands wherever a later write names `FIRST_ID`; updates and deletes
    write what they say; a unit run again writes nothing more."""
    chosen = stores._named(name)
    people = [register(f"unit{n}") for n in range(2)]
    game_id = people[0].post("/api/games/", {"rules": "terrafex", "players": 2}).json()["id"]
    user_id = Seat.objects.get(game_id=game_id, index=0).user_id
    with transaction.atomic():
        game = chosen.read(game_id)
        event = chosen.new_instance(Event, game=game, seq=game.seq + 1, kind="system", seat=None,
                                    payload={"type": "note"}, public_payload={"type": "note"}, created_at=STILL,
                                    prev_hash=game.last_hash, private_digest="")
        event.hash = event.compute_hash()
        unit = chosen.unit()
        unit.insert_event(event, {field.attname: getattr(event, field.attname)
                                  for field in Event._meta.concrete_fields if field.attname != "id"})
        unit.insert(IdempotencyKey, [{"user_id": user_id, "key": "unit", "request_digest": "d" * 64,
                                      "event_id": stores.FIRST_ID, "created_at": STILL}])
        game.seq, game.to_act = event.seq, [1]
        unit.update(Game, game.pk, chosen.game_changes(game))
        unit.insert(Deadline, [_deadline(game_id, seat=1, seq=event.seq)])
        first_id = unit.run()
        assert unit.run() is None
        second = chosen.unit()
        second.delete(Deadline, list(Deadline.objects.filter(game_id=game_id).values_list("pk", flat=True)))
        assert second.run() is None
    assert first_id == event.pk == Event.objects.get(game_id=game_id, seq=game.seq).pk
    assert IdempotencyKey.objects.get(key="unit").event_id == first_id
    assert Game.objects.filter(pk=game_id).values_list("seq", "to_act").get() == (game.seq, [1])
    assert not Deadline.objects.filter(game_id=game_id).exists()
    late = chosen.unit()
    late.insert(Deadline, [_deadline(game_id, seat=0, seq=1)])
    with pytest.raises(ValueError):
        late.insert_event(event, {})


def _deadline(game_id: int, *, seat: int, seq: int) -> dict[str, Any]:
    return {"game_id": game_id, "seat": seat, "seq": seq, "due_at": STILL, "budget_seconds": 60.0,
            "spent_seconds": 0.0, "running_since": STILL, "enqueued_at": None}


@pytest.mark.parametrize("name", STORES)
def test_a_move_checks_the_version_only_on_a_store_that_can(name, settings):
    """The capability, not the store's name, chooses the strategy: on PostgreSQL a move outside
    any transaction checks the version where the store `checks_version`, and locks the row where
    it does not; SQLite holds its database lock either way."""
    settings.SCRAPYARD_STORE = name
    with concurrency.opened(optimistic=True) as strategy:
        pass
    expected = stores.current().checks_version and connection.vendor == "postgresql"
    assert strategy.guarded is expected and strategy.store is stores.current()
    with transaction.atomic(), concurrency.opened(optimistic=True) as strategy:
        assert not strategy.guarded


@pytest.mark.postgres
@pytest.mark.parametrize("name, sent", [("fast", "xmin"), ("reference", "FOR UPDATE")])
def test_on_postgresql_a_move_runs_as_its_store_can(name, sent, settings):
    """The fast store's move reads the row's version and writes only while it holds; the
    reference store's locks the row, then writes."""
    settings.SCRAPYARD_STORE = name
    people = [register(f"wire{n}") for n in range(2)]
    game_id = people[0].post("/api/games/", {"rules": "terrafex", "players": 2}).json()["id"]
    assert people[1].post(f"/api/games/{game_id}/join/").status_code == 201
    seated = _by_seat(game_id, people)
    with CaptureQueriesContext(connection) as captured:
        _move(game_id, seated, 0, lambda request, response: response)
    moves = [query["sql"] for query in captured.captured_queries if "games_game" in query["sql"]]
    assert any(sent in query for query in moves), moves
    assert not any(("xmin" if name == "reference" else "FOR UPDATE") in query for query in moves), moves


def test_an_unknown_store_is_refused_by_name(settings):
    settings.SCRAPYARD_STORE = "quick"
    with pytest.raises(ImproperlyConfigured, match="'quick'.*fast, reference"):
        stores.current()


def test_both_stores_read_a_games_events_alike():
    """`events`, the log past what a reader has: every column as the ORM loads it (the payloads
    decoded, the times aware), in seq order, after `after` and up to `upto` when given."""
    game_id, players = start_game("scavenge", 2)
    play_opening(game_id, players, 3)
    seq = Game.objects.get(pk=game_id).seq

    def rows(name: str, **bounds: int) -> list[dict[str, Any]]:
        return [{field.attname: getattr(event, field.attname) for field in Event._meta.concrete_fields}
                for event in stores._named(name).events(game_id, **bounds)]

    everything = [{field.attname: getattr(event, field.attname) for field in Event._meta.concrete_fields}
                  for event in Event.objects.filter(game_id=game_id).order_by("seq")]
    for bounds in ({"after": 0}, {"after": 2}, {"after": 1, "upto": seq - 1}, {"after": seq},
                   {"after": 2**70}, {"after": 1, "upto": 2**70}):  # bounds past any integer column (a client's ?after=)
        expected = [row for row in everything
                    if row["seq"] > bounds["after"] and row["seq"] <= bounds.get("upto", seq)]
        assert rows("fast", **bounds) == rows("reference", **bounds) == expected, bounds
    assert isinstance(rows("fast", after=0)[-1]["payload"], dict)
    assert stores._named("fast").events(10**9, after=0) == []

@pytest.mark.skipif(connection.vendor != "postgresql", reason="the partial index is PostgreSQL's")
def test_the_fast_stores_life_marks_read_only_the_marked_events_of_a_long_game():
    """The statement's condition is the partial index `event_life_marks`' own, so that even as a
    prepared statement's generic plan (the one a connection keeps) it reads the marked events
    through that index, not every event of the game (a long game has hundreds)."""
    from games.stores import fast

    sql = fast._life_marks_sql(connection.vendor, life.PROPOSALS).replace("%s", "$1")
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        try:
            cursor.execute(f"PREPARE life_marks_plan(bigint) AS {sql}")
            cursor.execute("EXPLAIN EXECUTE life_marks_plan(1)")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            cursor.execute("DEALLOCATE life_marks_plan")
        finally:
            cursor.execute("RESET plan_cache_mode")
    assert "event_life_marks" in plan, plan
