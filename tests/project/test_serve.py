"""The web server `make run` starts (`project.serve`): gunicorn by default, granian behind a proxy;
both serve the same application, and granian, which cannot hand a stream over, is refused where
the installation expects it to."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import requests
from django.db import connection

from project import serve
from tests.api.conftest import start_game
from tests.streams.test_game_stream import ROOT, free_port, stop

MAKE_RUN = {"HOST": "127.0.0.1", "PORT": "8000", "SCRAPYARD_WEB_PROCESSES": "2", "SCRAPYARD_WEB_THREADS": "4",
            "SCRAPYARD_STREAM_HANDOFF": "/srv/var/streams.sock"}


def test_make_run_starts_gunicorn_threaded_with_keep_alive_on_its_host_and_port():
    assert serve.from_environment(MAKE_RUN) == [
        "gunicorn", "project.wsgi", "--bind", "127.0.0.1:8000", "--reuse-port", "--preload", "--workers", "1", "--worker-class", "gthread",
        "--threads", "4", "--keep-alive", "30", "--timeout", "60",
    ]


def test_granian_is_started_with_the_same_shape_where_no_stream_is_handed_over():
    argv = serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "granian", "SCRAPYARD_STREAM_HANDOFF": ""})
    assert argv[0] == "granian" and argv[-1] == "project.wsgi:application"
    assert " ".join(argv[1:-1]) == ("--interface wsgi --host 127.0.0.1 --port 8000 --workers 2 --blocking-threads 4 "
                                    "--respawn-failed-workers")


def test_granian_with_a_stream_handoff_or_an_unknown_server_is_refused_with_the_reason():
    with pytest.raises(SystemExit, match="cannot hand a stream's connection"):
        serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "granian"})
    with pytest.raises(SystemExit, match="one of gunicorn, granian"):
        serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "uwsgi"})


def _start(port: int, *args: str, start_new_session: bool = False, **env: str) -> subprocess.Popen:
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    return subprocess.Popen(
        [sys.executable, "-m", "project.serve", *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=start_new_session,
        env={**os.environ, "DATABASE_URL": url, "HOST": "127.0.0.1", "PORT": str(port), "SCRAPYARD_WEB_PROCESSES": "1",
             "SCRAPYARD_WEB_THREADS": "2", **env},
    )


def _up(base: str, server: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/api/health/", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.2)
    stop(server)
    raise AssertionError(f"the web server did not answer: {server.stderr.read().decode()[-2000:]}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_a_move_a_refusal_and_a_stream_request_through_granian_as_project_serve_starts_it():
    game_id, players = start_game("scavenge", 2)
    port = free_port()
    server = _start(port, SCRAPYARD_WEB_SERVER="granian", SCRAPYARD_STREAM_HANDOFF="",
                    SCRAPYARD_STREAM_URL="http://streams.example:8001")
    base = f"http://127.0.0.1:{port}"
    try:
        _up(base, server)
        with requests.Session() as session:
            game = players[0].get(f"/api/games/{game_id}/").json()
            mover = players[game["to_act"][0]]
            session.headers["Authorization"] = f"Token {mover.token}"
            legal = session.get(f"{base}/api/games/{game_id}/legal-moves/", timeout=10).json()
            moved = session.post(f"{base}/api/games/{game_id}/moves/", timeout=10,
                                 json={"move": legal["moves"][0], "expected_seq": legal["seq"]})
            assert moved.status_code == 201, moved.text
            assert moved.json()["game"]["seq"] == legal["seq"] + 1
            assert moved.headers["X-Content-Type-Options"] == "nosniff"  # the same middleware as under gunicorn
            again = session.post(f"{base}/api/games/{game_id}/moves/", timeout=10,
                                 json={"move": legal["moves"][0], "expected_seq": legal["seq"]})
            assert again.status_code == 409 and again.json()["code"] == "stale_seq"
            broken = session.post(f"{base}/api/games/{game_id}/moves/", data=b"{not json", timeout=10,
                                  headers={"Content-Type": "application/json"})
            assert broken.status_code == 400 and broken.headers["Content-Type"].startswith("application/json")
            stream = session.get(f"{base}/api/games/{game_id}/stream/", allow_redirects=False, timeout=10)
            assert stream.status_code == 302
            assert stream.headers["Location"] == f"http://streams.example:8001/api/games/{game_id}/stream/"
    finally:
        stop(server)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_two_web_servers_share_the_port_and_one_killed_leaves_the_other_answering():
    """deploy/supervisord.conf's `web` and `web-b`: a SIGKILL of one server and all its workers
    does not leave the port to a restart (a Django start) but to the other, at once."""
    import signal

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    second = _start(port, "--second")
    first = None
    try:
        _up(base, second)  # alone on the port: it is this one that answers
        first = _start(port, start_new_session=True)
        while b"Booting worker" not in first.stderr.readline():  # loaded, listening, its worker forked
            assert first.poll() is None, first.stderr.read().decode()[-2000:]
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        answers = [requests.get(f"{base}/api/health/", timeout=10, headers={"Connection": "close"}).status_code
                   for _ in range(10)]
        assert answers == [200] * 10
    finally:
        stop(second)
        if first is not None and first.poll() is None:
            stop(first)
