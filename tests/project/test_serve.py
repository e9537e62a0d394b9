"""The web server `make run` starts (`project.serve`): granian serving `project.front` by default,
the API, the pages and the live streams on one origin; or gunicorn serving the WSGI application,
with a stream process of its own beside it (`streams.handoff`)."""

from __future__ import annotations

import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest
import requests
from django.db import connection

from project import serve
from tests.api.conftest import start_game
from tests.streams.test_game_stream import ROOT, _read_items, free_port, stop

MAKE_RUN = {"HOST": "127.0.0.1", "PORT": "8000", "SCRAPYARD_WEB_PROCESSES": "2", "SCRAPYARD_WEB_THREADS": "4"}


def test_make_run_starts_granian_serving_the_one_origin_front():
    argv = serve.from_environment(MAKE_RUN)
    assert argv[0] == "granian" and argv[-1] == "project.front:application"
    assert " ".join(argv[1:-1]) == ("--interface asgi --host 127.0.0.1 --port 8000 --workers 2 --backpressure 4096 "
                                    "--workers-kill-timeout 5 --respawn-failed-workers")
    assert not serve.hands_streams_over(argv[0])


def test_gunicorn_is_started_threaded_with_keep_alive_and_a_stream_process_beside_it():
    assert serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "gunicorn"}) == [
        "gunicorn", "project.wsgi", "--bind", "127.0.0.1:8000", "--reuse-port", "--preload", "--workers", "1", "--worker-class", "gthread",
        "--threads", "4", "--keep-alive", "30", "--timeout", "60",
    ]
    assert serve.hands_streams_over("gunicorn")


def test_handed_a_socket_each_of_the_pair_gets_half_the_processes_and_gunicorn_binds_nothing():
    granian = serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_PROCESSES": "3"}, fd=3)
    assert granian[granian.index("--workers") + 1] == "2"
    gunicorn = serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "gunicorn"}, fd=3)
    assert gunicorn[2:4] == ["--bind", "fd://3"] and "--reuse-port" not in gunicorn
    assert serve.processes_of({"SCRAPYARD_WEB_PROCESSES": "3"}, paired=True) == 2
    assert serve.processes_of({"SCRAPYARD_WEB_PROCESSES": "3"}, paired=False) == 3


def test_the_third_web_program_only_holds_the_socket():
    assert serve.holds_only(["--instance", "2"])
    assert not serve.holds_only(["--instance", "0"]) and not serve.holds_only(["--instance", "1"])
    assert not serve.holds_only([])
    config = (ROOT / "deploy" / "supervisord.conf").read_text()
    web = config[config.index("[fcgi-program:web]"):config.index("[program:streams]")]
    assert "numprocs=3" in web and "--instance %(process_num)d" in web


def test_make_run_logs_no_request_unless_asked_on_either_server():
    # A line per request cost granian about a fifth of a read's CPU (decision 0038).
    for server in serve.SERVERS:
        assert serve.access_log(server, {**MAKE_RUN, "SCRAPYARD_WEB_SERVER": server}) == []
    asked = {**MAKE_RUN, "SCRAPYARD_ACCESS_LOG": "1"}
    assert serve.access_log("granian", asked) == ["--access-log"]
    assert serve.access_log("gunicorn", asked) == ["--access-logfile", "-"]
    assert not serve.logs_access({"SCRAPYARD_ACCESS_LOG": "0"}) and serve.logs_access({"SCRAPYARD_ACCESS_LOG": "true"})


