"""Live streams of a game's log: the same items as /events/ per caller, resumable, kept alive, in
SSE and NDJSON, pushed after commit through Redis to a real ASGI server (uvicorn)."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections
from django.test import AsyncClient, override_settings

from tests.api.conftest import start_game

pytestmark = [pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def _sse_all(text: str) -> list[dict]:
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


STATES = ("game_full", "game_state")  # the state items between a game stream's events


def _sse_items(text: str) -> list[dict]:
    """The events a stream sent, without its state items (`game_full`, where it starts from, and
    the `game_state` after each batch)."""
    return [item for item in _sse_all(text) if item.get("type") not in STATES]


def _ndjson_items(text: str) -> list[dict]:
    return [item for item in (json.loads(line) for line in text.splitlines() if line) if item.get("type") not in STATES]


async def _read(response, until, limit: float = 10.0) -> str:
    """Stream text until `until(text)` holds (or the stream ends), at most `limit` seconds. The
    stream is read by a task of its own, so a wait that gives up never cancels the stream."""
    pump = _pumps.get(id(response))
    if pump is None:
        pump = _pumps[id(response)] = (asyncio.Queue(), response)
        asyncio.get_running_loop().create_task(_pump(response, pump[0]))
    chunks, text = pump[0], ""
    deadline = time.monotonic() + limit
    while not until(text):
        try:
            chunk = await asyncio.wait_for(chunks.get(), timeout=max(0.01, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if chunk is None:
            break
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
    return text


_pumps: dict[int, tuple[asyncio.Queue, object]] = {}


async def _pump(response, chunks: asyncio.Queue) -> None:
    async for chunk in response.streaming_content:
        await chunks.put(chunk)
    await chunks.put(None)


def _run(scenario):
    """Run an async scenario, then close the database connections it opened in asgiref's thread
    and in the loop's thread pool (the streams' reads), else the test database cannot be dropped."""

    async def and_close():
        try:
            return await scenario()
        finally:
            _pumps.clear()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()  # the streams still open
            await sync_to_async(connections.close_all)()
            await _close_pool_connections()

    return asyncio.run(and_close())


async def _close_pool_connections() -> None:
    workers = min(32, (os.cpu_count() or 1) + 4)  # the default executor's size
    everyone = threading.Barrier(workers, timeout=5)

    def close() -> None:
        try:
            everyone.wait()  # one call per thread: each waits until all threads hold one
        except threading.BrokenBarrierError:
            pass
        connections.close_all()

    loop = asyncio.get_running_loop()
    await asyncio.gather(*(loop.run_in_executor(None, close) for _ in range(workers)))


def _move(player, game_id: int) -> dict:
    listed = player.get(f"/api/games/{game_id}/legal-moves/").json()
    played = player.submit(game_id, listed["moves"][0], listed["seq"])
    assert played.status_code == 201, played.content
    return played.json()


def _to_act(players, game_id: int):
    game = players[0].get(f"/api/games/{game_id}/").json()
    return players[game["to_act"][0]]


def test_each_caller_streams_exactly_what_events_gives_it_and_new_events_follow():
    game_id, players = start_game("terrain_vague", 2)  # hidden information: views differ per seat
    seq_now = players[0].get(f"/api/games/{game_id}/events/").json()["seq"]

    def play_and_list():
        for _ in range(6):
            _move(_to_act(players, game_id), game_id)
        events_seat0 = players[0].get(f"/api/games/{game_id}/events/").json()
        return events_seat0, players[0].client.__class__().get(f"/api/games/{game_id}/events/").json()

    async def scenario():
        seat0 = await AsyncClient().get(f"/api/games/{game_id}/stream/?after=0",
                                        headers={"Authorization": f"Token {players[0].token}"})
        spectator = await AsyncClient().get(f"/api/games/{game_id}/stream/?after=0")
        assert seat0.status_code == 200 and seat0["Content-Type"].startswith("text/event-stream")
        first = await _read(seat0, lambda t: any(item["seq"] == seq_now for item in _sse_items(t)))
        watched = await _read(spectator, lambda t: any(item["seq"] == seq_now for item in _sse_items(t)))
        events_seat0, events_public = await sync_to_async(play_and_list)()
        last = events_seat0["seq"]
        first += await _read(seat0, lambda t: any(item["seq"] == last for item in _sse_items(t)))
        watched += await _read(spectator, lambda t: any(item["seq"] == last for item in _sse_items(t)))
        return first, watched, events_seat0, events_public

    first, watched, events_seat0, events_public = _run(scenario)
    assert _sse_items(first) == json.loads(json.dumps(events_seat0["events"]))
    assert _sse_items(watched) == json.loads(json.dumps(events_public["events"]))
    assert "id: 1\nevent: created\n" in first


def test_resume_after_a_seq_in_ndjson_and_a_finished_game_ends_its_stream():
    game_id, players = start_game("scavenge", 2)
    for _ in range(3):
        _move(_to_act(players, game_id), game_id)
    seat0 = players[0]
    everything = seat0.get(f"/api/games/{game_id}/events/").json()["events"]

    async def scenario():
        headers = {"Authorization": f"Token {seat0.token}", "Accept": "application/x-ndjson", "Last-Event-ID": "2"}
        resumed = await AsyncClient().get(f"/api/games/{game_id}/stream/", headers=headers)
        assert resumed["Content-Type"].startswith("application/x-ndjson")
        text = await _read(resumed, lambda t: t.count("\n") >= 1 + len(everything) - 2)  # game_full first
        plain = {key: value for key, value in headers.items() if key != "Last-Event-ID"}
        by_query = await AsyncClient().get(f"/api/games/{game_id}/stream/?after=4", headers=plain)
        from_four = await _read(by_query, lambda t: t.count("\n") >= 1 + len(everything) - 4)
        # A browser reconnects to the URL it opened, saying in Last-Event-ID how far it got.
        reconnected = await AsyncClient().get(f"/api/games/{game_id}/stream/?after=1", headers=headers)
        again = await _read(reconnected, lambda t: t.count("\n") >= 1 + len(everything) - 2)
        assert _ndjson_items(again) == _ndjson_items(text)
        return text, from_four

    text, from_four = _run(scenario)
    assert _ndjson_items(text) == json.loads(json.dumps(everything[2:]))
    assert [item["seq"] for item in _ndjson_items(from_four)] == [e["seq"] for e in everything[4:]]


@pytest.mark.redis
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60)
def test_the_streams_of_a_game_share_one_read_of_each_new_event(monkeypatch):
    """Woken together by a move, five streams of one game read the log once, not five times."""
    from games import selectors

    game_id, players = start_game("scavenge", 2)
    reads = []
    original = selectors.events_after

    def counted(**arguments):
        reads.append(arguments)
        return original(**arguments)

    monkeypatch.setattr(selectors, "events_after", counted)

    async def scenario():
        streams = [await AsyncClient().get(f"/api/games/{game_id}/stream/") for _ in range(5)]
        seq_now = (await sync_to_async(players[0].get)(f"/api/games/{game_id}/events/")).json()["seq"]
        for stream in streams:  # opened without `after`: each starts with the game as it is now (game_full)
            await _read(stream, lambda t: any(item.get("seq") == seq_now for item in _sse_all(t)))
        # A stream reads the tail after it has sent its game_full: on a loaded machine that first read
        # can come after the line above. Counted from here, it would look like a second read of the move.
        from streams.feed import FEED

        for _ in range(3000):
            if game_id in FEED.tails and FEED.tails[game_id].upto >= seq_now:
                break
            await asyncio.sleep(0.01)
        before = len(reads)
        played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        texts = [await _read(stream, lambda t: any(i["seq"] == played["seq"] for i in _sse_items(t))) for stream in streams]
        return before, texts, played

    before, texts, played = _run(scenario)
    assert all(_sse_items(text)[-1]["seq"] == played["seq"] for text in texts)
    assert len(reads) - before == 1


@pytest.mark.redis
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60, SCRAPYARD_REDIS_NAMESPACE="here")
def test_another_installations_notices_on_the_same_redis_wake_no_stream():
    """Redis delivers a channel to every client whatever db it chose: a notice published under
    another namespace is not heard here, one under this namespace is."""
    from games import announce

    game_id, players = start_game("scavenge", 2)

    async def scenario():
        stream = await AsyncClient().get(f"/api/games/{game_id}/stream/")
        seq_now = (await sync_to_async(players[0].get)(f"/api/games/{game_id}/events/")).json()["seq"]
        await _read(stream, lambda t: any(item.get("seq") == seq_now for item in _sse_all(t)))  # its game_full
        with override_settings(SCRAPYARD_REDIS_NAMESPACE="elsewhere"):  # its notice goes out there
            played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        unheard = await _read(stream, lambda t: any(i["seq"] == played["seq"] for i in _sse_items(t)), limit=2)
        await sync_to_async(announce._publish)(game_id, played["seq"])
        heard = await _read(stream, lambda t: any(i["seq"] == played["seq"] for i in _sse_items(t)), limit=5)
        return seq_now, unheard, heard, played

    seq_now, unheard, heard, played = _run(scenario)
    assert all(item["seq"] <= seq_now for item in _sse_items(unheard))
    assert _sse_items(heard) and _sse_items(heard)[-1]["seq"] == played["seq"]


@override_settings(SCRAPYARD_STREAM_KEEPALIVE_SECONDS=0.2, SCRAPYARD_STREAM_RECHECK_SECONDS=0.05)
def test_an_idle_stream_sends_keep_alive_comments():
    game_id, players = start_game("scavenge", 2)

    async def scenario():
        stream = await AsyncClient().get(f"/api/games/{game_id}/stream/")
        return await _read(stream, lambda t: t.count(": keep-alive") >= 2, limit=5)

    assert _run(scenario).count(": keep-alive\n\n") >= 2


def test_bad_stream_requests_get_json_errors():
    game_id, players = start_game("scavenge", 2)

    async def scenario():
        client = AsyncClient()
        return [
            await client.get("/api/games/999999/stream/"),
            await client.get(f"/api/games/{game_id}/stream/?after=soon"),
            await client.get(f"/api/games/{game_id}/stream/", headers={"Authorization": "Token nope"}),
            await client.post(f"/api/games/{game_id}/stream/"),
        ]

    missing, bad_after, bad_token, posted = _run(scenario)
    assert (missing.status_code, json.loads(missing.content)["code"]) == (404, "game_not_found")
    assert (bad_after.status_code, json.loads(bad_after.content)["code"]) == (400, "invalid_input")
    assert (bad_token.status_code, json.loads(bad_token.content)["code"]) == (401, "authentication_failed")
    assert posted.status_code == 405


def test_a_stream_route_answers_other_methods_405_in_json_and_head_as_get():
    """HEAD takes exactly GET's checks (token, scope, access) and answers headers only; POST,
    PUT, DELETE, OPTIONS get the API's JSON 405, never Django's empty HTML one."""
    game_id, players = start_game("scavenge", 2)
    read = players[0].post("/api/tokens/", {"scopes": ["read"]}).json()["token"]
    play = players[0].post("/api/tokens/", {"scopes": ["play"]}).json()["token"]
    private = players[1].post("/api/games/", {"rules": "scavenge", "players": 2, "private": True}).json()["id"]
    paths = ["/api/stream/", f"/api/games/{game_id}/stream/", f"/api/games/{game_id}/chat/stream/",
             f"/api/games/{private}/stream/", f"/api/games/{private}/chat/stream/"]

    async def scenario():
        client, answers = AsyncClient(), []
        for path in paths:
            for key in (read, play, None):
                headers = {"Authorization": f"Token {key}"} if key else {}
                got, head = await client.get(path, headers=headers), await client.head(path, headers=headers)
                answers.append(("head", path, key, got.status_code, got["Content-Type"], head.status_code, head["Content-Type"]))
            for method in ("post", "put", "delete", "options"):
                other = await getattr(client, method)(path, headers={"Authorization": f"Token {read}"})
                answers.append(("other", path, method, other.status_code, other["Content-Type"], other.get("Allow"), other.content))
        return answers

    for answer in _run(scenario):
        if answer[0] == "head":
            _, path, key, got, got_type, head, head_type = answer
            assert (head, head_type) == (got, got_type), answer
        else:
            _, path, method, status, content_type, allow, body = answer
            assert (status, content_type, allow) == (405, "application/json", "GET, HEAD"), answer
            assert json.loads(body)["code"] == "method_not_allowed"


def test_a_scoped_token_needs_read_to_stream():
    game_id, players = start_game("scavenge", 2)
    key = players[0].post("/api/tokens/", {"scopes": ["play"]}).json()["token"]

    async def scenario():
        return await AsyncClient().get(f"/api/games/{game_id}/stream/", headers={"Authorization": f"Token {key}"})

    refused = _run(scenario)
    assert (refused.status_code, json.loads(refused.content)["code"]) == (403, "missing_scope")


def test_a_sync_server_sends_a_stream_request_to_the_stream_server(client, settings):
    settings.SCRAPYARD_STREAM_URL = "http://streams.example:8001"
    answer = client.get("/api/games/5/stream/?after=3")
    assert answer.status_code == 302 and answer["Location"] == "http://streams.example:8001/api/games/5/stream/?after=3"


# --- through a real ASGI server ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.postgres
@pytest.mark.redis
def test_uvicorn_pushes_a_move_to_an_open_stream_through_redis_not_by_polling():
    """The server re-reads the log only every 60 s here, so a move seen at once came by push."""
    game_id, players = start_game("scavenge", 2)
    port = free_port()
    server = start_uvicorn(port, SCRAPYARD_STREAM_RECHECK_SECONDS="60", SCRAPYARD_STREAM_KEEPALIVE_SECONDS="60")
    stream = None
    try:
        stream = _open_stream(port, game_id, players[0].token)
        seq_now = players[0].get(f"/api/games/{game_id}/events/").json()["seq"]
        assert [item["seq"] for item in _read_items(stream, seq_now)][-1] == seq_now
        _until_subscribed(port)
        played = _move(_to_act(players, game_id), game_id)
        started = time.monotonic()
        arrived = _read_items(stream, played["seq"])
        event = {key: value for key, value in played.items() if key != "game"}  # the answer's event, without what follows it
        assert arrived[-1] == json.loads(json.dumps(event))
        assert time.monotonic() - started < 30  # far inside the 60 s re-check: it was pushed
    finally:
        if stream is not None:
            stream.close()
        stop(server)


def _until_subscribed(port: int, within: float = 30) -> None:
    """Until the stream server says it hears notices (its readiness names the subscription, which
    its first stream starts): a move published before then reaches its streams only at their next
    re-check, as a load balancer, which sends nothing to a server not ready, never lets happen.
    Under load the subscription could come after the stream's first items (a CI run)."""
    deadline = time.monotonic() + within
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/api/ready/")
            if conn.getresponse().status == 200:
                return
        finally:
            conn.close()
        assert time.monotonic() < deadline, "the stream server never subscribed"
        time.sleep(0.05)


