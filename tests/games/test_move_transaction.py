"""A move on PostgreSQL (`games.concurrency.VersionCheck`): a read that locks nothing and a unit
of work that writes only while the game row is at the version read, two round trips a move, read
off the wire (libpq's trace of what the connection sends and receives), not off Django's query
log, which notes a BEGIN and a COMMIT of its own whatever is sent. A write under the game's lock
between a move's read and its write makes the move write nothing and read again; a refused move
or a unit the database refuses leaves nothing written and sets nothing off. Inside a caller's
transaction, or with the setting off, the move locks the row between BEGIN and COMMIT."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from psycopg import pq

from consumers import after_commit
from games import audit, errors, projection, services, stores, writer
from games.models import Deadline, Event, Game, IdempotencyKey, Snapshot
from games.stores import fast
from tests.api.conftest import register, start_game
from tests.games.test_conditionals import ahead, line_to_reply, terrafex_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


class Wire:
    """What the connection sent (`queries`: the text of each simple query, or `(prepared)` for a
    statement sent in the extended protocol) and how many round trips it took."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    @property
    def queries(self) -> list[str]:
        sent = []
        for line in self.lines:
            direction, _, kind, *rest = line.split("\t")
            if direction == "F" and kind == "Query":
                sent.append(rest[0].strip().strip('"'))
            elif direction == "F" and kind == "Sync":
                sent.append("(prepared)")
        return sent

    @property
    def round_trips(self) -> int:
        return sum(1 for line in self.lines if line.startswith("B\t") and "\tReadyForQuery\t" in line)


