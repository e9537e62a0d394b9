"""Streams and the API on one address: the web server (gunicorn, as `make run` starts it) hands a
stream request's connection to the stream process, so a client that sends its token to the API's
address gets its stream there, with no redirect to lose the Authorization header on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from django.db import connection

from tests.api.conftest import register
from tests.streams.test_game_stream import ROOT, free_port, start_uvicorn, stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _start_gunicorn(port: int, **env: str) -> subprocess.Popen:
    """gunicorn serving, once its worker answers: gunicorn binds the port before its worker has
    loaded Django, so a request sent earlier waits unanswered in the backlog (on a loaded machine
    longer than a client's read timeout) instead of being refused."""
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "project.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
         "--worker-class", "gthread", "--threads", "2"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": url, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_until_serving(port, web)
    return web


def _wait_until_serving(port: int, web: subprocess.Popen, wait: float = 180.0) -> None:
    import requests

    deadline = time.monotonic() + wait
    while True:
        assert web.poll() is None, "gunicorn stopped while starting"
        try:
            requests.get(f"http://127.0.0.1:{port}/api/health/", timeout=5)
            return
        except (requests.ConnectionError, requests.Timeout):  # bound but not loaded yet, or not bound
            assert time.monotonic() < deadline, "gunicorn did not answer"
            time.sleep(0.2)


def _first_line(url: str, token: str, wait: float = 30.0) -> tuple[int, list, dict]:
    import requests

    deadline = time.monotonic() + wait
    while True:
        try:
            answer = requests.get(url, headers={"Authorization": f"Token {token}", "Accept": "application/x-ndjson"},
                                  stream=True, timeout=10)
            # 503: the stream process is not up yet (a 404 too, while the web server starts)
            if answer.status_code not in (404, 503) or time.monotonic() > deadline:
                break
        except requests.ConnectionError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)
    try:
        line = next(answer.iter_lines()) if answer.status_code == 200 else b"{}"
        return answer.status_code, answer.history, json.loads(line)
    finally:
        answer.close()


def test_a_private_games_stream_is_served_on_the_apis_address_with_its_token(tmp_path):
    host, friend = register(), register()
    game_id = host.post("/api/games/", {"rules": "scavenge", "players": 2, "private": True}).json()["id"]
    handoff = str(tmp_path / "streams.sock")
    api_port, stream_port = free_port(), free_port()
    streams = start_uvicorn(stream_port, SCRAPYARD_STREAM_HANDOFF=handoff)
    web = _start_gunicorn(api_port, SCRAPYARD_STREAM_HANDOFF=handoff,
                          SCRAPYARD_STREAM_URL=f"http://127.0.0.1:{stream_port}")
    try:
        for _ in range(100):
            if os.path.exists(handoff):
                break
            time.sleep(0.1)
        status, redirects, first = _first_line(f"http://127.0.0.1:{api_port}/api/games/{game_id}/stream/", host.token)
        assert (status, redirects) == (200, [])
        assert first["type"] == "game_full" and first["game"]["id"] == game_id and first["game"]["your_seat"] == 0
        status, redirects, _ = _first_line(f"http://127.0.0.1:{api_port}/api/games/{game_id}/stream/", friend.token, wait=0)
        assert (status, redirects) == (404, [])  # a stranger: as if there were no such game
    finally:
        stop(web)
        stop(streams)


def test_a_stream_asked_of_the_web_server_while_the_stream_process_is_down_gets_503_and_when_to_retry(tmp_path):
    """Not a redirect to the stream port, where nothing answers: the client is told to come back."""
    import requests

    host = register()
    game_id = host.post("/api/games/", {"rules": "scavenge", "players": 2}).json()["id"]
    api_port, dead_port = free_port(), free_port()
    web = _start_gunicorn(api_port, SCRAPYARD_STREAM_HANDOFF=str(tmp_path / "nobody-listens.sock"),
                          SCRAPYARD_STREAM_URL=f"http://127.0.0.1:{dead_port}")
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = requests.get(f"http://127.0.0.1:{api_port}/api/games/{game_id}/stream/",
                                      headers={"Authorization": f"Token {host.token}"}, allow_redirects=False, timeout=10)
                break
            except requests.ConnectionError:  # the web server is still starting
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert answer.status_code == 503, (answer.status_code, answer.headers)
        assert answer.json()["code"] == "streams_unavailable" and int(answer.headers["Retry-After"]) > 0
    finally:
        stop(web)


def test_with_the_first_stream_process_down_the_web_server_hands_the_stream_to_the_second(tmp_path):
    """deploy/supervisord.conf's `streams-b` (project.serve_streams with SCRAPYARD_STREAM_SECOND) takes
    the handoffs the first cannot: its socket is left on disk, nobody listening, as a SIGKILL leaves it."""
    import socket

    host = register()
    game_id = host.post("/api/games/", {"rules": "scavenge", "players": 2}).json()["id"]
    handoff = str(tmp_path / "streams.sock")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(handoff)  # the first's socket file, which nothing accepts on
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    api_port, stream_port = free_port(), free_port()
    second = subprocess.Popen(
        [sys.executable, "-m", "project.serve_streams"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "DATABASE_URL": url, "HOST": "127.0.0.1", "STREAM_PORT": str(stream_port),
             "SCRAPYARD_STREAM_HANDOFF": handoff, "SCRAPYARD_STREAM_SECOND": "1"},
    )
    web = _start_gunicorn(api_port, SCRAPYARD_STREAM_HANDOFF=handoff, SCRAPYARD_STREAM_URL=f"http://127.0.0.1:{stream_port}")
    try:
        for _ in range(300):
            if os.path.exists(handoff + "-b"):
                break
            time.sleep(0.1)
        for _ in range(10):  # the order is random: each time, the dead one refuses and the second serves
            status, redirects, first = _first_line(f"http://127.0.0.1:{api_port}/api/games/{game_id}/stream/", host.token)
            assert (status, redirects, first["type"]) == (200, [], "game_full")
    finally:
        stop(web)
        stop(second)
        dead.close()
