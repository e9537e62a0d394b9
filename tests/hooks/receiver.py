"""A webhook receiver for the tests (the `receiver` fixture, tests/conftest.py): a real HTTP
server on 127.0.0.1 in a thread, recording every POST (headers and body) and answering from a
script of (status, body, delay) steps."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self):
        self.received: list[dict] = []
        self.script: list[tuple[int, bytes, float]] = []  # answers in order; then 200
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.received.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    status, answer, delay = receiver.script.pop(0) if receiver.script else (200, b"ok", 0.0)
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:  # the sender gave up waiting
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def answer(self, *steps: tuple[int, bytes, float]) -> None:
        with self.lock:
            self.script.extend(steps)

    def bodies(self) -> list[bytes]:
        with self.lock:
            return [request["body"] for request in self.received]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
