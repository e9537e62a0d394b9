"""`SCRAPYARD_DB_PREPARED_STATEMENTS`: a move's locked read and unit of work become prepared
statements of the connection (PostgreSQL plans them once), and the moves they write are the
moves the client-bound statements write: the same answers, a log whose chain, fold and snapshots
check out. Off (the default, safe behind PgBouncer's transaction pooling), nothing is prepared."""

from __future__ import annotations

import pytest
from django.db import connection

from games import audit
from games.models import Game, IdempotencyKey
from tests.api.conftest import start_game

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _play(players, game_id: int, count: int) -> list[tuple]:
    """`count` moves, each the first legal one, every third with an Idempotency-Key (the locked
    read's other shape); each mover with the game its answer gave."""
    answers = []
    for number in range(count):
        game = players[0].get(f"/api/games/{game_id}/").json()
        if game["status"] != "active":
            break
        mover = players[game["to_act"][0]]
        listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
        headers = {"Idempotency-Key": f"move-{game_id}-{number}"} if number % 3 == 0 else {}
        answer = mover.submit(game_id, listed["moves"][0], listed["seq"], **headers)
        assert answer.status_code == 201, answer.content
        answers.append((mover, answer.json()["game"]))
    return answers


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_without_the_setting_nothing_is_prepared(settings):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = False
    game_id, players = start_game("terrafex", 2)
    _play(players, game_id, 5)
    assert not _prepared()


def test_prepared_moves_write_what_the_game_reads_back_and_their_log_checks_out(settings):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = True
    game_id, players = start_game("terrafex", 2)
    answers = _play(players, game_id, 40)
    statements = _prepared()
    assert any("FOR UPDATE OF g" in statement and "earlier_json" in statement for statement in statements)
    assert any("FOR UPDATE OF g" in statement and "NULL AS earlier_json" in statement for statement in statements)
    assert any(statement.startswith("WITH ") for statement in statements)

    assert len(answers) == 40  # past the 32nd event's snapshot
    mover, answered = answers[-1]
    now = mover.get(f"/api/games/{game_id}/").json()  # the same seat's view, read back by the ORM
    assert (answered["seq"], answered["to_act"], answered["view"]) == (now["seq"], now["to_act"], now["view"])
    assert audit.verify_game(Game.objects.get(pk=game_id)) == []
    assert IdempotencyKey.objects.filter(event__game_id=game_id).count() == 14


@pytest.mark.parametrize("prepared", [False, True])
def test_a_replayed_key_and_a_stale_move_answer_as_without_preparing(settings, prepared):
    settings.SCRAPYARD_DB_PREPARED_STATEMENTS = prepared
    game_id, players = start_game("scavenge", 2)
    _play(players, game_id, 6)
    game = players[0].get(f"/api/games/{game_id}/").json()
    mover = players[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    first = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "again"})
    again = mover.submit(game_id, listed["moves"][0], listed["seq"], **{"Idempotency-Key": "again"})
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json()["game"]["seq"] == first.json()["game"]["seq"]
    stale = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
