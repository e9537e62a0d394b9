"""The account feed: one connection telling an account (a person's client or a bot) when its
games start, when it is its turn, and when they end."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, override_settings

from tests.api.conftest import register
from tests.streams.test_game_stream import _read, _run, free_port, start_uvicorn, stop

pytestmark = [pytest.mark.django_db(transaction=True)]


def _notices(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _play_out(game_id: int, players) -> dict:
    """Random legal moves (the first listed) until the toy race ends."""
    for _ in range(200):
        game = players[0].get(f"/api/games/{game_id}/").json()
        if game["status"] == "finished":
            return game
        player = players[game["to_act"][0]]
        listed = player.get(f"/api/games/{game_id}/legal-moves/").json()
        assert player.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    pytest.fail("the race did not end")


# Each move's notice wakes the feed, which then tells what changed: on the embedded default only its
# re-check wakes it, and a game played out between two re-checks is told as it ends.
@pytest.mark.redis
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_the_feed_tells_an_account_its_games_start_its_turns_and_the_end():
    alice, bob = register(), register()
    state = {}

    def create():
        state["game"] = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]

    def join_and_play():
        bob.post(f"/api/games/{state['game']}/join/")
        return _play_out(state["game"], [alice, bob])

    async def scenario():
        headers = {"Authorization": f"Token {alice.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        assert feed.status_code == 200 and feed["Content-Type"].startswith("application/x-ndjson")
        await sync_to_async(create)()
        await _read(feed, lambda t: False, limit=0.5)  # the open game is noticed, and says nothing yet
        final = await sync_to_async(join_and_play)()
        text = await _read(feed, lambda t: '"game_over"' in t, limit=15)
        return _notices(text), final

    notices, final = _run(scenario)
    kinds = [notice["type"] for notice in notices]
    assert kinds[0] == "game_started" and kinds[-1] == "game_over"
    assert all(notice["game"] == final["id"] and notice["seat"] == 0 for notice in notices)
    assert notices[-1]["result"] == final["result"]
    turns = [notice for notice in notices if notice["type"] == "your_turn"]
    assert turns and all(notice["seq"] > 0 for notice in turns)
    assert len({notice["seq"] for notice in turns}) == len(turns)  # one notice per turn


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_on_connecting_the_feed_announces_the_games_being_played():
    alice, bob = register(), register()
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    bob.post(f"/api/games/{game_id}/join/")
    to_act = alice.get(f"/api/games/{game_id}/").json()["to_act"]

    async def scenario():
        headers = {"Authorization": f"Token {bob.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        return _notices(await _read(feed, lambda t: len(_notices(t)) >= (2 if 1 in to_act else 1), limit=5))

    notices = _run(scenario)
    assert notices[0] == {**notices[0], "type": "game_started", "game": game_id, "seat": 1}
    assert [n["type"] for n in notices[1:]] == (["your_turn"] if 1 in to_act else [])


def test_the_feed_needs_an_account():
    async def scenario():
        return await AsyncClient().get("/api/stream/")

    refused = _run(scenario)
    assert (refused.status_code, json.loads(refused.content)["code"]) == (401, "not_authenticated")


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.1)
def test_the_feed_warns_once_when_80_percent_of_a_moves_time_is_used(monkeypatch):
    from games import time_controls

    alice, bob = register(), register()
    game = alice.post(
        "/api/games/", {"rules": "toy_race", "players": 2, "time_control": {"type": "step", "seconds": 100}}
    ).json()
    bob.post(f"/api/games/{game['id']}/join/")
    game = alice.get(f"/api/games/{game['id']}/").json()
    mover = [alice, bob][game["to_act"][0]]
    started = time_controls.now()
    clock = {"now": started}
    monkeypatch.setattr(time_controls, "now", lambda: clock["now"])

    async def scenario():
        headers = {"Authorization": f"Token {mover.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        early = await _read(feed, lambda t: '"your_turn"' in t, limit=5)
        clock["now"] = started + dt.timedelta(seconds=70)  # 70% used: no warning yet
        early += await _read(feed, lambda t: False, limit=0.5)
        clock["now"] = started + dt.timedelta(seconds=85)
        late = await _read(feed, lambda t: '"deadline_warning"' in t, limit=5)
        late += await _read(feed, lambda t: False, limit=0.5)  # and only once
        return _notices(early), _notices(late)

    early, late = _run(scenario)
    assert "deadline_warning" not in [notice["type"] for notice in early]
    assert [notice["type"] for notice in late] == ["deadline_warning"]
    assert late[0]["game"] == game["id"] and late[0]["deadline"] is not None


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_the_feed_tells_an_account_its_game_is_adjourned_then_aborted_as_abandoned():
    from games import services, time_controls

    alice, bob = register(), register()
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    bob.post(f"/api/games/{game_id}/join/")
    idle, grace = dt.timedelta(days=60), dt.timedelta(days=7)
    later = time_controls.now() + dt.timedelta(days=61)

    async def scenario():
        headers = {"Authorization": f"Token {alice.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        text = await _read(feed, lambda t: '"game_started"' in t, limit=5)
        await sync_to_async(services.abandoned_end)(game_id=game_id, at=later, idle=idle, grace=grace)
        text += await _read(feed, lambda t: '"game_adjourned"' in t, limit=5)
        await sync_to_async(services.abandoned_end)(game_id=game_id, at=later + grace, idle=idle, grace=grace)
        text += await _read(feed, lambda t: '"game_over"' in t, limit=5)
        return _notices(text)

    notices = _run(scenario)
    [adjourned] = [notice for notice in notices if notice["type"] == "game_adjourned"]
    assert adjourned["game"] == game_id
    assert dt.datetime.fromisoformat(adjourned["aborts_at"]) == later + grace
    assert notices[-1]["type"] == "game_over" and notices[-1]["result"]["reason"] == "abandoned"


def _first_bytes(port: int, path: str, token: str, kind: str) -> tuple[float, bytes]:
    """Seconds from asking to the stream's first body bytes, and those bytes (the socket gives up
    after 5 s: a stream with nothing to say sends nothing)."""
    for _ in range(100):  # the server is starting
        try:
            started = time.monotonic()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path, headers={"Authorization": f"Token {token}", "Accept": kind})
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    try:
        response = conn.getresponse()
        assert response.status == 200, response.read()
        try:
            first = response.read1(64)
        except TimeoutError:
            first = b""
        return time.monotonic() - started, first
    finally:
        conn.close()


@pytest.mark.postgres
@pytest.mark.parametrize("kind", ["text/event-stream", "application/x-ndjson"])
def test_a_quiet_feed_and_chat_stream_open_at_once_under_uvicorn(kind):
    """Nothing happens to this account for a minute (keep-alives every 60 s): the feed's and the
    chat stream's headers and first bytes still come at once, so a client knows it is connected."""
    alice = register()
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    port = free_port()
    server = start_uvicorn(port, SCRAPYARD_STREAM_KEEPALIVE_SECONDS="60", SCRAPYARD_STREAM_RECHECK_SECONDS="60")
    try:
        _first_bytes(port, "/api/stream/", alice.token, kind)  # the server is warm
        for path in ("/api/stream/", f"/api/games/{game_id}/chat/stream/"):
            took, first = _first_bytes(port, path, alice.token, kind)
            assert first in (b"\n", b": open\n\n"), (path, first)
            assert took < 2, (path, took)
    finally:
        stop(server)
