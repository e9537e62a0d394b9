"""What operators and load balancers read: readiness (`/api/ready/`) and the Prometheus metrics
(`/metrics`, token only), scraped before and after a game."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test import AsyncClient, Client
from prometheus_client.parser import text_string_to_metric_families

from games import time_controls, timeouts
from games.models import Game
from project.celery import app
from tests.api.conftest import register, start_game

TOKEN = "metrics-token-for-the-tests"
DEAD_PORT_URL = "redis://127.0.0.1:1/0"


# --- readiness ---------------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_readiness_names_the_database_and_the_broker_and_is_503_while_either_is_down(monkeypatch):
    answer = Client().get("/api/ready/")
    assert answer.status_code == 200 and answer.json() == {"status": "ok", "database": "ok", "broker": "ok"}

    monkeypatch.setattr(app.conf, "broker_url", DEAD_PORT_URL)
    answer = Client().get("/api/ready/")
    assert answer.status_code == 503
    assert answer.json()["database"] == "ok" and answer.json()["broker"].startswith("error")
    monkeypatch.undo()

    connection.close()
    monkeypatch.setitem(connection.settings_dict, "PORT", "1")
    monkeypatch.setitem(connection.settings_dict, "NAME", "nowhere") if connection.vendor == "sqlite" else None
    try:
        answer = Client().get("/api/ready/")
        assert answer.status_code == 503 and answer.json()["database"].startswith("error")
        assert Client().get("/api/health/").status_code in (200, 503)  # liveness stays its own
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_a_stream_servers_readiness_names_its_redis_subscription(settings):
    answer = async_to_sync(AsyncClient().get)("/api/ready/")
    assert answer.status_code == 200, answer.content
    assert answer.json()["subscription"] == "ok"

    settings.REDIS_URL = DEAD_PORT_URL  # its subscription cannot be made: streams would only poll
    answer = async_to_sync(AsyncClient().get)("/api/ready/")
    assert answer.status_code == 503
    assert answer.json()["subscription"].startswith("error") and answer.json()["broker"] == "ok"


# --- metrics ---------------------------------------------------------------------------------------

def _scrape(client: Client) -> dict[tuple, float]:
    answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200, answer.content
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.content.decode())
        for sample in family.samples
    }


def _moved(before: dict, after: dict, name: str, **labels) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


@pytest.mark.django_db
def test_metrics_need_their_token_and_do_not_exist_without_one(settings):
    settings.SCRAPYARD_METRICS_TOKEN = ""
    assert Client().get("/metrics").status_code == 404
    settings.SCRAPYARD_METRICS_TOKEN = TOKEN
    assert Client().get("/metrics").status_code == 401
    assert Client().get("/metrics", headers={"Authorization": "Bearer guess"}).status_code == 401


@pytest.fixture
def eager():
    """Tasks run in this process (the mails, the bot's turns), as in tests/mail."""
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.mark.django_db(transaction=True)
def test_the_numbers_move_with_a_game(settings):
    settings.SCRAPYARD_METRICS_TOKEN = TOKEN
    client = Client()
    before = _scrape(client)

    game_id, seated = start_game("scavenge", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    stale = seated[game["to_act"][0]].submit(game_id, "anything", game["seq"] + 5)
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
    accepted = 0
    rnd = random.Random(4)
    while accepted < 8 and game["status"] != "finished":
        seat = game["to_act"][0]
        listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        answer = seated[seat].submit(game_id, rnd.choice(listed["moves"]), listed["seq"])
        assert answer.status_code == 201, answer.content
        game, accepted = answer.json()["game"], accepted + 1

    after = _scrape(client)
    assert _moved(before, after, "scrapyard_moves_total", outcome="accepted", code="") == accepted
    assert _moved(before, after, "scrapyard_moves_total", outcome="refused", code="stale_seq") == 1
    assert _moved(before, after, "scrapyard_move_seconds_count") == accepted + 1
    assert _moved(before, after, "scrapyard_move_seconds_sum") > 0


@pytest.mark.django_db(transaction=True)
def test_deadline_lateness_bot_decisions_and_mail_outcomes_are_counted(settings, monkeypatch, eager):
    settings.SCRAPYARD_METRICS_TOKEN = TOKEN
    client = Client()
    before = _scrape(client)

    creator = register(email="creator@example.org")
    created = creator.post("/api/games/", {"rules": "scavenge", "players": 2, "options": {},
                                           "time_control": {"type": "step", "seconds": 30}})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert creator.post(f"/api/games/{game_id}/bots/", {"bot": "random"}).status_code == 201
    game = Game.objects.get(pk=game_id)
    if game.to_act != [0]:  # the bot moved first (eager): now it is the creator's turn
        game.refresh_from_db()
    seat, seq = game.to_act[0], game.seq
    late_at = time_controls.now() + dt.timedelta(seconds=32)
    monkeypatch.setattr(time_controls, "now", lambda: late_at)
    assert timeouts.timeout_apply(game_id=game_id, seq=seq, seat=seat) is not None

    after = _scrape(client)
    assert _moved(before, after, "scrapyard_bot_decision_seconds_count") >= 1
    assert _moved(before, after, "scrapyard_deadline_lateness_seconds_count") == 1
    assert 1 <= _moved(before, after, "scrapyard_deadline_lateness_seconds_sum") <= 3
    assert _moved(before, after, "scrapyard_mails_total", outcome="sent") >= 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_a_stream_counts_as_open_until_it_closes(settings):
    settings.SCRAPYARD_METRICS_TOKEN = TOKEN
    game_id, seated = start_game("scavenge", 2)
    before = _scrape(Client())

    async def scenario():
        response = await AsyncClient().get(f"/api/games/{game_id}/stream/",
                                           headers={"Authorization": f"Token {seated[0].token}"})
        arrived = asyncio.Event()

        async def read():
            async for _ in response.streaming_content:
                arrived.set()

        reading = asyncio.create_task(read())
        await asyncio.wait_for(arrived.wait(), 10)  # the log so far has arrived; it waits for more
        during = await sync_to_async(_scrape)(Client())
        reading.cancel()  # the client went away: the ASGI server cancels the stream's task
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        return during, await sync_to_async(_scrape)(Client())

    during, after = async_to_sync(scenario)()
    assert _moved(before, during, "scrapyard_open_streams", kind="game") == 1
    assert _moved(before, after, "scrapyard_open_streams", kind="game") == 0