def test_the_granian_handed_the_socket_logs_requests_only_when_asked(monkeypatch):
    """`make run`'s path (supervisord hands the port's socket over on 0): the server it starts
    logs a line per request only when SCRAPYARD_ACCESS_LOG asks."""
    from project import held_socket

    assert held_socket.granian_fits()  # the pinned granian
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        assert held_socket.granian_on(listener, 1).log_access is False
        assert held_socket.granian_on(listener, 1, log_access=True).log_access is True
        started = []
        monkeypatch.setattr(held_socket, "inherited", lambda fd: listener)
        monkeypatch.setattr(held_socket, "serve", lambda *args, **options: started.append(options["log_access"]))
        monkeypatch.setattr(sys, "argv", ["project.serve", "--instance", "0"])
        for asked in ("", "1"):
            monkeypatch.setenv("SCRAPYARD_WEB_SERVER", "granian")
            monkeypatch.setenv("SCRAPYARD_ACCESS_LOG", asked)
            serve.main()
    assert started == [False, True]


def test_an_unknown_server_is_refused_with_the_reason():
    with pytest.raises(SystemExit, match="one of granian, gunicorn"):
        serve.from_environment({**MAKE_RUN, "SCRAPYARD_WEB_SERVER": "uwsgi"})


def test_make_run_starts_the_stream_process_and_its_handoff_socket_only_beside_gunicorn():
    from tests.project.test_safe_defaults import _make_variable

    assert _make_variable("SCRAPYARD_STREAM_PROCESS") == "false"
    with pytest.raises(StopIteration):  # not set at all
        _make_variable("SCRAPYARD_STREAM_HANDOFF")
    assert _make_variable("SCRAPYARD_STREAM_PROCESS", "SCRAPYARD_WEB_SERVER=gunicorn") == "true"
    assert _make_variable("SCRAPYARD_STREAM_HANDOFF", "SCRAPYARD_WEB_SERVER=gunicorn").endswith("/streams.sock")
    config = (ROOT / "deploy" / "supervisord.conf").read_text()
    streams = config[config.index("[program:streams]"):config.index("[group:workers]")]
    assert "autostart=%(ENV_SCRAPYARD_STREAM_PROCESS)s" in streams


