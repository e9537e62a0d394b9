"""One address for the API and the streams: the web server hands a stream's connection over.

A sync worker must never hold a stream, and a redirect to the stream server's port loses the
Authorization header in most HTTP clients (`requests`, `httpx`). So when the web server (gunicorn)
gets a stream request and the stream process runs on the same machine, it passes the client's
socket itself to the stream process over a Unix socket (`SCRAPYARD_STREAM_HANDOFF`, SCM_RIGHTS),
with the request's head as it came; the stream process adopts the connection into its own
uvicorn HTTP protocol, which reads that head as if from the wire and answers on the socket. The
web worker's copy of the socket is then swapped for a dead one, so the worker forgets the
connection without closing it: the client talks to the stream process from its first byte of
answer, never told of a second address.

Without a handoff socket (another machine) the web server redirects as before
(`streams.views._elsewhere`); behind a reverse proxy, route the stream paths to the stream port
instead (docs/operations.md). With one, but no stream process listening on it (it died and its
supervisor is restarting it), the client is told to come back shortly (503, Retry-After), never
sent to a port where nothing answers.

Two stream processes run side by side (deploy/supervisord.conf's `streams` and `streams-b`, on one
TCP port: `project.serve_streams`), the second on the handoff socket's path with `SECOND` after
it: the web server hands a stream to either, in turn at random, and to the other when one
refuses, so a stream process killed outright costs no stream while it starts again.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import random
import socket
import ssl
import threading
from typing import Any

log = logging.getLogger(__name__)

MAX_HEAD = 64 * 1024
_parked: collections.deque = collections.deque(maxlen=256)  # dead sockets' peers, closed in turn


# --- the web server's side -------------------------------------------------------------------


TAKEN, ABSENT, NOT_HERE = "taken", "absent", "not here"
SECOND = "-b"  # the second stream process's handoff socket: the first's path and this


def paths(path: str) -> list[str]:
    """Both stream processes' handoff sockets, in random order (they share the streams)."""
    both = [path, path + SECOND]
    random.shuffle(both)
    return both


def own_path(path: str, environ: dict[str, str]) -> str:
    """The handoff socket a stream process listens on: the second's when `SCRAPYARD_STREAM_SECOND`."""
    return path + SECOND if path and environ.get("SCRAPYARD_STREAM_SECOND") else path


def hand_over(request, path: str) -> str:
    """Pass the request's connection to the stream process: TAKEN; ABSENT when no stream process
    took it (none listens on `path`, or it refused); NOT_HERE when nothing can be handed over
    here (no handoff socket, or a server that does not expose its client socket the way
    gunicorn's `gunicorn.socket` does, or TLS, whose state cannot travel with the socket)."""
    client = request.META.get("gunicorn.socket")
    if not path or client is None or isinstance(client, ssl.SSLSocket):
        return NOT_HERE
    head = _head(request)
    for candidate in paths(path):
        if _pass(candidate, head, client):
            _forget(client)
            return TAKEN
    return ABSENT


def _pass(path: str, head: bytes, client: socket.socket) -> bool:
    """Whether the stream process listening on `path` took the connection."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as line:
            line.settimeout(2)
            line.connect(path)
            socket.send_fds(line, [head], [client.fileno()])
            return line.recv(1) == b"1"
    except OSError as error:
        log.warning("stream handoff to %s failed (%s): the stream process is not there", path, error)
        return False


def _head(request) -> bytes:
    """The request's head as the client sent it (near enough: header names as WSGI keeps them)."""
    meta = request.META
    lines = [f"{meta['REQUEST_METHOD']} {meta.get('RAW_URI') or request.get_full_path()} HTTP/1.1"]
    for key, value in meta.items():
        if key.startswith("HTTP_"):
            lines.append(f"{key[5:].replace('_', '-').title()}: {value}")
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            lines.append(f"{key.replace('_', '-').title()}: {value}")
    lines.append("Connection: close")  # one stream per connection: the stream ends it
    head = "\r\n".join(line for line in lines if not line.lower().startswith("connection: keep")) + "\r\n\r\n"
    return head.encode("latin-1")[:MAX_HEAD]


def _forget(client: socket.socket) -> None:
    """Point the worker's descriptor at a dead socket: whatever it writes or closes next touches
    that one, while the client's connection lives on in the stream process."""
    dead, peer = socket.socketpair()
    os.dup2(dead.fileno(), client.fileno())
    dead.close()
    peer.shutdown(socket.SHUT_WR)  # the worker reads end-of-stream and lets the connection go
    _parked.append(peer)


# --- the stream process's side ---------------------------------------------------------------


class Receiver:
    """Listens on the handoff socket in a thread; each connection handed over is adopted on the
    event loop by a uvicorn HTTP protocol of its own config (the same app)."""

    def __init__(self, app: Any, path: str) -> None:
        self.app, self.path = app, path
        self.loop: asyncio.AbstractEventLoop | None = None
        self.config = self.state = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        import uvicorn
        from uvicorn.server import ServerState

        self.loop = loop
        self.config = uvicorn.Config(self.app, lifespan="off", access_log=False, proxy_headers=False, log_config=None)
        self.config.load()
        self.state = ServerState()
        if os.path.exists(self.path):
            os.unlink(self.path)  # left by a process that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        os.chmod(self.path, 0o600)
        listener.listen(128)
        threading.Thread(target=self._accept, args=(listener,), name="stream-handoff", daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            line, _ = listener.accept()
            try:
                with line:
                    line.settimeout(2)
                    head, fds, _flags, _address = socket.recv_fds(line, MAX_HEAD, 1)
                    if not fds:
                        continue
                    self.loop.call_soon_threadsafe(lambda fd=fds[0], head=head: self.loop.create_task(self._adopt(fd, head)))
                    line.sendall(b"1")
            except OSError as error:
                log.warning("a stream handoff failed (%s)", error)

    async def _adopt(self, fd: int, head: bytes) -> None:
        client = socket.socket(fileno=fd)
        client.setblocking(False)
        protocol = self.config.http_protocol_class(config=self.config, server_state=self.state, app_state={})
        await self.loop.connect_accepted_socket(lambda: protocol, sock=client)
        protocol.data_received(head)
