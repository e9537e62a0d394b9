"""The example third-party bot (examples/stream_bot.py) plays a whole game against a person
through a live API server and the stream server, using only the documented API."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import pytest

from tests.api.conftest import register
from tests.streams.test_game_stream import ROOT, free_port, start_uvicorn, stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]


def _lines(process: subprocess.Popen) -> queue.Queue:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    return lines


def test_the_example_bot_finishes_a_game_through_a_live_server(live_server):
    port = free_port()
    streams = start_uvicorn(port)
    bot_account, person = register(), register()
    bot = subprocess.Popen(
        [sys.executable, "examples/stream_bot.py", "--api", live_server.url, "--streams", f"http://127.0.0.1:{port}",
         "--token", bot_account.token, "--games", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    output = _lines(bot)
    try:
        assert output.get(timeout=30).startswith(f"playing as {bot_account.username}")
        game_id = person.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
        assert person.post(f"/api/games/{game_id}/bots/", {"account": bot_account.username}).status_code == 201
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            game = person.get(f"/api/games/{game_id}/").json()
            if game["status"] == "finished":
                break
            if 0 in game["to_act"]:
                listed = person.get(f"/api/games/{game_id}/legal-moves/").json()
                person.submit(game_id, listed["moves"][0], listed["seq"])
            time.sleep(0.05)
        assert game["status"] == "finished", game
        assert bot.wait(timeout=30) == 0
        said = "".join(output.get_nowait() for _ in range(output.qsize()))
        assert f"game {game_id} over" in said
        events = person.get(f"/api/games/{game_id}/events/").json()["events"]
        assert any(event["kind"] == "move" and event["seat"] == 1 for event in events)
    finally:
        if bot.poll() is None:
            bot.kill()
        stop(streams)


def test_the_example_bot_stops_and_says_why_when_its_token_is_revoked(live_server):
    """It retried every second for ever: a refused token (401) was a connection error to retry,
    and the feed's `stream_end` (token_revoked) only a reason to reconnect."""
    port = free_port()
    streams = start_uvicorn(port)
    owner = register()
    made = owner.post("/api/tokens/", {"scopes": ["read", "play", "bot", "account"]}).json()
    bot = subprocess.Popen(
        [sys.executable, "examples/stream_bot.py", "--api", live_server.url, "--streams", f"http://127.0.0.1:{port}",
         "--token", made["token"]],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    output = _lines(bot)
    try:
        assert output.get(timeout=30).startswith(f"playing as {owner.username}")
        assert owner.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
        assert bot.wait(timeout=60) != 0
        said = "".join(output.get_nowait() for _ in range(output.qsize()))
        last = said.strip().splitlines()[-1]  # (a "reconnecting" before it: the stream server still starting)
        assert last.startswith("/api/stream/: ") and "token" in last, said
    finally:
        if bot.poll() is None:
            bot.kill()
        stop(streams)