def this_database_url() -> str:
    """This test's database as a server started beside it names it: the PostgreSQL database, or
    the embedded default's SQLite file (a file, not memory: project.settings), which another
    process reads as make run's processes share theirs."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(database['NAME']).resolve()}"
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def start_uvicorn(port: int, **env: str) -> subprocess.Popen:
    """The stream server as `make run` starts it, on this test's database. Its log goes to a file
    of its own (`process.log`, deleted once closed), not to a pipe nobody read: a server that
    wrote 64 KiB of it (a module of browser tests beside one) blocked in its next write."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - open for the server's life, closed by stop()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "project.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--timeout-graceful-shutdown", "1"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": this_database_url(), **env}, stdout=subprocess.DEVNULL,
        stderr=log,
    )
    process.log = log
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    finally:
        if getattr(process, "log", None) is not None:
            process.log.close()


def _open_stream(port: int, game_id: int, token: str):
    for _ in range(100):  # the server is starting
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=45)
            conn.request("GET", f"/api/games/{game_id}/stream/?after=0", headers={"Authorization": f"Token {token}"})
            response = conn.getresponse()
            assert response.status == 200, response.read()
            return response
        except ConnectionRefusedError:
            time.sleep(0.1)
    pytest.fail("uvicorn did not start")


def _read_items(response, until_seq: int, within: float = 120.0) -> list[dict]:
    """The stream's events up to `until_seq`. Each read waits at most the connection's timeout;
    a stream that ends (readline's b"" at its end, which looped for ever) or keeps sending
    without reaching `until_seq` fails."""
    items = []
    deadline = time.monotonic() + within
    while not items or items[-1]["seq"] < until_seq:
        line = response.readline().decode()
        assert line, f"the stream ended before seq {until_seq} (last: {items[-1]['seq'] if items else None})"
        assert time.monotonic() < deadline, f"no seq {until_seq} on the stream within {within:.0f} s"
        if line.startswith("data: "):
            items.extend(_sse_items(line))
    return items
