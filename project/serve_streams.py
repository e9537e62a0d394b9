"""The stream server, as deploy/supervisord.conf starts it: `python -m project.serve_streams`.

uvicorn serving `project.asgi` on `HOST`:`STREAM_PORT`, run twice (`streams` and `streams-b`) on
the one port (`SO_REUSEPORT`): when one is killed outright, the kernel hands new connections to
the other at once while the supervisor starts the dead one again, a Django start that takes tens
of seconds on a saturated machine (docs/decisions/0023). The application is loaded before the
port is bound, so a process starting again takes no connection it cannot answer yet. The second
takes the web server's handoffs on its own Unix socket (`SCRAPYARD_STREAM_SECOND`:
`streams.handoff`), which the web server tries when the first's refuses.
"""

from __future__ import annotations

import os
import socket

import uvicorn


def listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port) that another process may bind too (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def main() -> None:
    config = uvicorn.Config("project.asgi:application", host=os.environ.get("HOST", "127.0.0.1"),
                            port=int(os.environ.get("STREAM_PORT", "8001")), timeout_graceful_shutdown=5,
                            access_log=False)
    config.load()  # Django, before the port: see the module doc
    uvicorn.Server(config).run(sockets=[listener(config.host, config.port)])


if __name__ == "__main__":
    main()
