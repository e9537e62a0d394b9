"""A move's transaction on PostgreSQL (`games.hotpath.move_transaction`): its BEGIN rides with
the locked read and its COMMIT with the unit of work, two round trips a move, read off the wire
(libpq's trace of what the connection sends and receives), not off Django's query log, which
notes a BEGIN and a COMMIT of its own whatever is sent. Whatever fails after the carried BEGIN
rolls back, leaves nothing written and sets nothing off; inside a caller's transaction, with
prepared statements, or with the setting off, psycopg sends BEGIN and COMMIT alone as before."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.utils import timezone
from psycopg import pq

from games import after_commit, hotpath, services
from games.models import Event, Game, IdempotencyKey
from games.services import moves
from tests.api.conftest import start_game

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
def effects(monkeypatch):
    """The after-commit jobs the moves hand over, noted instead of run."""
    handed: list[tuple] = []
    monkeypatch.setattr(after_commit, "soon", lambda job, *args: handed.append(args))
    return handed


def test_a_move_is_two_round_trips_its_begin_and_commit_carried_by_its_statements(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "two-trips"})
    assert answer.status_code == 201, answer.content
    sent = Wire(lines)
    assert [query.split()[:2] for query in sent.queries] == [["BEGIN;", "SELECT"], ["WITH", "w0"]], sent.queries
    assert "FOR UPDATE OF g" in sent.queries[0] and sent.queries[1].endswith("; COMMIT")
    assert sent.round_trips == 2
    assert _idle()
    # Committed, and only then set off.
    seq = answer.json()["seq"]
    assert Game.objects.get(pk=game_id).seq == seq
    assert IdempotencyKey.objects.filter(key="two-trips", event__seq=seq, event__game_id=game_id).exists()
    assert [(handed[0], handed[1]) for handed in effects] == [(game_id, seq)]


@pytest.mark.parametrize("setting", ["carried off", "prepared statements"])
def test_without_the_carried_transaction_begin_and_commit_go_alone(settings, effects, setting):
    if setting == "carried off":
        settings.SCRAPYARD_MOVE_CARRIED_TRANSACTION = False
    else:
        settings.SCRAPYARD_DB_PREPARED_STATEMENTS = True
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id)
    warm = mover.submit(game_id, listed["moves"][0], listed["seq"])  # prepares the statements, once a connection
    assert warm.status_code == 201, warm.content
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert answer.status_code == 201, answer.content
    sent = Wire(lines)
    assert sent.queries[0] == "BEGIN" and sent.queries[-1] == "COMMIT" and len(sent.queries) == 4, sent.queries
    assert sent.round_trips == 4
    assert not any(query.startswith("BEGIN;") or query.endswith("; COMMIT") for query in sent.queries)
    assert _idle() and Game.objects.get(pk=game_id).seq == answer.json()["seq"]


def test_a_move_refused_after_the_carried_begin_is_rolled_back_and_the_next_one_plays(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        stale = mover.submit(game_id, listed["moves"][0], listed["seq"] + 1)
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
    queries = Wire(lines).queries
    assert queries[0].startswith("BEGIN; SELECT") and queries[1] == "ROLLBACK", queries  # then the answer's reads
    assert _idle() and effects == []

    waiting = players[1 - listed["seat"]]
    with wire() as lines:
        not_yours = waiting.submit(game_id, listed["moves"][0], listed["seq"])
    assert not_yours.status_code in (403, 409, 422) and Wire(lines).queries[-1] == "ROLLBACK"
    assert _idle() and Game.objects.get(pk=game_id).seq == listed["seq"]

    played = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert played.status_code == 201, played.content
    assert Game.objects.get(pk=game_id).seq == listed["seq"] + 1 and len(effects) == 1


def test_a_unit_of_work_that_fails_commits_nothing_and_sets_nothing_off(monkeypatch, effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    first = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "taken"})
    assert first.status_code == 201, first.content
    mover, listed = _mover(players, game_id, effects)
    user_id = Game.objects.get(pk=game_id).seats.get(index=listed["seat"]).user_id
    taken = IdempotencyKey.objects.get(key="taken")
    recorded = moves.record_state

    def record_then_break(game, state, acted=None, unit=None):
        recorded(game, state, acted=acted, unit=unit)
        # A part the database refuses: the unique (user, key) of a key already stored.
        unit.insert(IdempotencyKey, [{"user_id": taken.user_id, "key": "taken", "request_digest": "x" * 64,
                                      "event_id": hotpath.FIRST_ID, "created_at": timezone.now()}])

    monkeypatch.setattr(moves, "record_state", record_then_break)
    with wire() as lines:
        refused = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert refused.status_code == 409 and refused.json()["code"] == "stale_seq", refused.content
    queries = Wire(lines).queries
    assert queries[0].startswith("BEGIN; SELECT") and queries[1].endswith("; COMMIT"), queries
    assert "ROLLBACK" in queries[2:]  # the COMMIT never ran: the failed statement's transaction is ended
    assert _idle() and effects == []
    assert Game.objects.get(pk=game_id).seq == listed["seq"]
    assert not Event.objects.filter(game_id=game_id, seq=listed["seq"] + 1).exists()
    assert IdempotencyKey.objects.filter(user_id=user_id).count() == (1 if user_id == taken.user_id else 0)

    monkeypatch.setattr(moves, "record_state", recorded)
    played = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert played.status_code == 201 and len(effects) == 1


def test_inside_a_callers_transaction_the_move_is_part_of_it(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    user = Game.objects.get(pk=game_id).seats.get(index=listed["seat"]).user
    with wire() as lines, contextlib.suppress(RuntimeError), transaction.atomic():
        services.move_submit(game_id=game_id, user=user, move=listed["moves"][0], expected_seq=listed["seq"])
        raise RuntimeError("the caller changes its mind")
    queries = Wire(lines).queries
    assert queries[0] == "BEGIN" and queries[-1] == "ROLLBACK", queries
    assert not any(query.startswith("BEGIN;") or query.endswith("; COMMIT") for query in queries)
    assert _idle() and effects == [] and Game.objects.get(pk=game_id).seq == listed["seq"]


def test_a_servers_move_for_a_seat_carries_its_transaction_too(effects):
    game_id, players = start_game("scavenge", 2)
    mover, listed = _mover(players, game_id, effects)
    with wire() as lines:
        event = services.seat_act(game_id=game_id, seat=listed["seat"], expected_seq=listed["seq"], kind="move",
                                  move=listed["moves"][0])
    sent = Wire(lines)
    assert sent.queries[0].startswith("BEGIN; SELECT") and sent.queries[1].endswith("; COMMIT"), sent.queries
    assert sent.round_trips == 2 and _idle()
    assert Event.objects.get(pk=event.pk).seq == listed["seq"] + 1 and len(effects) == 1