@contextlib.contextmanager
def wire() -> Iterator[list[str]]:
    """libpq's trace of this thread's connection while the block runs (the test client's requests
    run in this thread, on this connection)."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield lines
        finally:
            pgconn.untrace()
            trace.seek(0)
            lines.extend(trace.read().splitlines())


def _mover(players, game_id: int, effects: list | None = None):
    """The seat to move and its legal moves; the effects noted so far (the game's start) forgotten."""
    if effects is not None:
        effects.clear()
    game = players[0].get(f"/api/games/{game_id}/").json()
    mover = players[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    return mover, listed


def _idle() -> bool:
    """Back where Django expects a connection between requests: autocommit, no transaction open."""
    raw = connection.connection
    return raw.autocommit and raw.info.transaction_status == pq.TransactionStatus.IDLE and connection.get_autocommit()


@pytest.fixture
def prepared_statements(settings):
    """`SCRAPYARD_DB_PREPARED_STATEMENTS` on a connection that keeps them: PostgreSQL itself, past
    the PgBouncer the suite goes through in CI (`.ci/run`), whose transaction pooling hands each
    transaction any server connection (docs/scaling.md: "Prepared statements, where a connection
    keeps them"). Each thread's connection takes these settings; the test's own is made anew."""
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = True
    direct = os.environ.get("SCRAPYARD_EXPECT_PGBOUNCER") and os.environ.get("POSTGRES_PORT")
    if not direct:
        yield
        return
    saved = {key: connection.settings_dict[key] for key in ("HOST", "PORT")}
    connection.close()
    connection.settings_dict.update(HOST=os.environ.get("POSTGRES_HOST", "127.0.0.1"), PORT=direct)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


@pytest.fixture
def effects(monkeypatch):
    """The after-commit jobs the moves hand over, noted instead of run."""
    handed: list[tuple] = []
    monkeypatch.setattr(after_commit, "soon", lambda job, *args: handed.append(args))
    return handed


def test_a_move_is_two_round_trips_a_read_and_a_write_that_checks_the_version(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "two-trips"})
    assert answer.status_code == 201, answer.content
    sent = Wire(lines)
    assert [query.split()[0] for query in sent.queries] == ["SELECT", "WITH"], sent.queries
    assert "FOR UPDATE" not in sent.queries[0] and "row_version" in sent.queries[0]
    assert sent.queries[1].startswith("WITH g AS (UPDATE") and "xmin" in sent.queries[1]
    assert sent.round_trips == 2
    assert _idle()
    # Committed, and only then set off.
    seq = answer.json()["seq"]
    assert Game.objects.get(pk=game_id).seq == seq
    assert IdempotencyKey.objects.filter(key="two-trips", event__seq=seq, event__game_id=game_id).exists()
    assert [(handed[0], handed[1]) for handed in effects] == [(game_id, seq)]


def test_prepared_the_two_statements_are_still_two_round_trips(prepared_statements, effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id)
    warm = mover.submit(game_id, listed["moves"][0], listed["seq"])  # prepares the statements, once a connection
    assert warm.status_code == 201, warm.content
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert answer.status_code == 201, answer.content
    sent = Wire(lines)
    assert sent.queries == ["(prepared)", "(prepared)"] and sent.round_trips == 2, sent.queries
    assert _idle() and Game.objects.get(pk=game_id).seq == answer.json()["seq"] and len(effects) == 1


def test_a_write_under_the_lock_between_read_and_write_makes_the_move_read_again(monkeypatch, effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    _interrupted(monkeypatch, game_id, times=1)
    with wire() as lines:
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert answer.status_code == 201, answer.content
    queries = [query.split()[0] for query in Wire(lines).queries]
    assert queries == ["SELECT", "WITH", "SELECT", "WITH"], queries  # the first write wrote nothing
    assert _idle() and [(handed[0], handed[1]) for handed in effects] == [(game_id, listed["seq"] + 1)]
    assert list(Event.objects.filter(game_id=game_id, seq__gt=listed["seq"]).values_list("seq", flat=True)) == [
        listed["seq"] + 1]
    assert audit.verify_game(Game.objects.get(pk=game_id)) == []


def _interrupted(monkeypatch, game_id: int, times: int) -> list[bool]:
    """The next `times` moves decided on the game are interrupted between their read and their
    write: another writer takes the game's lock and commits, from its own connection. Returns
    the interruptions so far."""
    recorded, interruptions = projection.record_state, []

    def record_after_another_write(game, state, *, acted, writes):
        if len(interruptions) < times:
            interruptions.append(True)
            thread = threading.Thread(target=_write_under_the_lock, args=(game_id,))
            thread.start()
            thread.join(timeout=30)  # it would wait for ever on a lock this move's transaction held
            assert not thread.is_alive(), "the other writer still waits after 30 s: the move holds the game's lock"
        recorded(game, state, acted=acted, writes=writes)

    monkeypatch.setattr(projection, "record_state", record_after_another_write)
    return interruptions


def _write_under_the_lock(game_id: int) -> None:
    try:
        writer.write(game_id, lambda change: None)  # a change that stores no event
    finally:
        connections.close_all()


def test_a_move_still_losing_its_game_after_every_try_is_refused_as_stale(monkeypatch, effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    interruptions = _interrupted(monkeypatch, game_id, times=10**6)
    user = Game.objects.get(pk=game_id).seats.get(index=listed["seat"]).user
    with pytest.raises(errors.StaleSeq):
        services.move_submit(game_id=game_id, user=user, move=listed["moves"][0], expected_seq=listed["seq"])
    assert len(interruptions) == writer.VERSION_TRIES
    answer = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert answer.status_code == 409 and answer.json()["code"] == "stale_seq", answer.content
    assert effects == [] and _idle() and Game.objects.get(pk=game_id).seq == listed["seq"]


def test_a_refused_move_writes_nothing_and_the_next_one_plays(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        stale = mover.submit(game_id, listed["moves"][0], listed["seq"] + 1)
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
    queries = Wire(lines).queries
    assert "row_version" in queries[0] and not any(query.startswith(("WITH", "BEGIN", "ROLLBACK")) for query in queries)
    assert _idle() and effects == []

    waiting = players[1 - listed["seat"]]
    not_yours = waiting.submit(game_id, listed["moves"][0], listed["seq"])
    assert not_yours.status_code in (403, 409, 422)
    assert _idle() and Game.objects.get(pk=game_id).seq == listed["seq"]

    played = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert played.status_code == 201, played.content
    assert Game.objects.get(pk=game_id).seq == listed["seq"] + 1 and len(effects) == 1


def test_a_unit_of_work_the_database_refuses_writes_nothing_and_sets_nothing_off(monkeypatch, effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id)
    first = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "taken"})
    assert first.status_code == 201, first.content
    mover, listed = _mover(players, game_id, effects)
    taken = IdempotencyKey.objects.get(key="taken")
    recorded = projection.record_state

    def record_then_break(game, state, *, acted, writes):
        recorded(game, state, acted=acted, writes=writes)
        # A part the database refuses: the unique (user, key) of a key already stored.
        writes.insert(IdempotencyKey, [{"user_id": taken.user_id, "key": "taken", "request_digest": "x" * 64,
                                      "event_id": stores.FIRST_ID, "created_at": timezone.now()}])

    monkeypatch.setattr(projection, "record_state", record_then_break)
    refused = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert refused.status_code == 409 and refused.json()["code"] == "stale_seq", refused.content
    assert _idle() and effects == []
    assert Game.objects.get(pk=game_id).seq == listed["seq"]
    assert not Event.objects.filter(game_id=game_id, seq=listed["seq"] + 1).exists()
    assert IdempotencyKey.objects.filter(key="taken").count() == 1

    monkeypatch.setattr(projection, "record_state", recorded)
    played = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert played.status_code == 201 and len(effects) == 1


def test_inside_a_callers_transaction_the_move_locks_the_row_and_is_part_of_it(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    user = Game.objects.get(pk=game_id).seats.get(index=listed["seat"]).user
    with wire() as lines, contextlib.suppress(RuntimeError), transaction.atomic():
        services.move_submit(game_id=game_id, user=user, move=listed["moves"][0], expected_seq=listed["seq"])
        raise RuntimeError("the caller changes its mind")
    queries = Wire(lines).queries
    assert queries[0] == "BEGIN" and queries[-1] == "ROLLBACK", queries
    assert any(query.startswith("SELECT") and query.endswith("FOR UPDATE OF g") for query in queries)
    assert not any("xmin" in query for query in queries)
    assert _idle() and effects == [] and Game.objects.get(pk=game_id).seq == listed["seq"]


def test_a_servers_move_for_a_seat_checks_the_version_too(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        event = services.seat_act(game_id=game_id, seat=listed["seat"], expected_seq=listed["seq"], kind="move",
                                  move=listed["moves"][0])
    sent = Wire(lines)
    assert [query.split()[0] for query in sent.queries] == ["SELECT", "WITH"] and sent.round_trips == 2, sent.queries
    assert _idle() and Event.objects.get(pk=event.pk).seq == listed["seq"] + 1 and len(effects) == 1


def test_a_change_without_an_event_gives_its_row_a_new_version():
    game_id, _ = start_game("scavenge", 2)

    def version() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT xmin::text FROM games_game WHERE id = %s", [game_id])
            return cursor.fetchone()[0]

    before = version()
    writer.write(game_id, lambda change: None)
    assert version() != before


def _row_version(game_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT xmin::text FROM games_game WHERE id = %s", [game_id])
        return cursor.fetchone()[0]


def test_a_change_without_an_event_writes_the_columns_it_set_and_that_is_its_new_version():
    """A flag of the row that is not the log's (a conditional line may wait) is set through the
    writer like any other change: written in the change's unit, whose one UPDATE of the row
    moves its version, leaving every other column (`updated_at` too) as it was."""
    game_id, _ = start_game("scavenge", 2)
    before, row = _row_version(game_id), Game.objects.values().get(pk=game_id)

    def flag(change: writer.Change) -> None:
        change.game.lines_waiting = True

    with CaptureQueriesContext(connection) as queries:
        writer.write(game_id, flag)
    assert _row_version(game_id) != before
    assert Game.objects.values().get(pk=game_id) == {**row, "lines_waiting": True}
    assert [query["sql"].split()[0] for query in queries if query["sql"].startswith("UPDATE")] == ["UPDATE"]


def test_a_move_where_a_line_waits_is_two_round_trips_too(effects):
    """The other seat's queued line costs the mover's request nothing: the flag is read with the
    row the move reads anyway."""
    game_id, mover, waiter, seat = terrafex_game()
    line = [move for _, move in line_to_reply(game_id, seat, [3])]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    assert Game.objects.get(pk=game_id).lines_waiting
    seq, theirs = Game.objects.get(pk=game_id).seq, ahead(game_id, [3])[0][1]
    with wire() as lines:
        answer = mover.submit(game_id, theirs, seq)
    assert answer.status_code == 201, answer.content
    sent = Wire(lines)
    assert [query.split()[0] for query in sent.queries] == ["SELECT", "WITH"] and sent.round_trips == 2, sent.queries


@pytest.mark.parametrize("prepared", [False, True])
def test_forty_checked_moves_under_a_bank_clock_write_what_the_game_reads_back(request, prepared):
    """Every shape the guarded unit writes: the event with and without its key, the game, the
    deadline rows and the seats' banks of a clock, and the snapshot at the 32nd event."""
    if prepared:
        request.getfixturevalue("prepared_statements")
    first, second = register(), register()
    created = first.post("/api/games/", {"rules": "terrafex", "players": 2, "time_control": {"type": "bank"}})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    players = [first, second] if Game.objects.get(pk=game_id).seats.get(index=0).user.username == first.username \
        else [second, first]
    start = Game.objects.get(pk=game_id).seq
    for number in range(40):
        mover, listed = _mover(players, game_id)
        headers = {"Idempotency-Key": f"bank-{number}"} if number % 3 == 0 else {}
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"], **headers)
        assert answer.status_code == 201, answer.content
        assert _idle()
    game = Game.objects.get(pk=game_id)
    assert game.seq == start + 40 and Snapshot.objects.filter(game=game, seq__gt=start).exists()
    assert audit.verify_game(game) == []
    assert IdempotencyKey.objects.filter(event__game_id=game_id).count() == 14
    seats = {seat.index: seat for seat in game.seats.all()}
    assert {row.seat for row in Deadline.objects.filter(game=game)} == set(game.to_act)
    assert all(seat.bank_seconds is not None for seat in seats.values())
    mover, listed = _mover(players, game_id)
    now = mover.get(f"/api/games/{game_id}/").json()  # read back by the ORM
    assert now["seq"] == game.seq and now["to_act"] == game.to_act


def test_the_statements_cursor_is_kept_for_the_connection(prepared_statements):
    """With prepared statements, the move's statements share one cursor a connection (its adapters
    looked up once); a statement that fails leaves it usable, and a new connection gets its own."""
    with fast.statement_cursor(connection) as first:
        first.execute("SELECT 1")
    with fast.statement_cursor(connection) as second:
        assert second.cursor is first.cursor and not second.cursor.closed
        with pytest.raises(Exception):
            second.execute("SELECT 1/0")
    with fast.statement_cursor(connection) as third:
        third.execute("SELECT 2")
        assert third.fetchone() == (2,) and third.cursor is first.cursor
    connection.close()
    with fast.statement_cursor(connection) as anew:
        assert anew.cursor is not first.cursor
