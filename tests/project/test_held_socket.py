"""project.held_socket: the web server serving a listening socket it is handed (supervisord's
`[fcgi-program:web]`), and its contract with granian's internals: if a granian upgrade breaks
these, `granian_fits()` must say so (widen `GRANIAN_SEAM` only once they pass)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from project import held_socket
from tests.streams.test_game_stream import ROOT, stop

APP = "tests.project.held_socket_app:application"


def _listening_socket() -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    return listener


def _serve(listener: socket.socket, processes: int, fallback: bool = False) -> subprocess.Popen:
    """`held_socket.serve` in a process of its own, handed `listener` as its standard input as
    supervisord hands it; `fallback`: as if granian did not fit."""
    code = ("from project import held_socket\n"
            + ("held_socket.granian_fits = lambda: False\n" if fallback else "")
            + f"held_socket.serve(held_socket.inherited(0), {processes}, {APP!r})\n")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=listener.fileno(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # not a pipe nobody reads (full at 64 KiB)


def _get(port: int, timeout: float = 10) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as line:
        line.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := line.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), answer
    return body.decode()


def _listeners_on(port: int) -> list[str]:
    listed = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True)
    return listed.stdout.splitlines()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_installed_granian_fits_the_seam():
    assert held_socket.granian_fits()


@pytest.mark.parametrize("fallback", [False, True], ids=["granian", "uvicorn"])
def test_the_server_answers_on_the_socket_it_is_handed_and_binds_none_of_its_own(fallback):
    listener = _listening_socket()
    port = listener.getsockname()[1]
    server = _serve(listener, 2, fallback)
    try:
        pids = {_get(port, timeout=60) for _ in range(6)}  # the first waits in the backlog while it starts
        assert server.poll() is None
        assert len(_listeners_on(port)) == 1  # the test's socket alone: granian bound none with SO_REUSEPORT
        if not fallback:
            assert all(int(pid) != server.pid for pid in pids)  # granian's workers answer, not its main process
    finally:
        stop(server)
        listener.close()


def test_a_connection_made_while_the_server_is_down_waits_and_is_answered_once_one_is_back():
    listener = _listening_socket()
    port = listener.getsockname()[1]
    first = _serve(listener, 1)
    second = None
    try:
        _get(port, timeout=60)
        os.killpg(first.pid, signal.SIGKILL)  # its main process and its worker
        first.wait(10)
        waiting = socket.create_connection(("127.0.0.1", port), timeout=5)  # not refused: the backlog
        waiting.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        second = _serve(listener, 1)
        waiting.settimeout(60)
        assert waiting.recv(12) == b"HTTP/1.1 200"
        waiting.close()
    finally:
        for server in (first, second):
            if server is not None and server.poll() is None:
                stop(server)
        listener.close()


def test_a_granian_worker_stops_with_its_main_process():
    """Killed alone, granian's main process left its workers serving, orphans no stop reached."""
    listener = _listening_socket()
    port = listener.getsockname()[1]
    server = _serve(listener, 1)
    try:
        worker = int(_get(port, timeout=60))
        assert worker != server.pid
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 30
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(worker)
    finally:
        if server.poll() is None:
            stop(server)
        try:
            os.killpg(server.pid, signal.SIGKILL)  # a worker left behind, were the test to fail
        except ProcessLookupError:
            pass
        listener.close()


def test_only_a_listening_tcp_socket_is_taken_and_its_descriptor_then_reads_nothing():
    listener = _listening_socket()
    fd = os.dup(listener.fileno())
    taken = held_socket.inherited(fd)
    try:
        assert taken is not None and taken.getsockname() == listener.getsockname() and taken.fileno() != fd
        assert os.read(fd, 10) == b""  # /dev/null now
    finally:
        os.close(fd)
        if taken is not None:
            taken.close()
        listener.close()
    read, write = os.pipe()
    connected = socket.socket()
    try:
        assert held_socket.inherited(read) is None
        assert held_socket.inherited(connected.fileno()) is None  # a socket, not listening
        assert held_socket.inherited(10_000) is None  # no descriptor at all
        assert os.fstat(read) and connected.fileno() >= 0  # left as they were
    finally:
        os.close(read)
        os.close(write)
        connected.close()
