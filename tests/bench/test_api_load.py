"""The load generator's HTTP client (`bench.api_load.Client`): answers framed each way a server
may frame them, on one keep-alive connection, and a connection the server closed reopened."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.api_load import Client


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections: list = []

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        _Handler.connections.append(self.client_address)
        sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = json.dumps({"got": sent, "path": self.path, "token": self.headers.get("Authorization")}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        if self.path == "/chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(answer), 7):
                piece = answer[start:start + 7]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(answer)))
        if self.path == "/close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self):
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server():
    _Handler.connections = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("path", ["/length", "/chunked", "/close"])
def test_an_answer_is_read_whole_however_it_is_framed(server, path):
    client = Client(server)
    for number in range(3):
        status, body = client.call("POST", path, {"move": {"type": "draw"}, "n": number, "text": "é" * 40}, "abc")
        assert status == 201
        assert body == {"got": {"move": {"type": "draw"}, "n": number, "text": "é" * 40}, "path": path,
                        "token": "Token abc"}
    assert client.requests == 3


def test_keep_alive_answers_share_one_connection_and_a_closed_one_is_reopened(server):
    client = Client(server)
    client.call("POST", "/length", {})
    client.call("POST", "/length", {})
    assert len(set(_Handler.connections)) == 1
    client.call("POST", "/close", {})  # the server closes after this answer
    assert client.sock is None
    client.call("POST", "/length", {})
    assert len(set(_Handler.connections)) == 2


def test_an_empty_answer_reads_as_none(server):
    assert Client(server).call("GET", "/anything") == (204, None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "requests_a_move"), [("three", 3), ("page", 2)])
def test_the_page_client_reads_the_game_with_its_moves_and_plays_in_two_requests_a_move(live_server, mode, requests_a_move):
    """`page` does what the web page does: the game as the mover (its legal moves in the answer),
    then the move; `three`, the first benchmark's loop, asks the moves apart."""
    from bench import api_load
    from tests.api.conftest import register

    tokens = [[register().token, register().token]]
    result = api_load.run(live_server.url, tokens, mode, 1, 2.0)
    assert result.errors == 0 and result.conflicts == 0 and result.moves >= 5, result
    # The first game's making and reading are counted as well: a few requests over the moves'.
    assert requests_a_move * result.moves <= result.requests <= requests_a_move * result.moves + 6, result
