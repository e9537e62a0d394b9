"""The reverse-proxy configuration (deploy/nginx.conf) routes streams to the stream servers and
passes them through unbuffered, the rest to the web servers, and never the metrics. nginx is
real (Debian's package; .ci/run installs it); the nodes are small HTTP servers that say who they
are, so each route's destination shows."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench import proxy

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module", autouse=True)
def _needs_nginx():
    if not shutil.which("nginx") and not os.path.exists(proxy.NGINX):
        if IN_CI:
            pytest.fail("needs nginx (CI=true: .ci/run installs it)", pytrace=False)
        pytest.skip("needs nginx: apt-get install nginx-light")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Node(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, name: str):
        self.name = name
        self.release = threading.Event()
        self.seen: list[dict] = []
        super().__init__(("127.0.0.1", _free_port()), _Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        node: _Node = self.server
        node.seen.append({"path": self.path, "forwarded_for": self.headers.get("X-Forwarded-For")})
        if self.path.rstrip("/").endswith("stream"):  # an item now, the next one only when the test says so
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._chunk(f"id: 1\ndata: from {node.name}\n\n")
            node.release.wait(10)
            self._chunk("id: 2\ndata: later\n\n")
            self._chunk("")
            return
        body = node.name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _chunk(self, text: str):
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    api, streams = _Node("api"), _Node("streams")
    listen = _free_port()
    nginx = proxy.start(tmp_path_factory.mktemp("nginx"), listen=listen, api=[api.server_port], streams=[streams.server_port])
    yield listen, api, streams
    streams.release.set()
    nginx.terminate()
    nginx.wait(10)
    api.shutdown()
    streams.shutdown()


def _get(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path)
    answer = connection.getresponse()
    return answer.status, answer.read().decode()


def test_a_stream_passes_through_item_by_item_without_buffering(proxied):
    port, _, streams = proxied
    for path in ("/api/games/7/stream/", "/api/games/7/chat/stream", "/api/stream/"):
        streams.release.clear()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", path, headers={"Last-Event-ID": "0"})
        answer = connection.getresponse()
        assert answer.status == 200
        # The first item arrives while the node still holds the stream open.
        assert answer.readline() == b"id: 1\n" and answer.readline() == b"data: from streams\n", path
        assert answer.getheader("Content-Type") == "text/event-stream"
        streams.release.set()
        assert b"data: later" in answer.read()
        connection.close()


def test_the_api_goes_to_the_web_servers_with_the_clients_address(proxied):
    port, api, _ = proxied
    assert _get(port, "/api/games/7/") == (200, "api")
    assert _get(port, "/api/games/7/streamed-not") == (200, "api")
    assert _get(port, "/") == (200, "api")
    assert api.seen[-1]["forwarded_for"] == "127.0.0.1"


def test_the_metrics_are_never_routed(proxied):
    port, api, streams = proxied
    before = len(api.seen) + len(streams.seen)
    assert _get(port, "/metrics")[0] == 404
    assert len(api.seen) + len(streams.seen) == before