def _start(port: int, *args: str, start_new_session: bool = False, stdin=None, **env: str) -> subprocess.Popen:
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    environment = {**os.environ, "DATABASE_URL": url, "HOST": "127.0.0.1", "PORT": str(port),
                   "SCRAPYARD_WEB_PROCESSES": "1", "SCRAPYARD_WEB_THREADS": "2", **env}
    server = subprocess.Popen([sys.executable, "-m", "project.serve", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=environment, start_new_session=start_new_session,
                              stdin=stdin)
    # Its stderr read as it comes, by a thread of its own: a pipe nobody read blocked the server
    # at 64 KiB, and a read of it waited for ever on a server that said nothing more (or whose
    # workers, in a session of their own, still held the pipe once it had stopped).
    server.said, server.lines = [], queue.Queue()

    def read() -> None:
        for line in server.stderr:
            server.said.append(line)
            server.lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return server


def _said(server: subprocess.Popen) -> str:
    return b"".join(server.said).decode(errors="replace")[-2000:]


def _until_said(server: subprocess.Popen, words: bytes, within: float = 120.0) -> None:
    """Until the server writes a line with `words` on its stderr; fails if it stops first, or
    has not within `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            if words in server.lines.get(timeout=max(0.01, min(1.0, deadline - time.monotonic()))):
                return
        except queue.Empty:
            assert server.poll() is None, _said(server)
            assert time.monotonic() < deadline, f"no {words!r} from the server within {within:.0f} s: {_said(server)}"


def _up(base: str, server: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/api/health/", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.2)
    stop(server)
    raise AssertionError(f"the web server did not answer: {_said(server)}")


def _first_stream_item(port: int, game_id: int, token: str) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", f"/api/games/{game_id}/stream/?after=0", headers={"Authorization": f"Token {token}"})
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
        return _read_items(response, 1)[0]
    finally:
        conn.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_moves_refusals_pages_and_streams_on_one_origin_as_project_serve_starts_it():
    game_id, players = start_game("scavenge", 2)
    finished_id, finishers = start_game("scavenge", 2)
    assert finishers[1].post(f"/api/games/{finished_id}/resign/").status_code == 200  # over, for the export
    port = free_port()
    server = _start(port, SCRAPYARD_WEB_SERVER="granian")
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
            # A body over the limit: declared, Django's edge refuses it unread; chunked, the front does.
            declared = session.post(f"{base}/api/games/", data=b"x" * 70_000, timeout=10,
                                    headers={"Content-Type": "application/json"})
            chunked = session.post(f"{base}/api/games/", data=iter([b"x" * 40_000, b"x" * 40_000]), timeout=10,
                                   headers={"Content-Type": "application/json"})
            for refused in (declared, chunked):
                assert refused.status_code == 413 and refused.json()["code"] == "body_too_large"
            # The refusal of a declared body waits for the whole body: answered while the client was
            # still sending, the connection was cut under it and the client saw no answer at all.
            with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
                raw.sendall(b"POST /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 70000\r\n\r\n" + b"x" * 35_000)
                raw.settimeout(1)
                with pytest.raises(TimeoutError):
                    raw.recv(1)
                raw.settimeout(10)
                raw.sendall(b"x" * 35_000)
                assert raw.recv(64).startswith(b"HTTP/1.1 413")
            table = session.get(f"{base}/games/{game_id}/", timeout=10, headers={"Authorization": ""})
            assert 'data-stream=""' in table.text  # the page opens its live streams on this origin
            page = session.get(f"{base}/", timeout=10, headers={"Authorization": ""})
            assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
            head = session.head(f"{base}/", timeout=10, headers={"Authorization": ""})
            assert head.status_code == 200 and head.content == b""
            exported = session.get(f"{base}/api/players/{finishers[0].username}/games/", timeout=30)  # streamed
            assert exported.status_code == 200 and exported.headers["X-Games-Count"] == "1", (exported.status_code, exported.headers, exported.text[:300])
            assert [json.loads(line)["game"] for line in exported.text.splitlines()] == [finished_id]
        first = _first_stream_item(port, game_id, mover.token)  # on the same port, no redirect
        assert first["seq"] == 1
    finally:
        stop(server)


def _until_the_group_is_gone(group: int, most: float = 10.0) -> None:
    """Wait until no process of the process group `group` is left (the kernel gives a reused
    port's connections to every socket still open on it, a dying worker's too)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process group {group} still alive after {most} s")


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_two_web_servers_share_the_port_and_one_killed_leaves_the_other_answering():
    """Run by hand, two gunicorns bind the port with SO_REUSEPORT: a SIGKILL of one server and all
    its workers does not leave the port to a restart (a Django start) but to the other, at once."""
    import signal

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    second = _start(port, SCRAPYARD_WEB_SERVER="gunicorn")
    first = None
    try:
        _up(base, second)  # alone on the port: it is this one that answers
        first = _start(port, start_new_session=True, SCRAPYARD_WEB_SERVER="gunicorn")
        _until_said(first, b"Booting worker")  # loaded, listening, its worker forked
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        _until_the_group_is_gone(first.pid)  # a worker outliving its master a moment still holds the port
        answers = [requests.get(f"{base}/api/health/", timeout=10, headers={"Connection": "close"}).status_code
                   for _ in range(10)]
        assert answers == [200] * 10
    finally:
        stop(second)
        if first is not None and first.poll() is None:
            stop(first)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_gunicorn_serves_the_socket_it_is_handed():
    """As supervisord's `[fcgi-program:web]` hands it over (granian's case: tests/project/test_held_socket.py)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    server = _start(free_port(), stdin=listener.fileno(), SCRAPYARD_WEB_SERVER="gunicorn")  # PORT unused
    try:
        _up(f"http://127.0.0.1:{port}", server, 120)
        listed = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
        assert len(listed.splitlines()) == 1  # the one it was handed
    finally:
        stop(server)
        listener.close()
