"""What the event loop costs `project.front` a request: `python -m bench.front_loop`.

The front hands every WSGI request from granian's event loop to a thread and back. Here it
serves a move-shaped POST to a WSGI application that does nothing, so the figure is the front's
own CPU a request (the body read, the environ, the thread hop, the answer), under asyncio's
event loop and under uvloop, alternated in one process so both meet the same machine."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from typing import Any

SCOPE = {"type": "http", "method": "POST", "path": "/api/games/12/moves/", "query_string": b"", "root_path": "",
         "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5555),
         "headers": [(b"host", b"127.0.0.1:8000"), (b"accept", b"*/*"), (b"authorization", b"Bearer abcdef"),
                     (b"content-type", b"application/json"), (b"content-length", b"60")]}
BODY = b'{"move": {"kind": "go", "to": [3, 4]}, "expected_seq": 12}'


def _nothing(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", "2")])
    return [b"{}"]


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": BODY, "more_body": False}


async def _send(message: dict[str, Any]) -> None:
    return None


async def _serve(requests: int) -> float:
    from project import front

    started = time.process_time()
    for _ in range(requests):
        await front.application(SCOPE, _receive, _send)
    return (time.process_time() - started) * 1e6 / requests


def main(rounds: int = 8, requests: int = 5000) -> None:
    import uvloop

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    from project import front

    front.wsgi_application = _nothing
    asyncio.run(_serve(1000))
    uvloop.run(_serve(1000))
    figures: dict[str, list[float]] = {"asyncio": [], "uvloop": []}
    for _ in range(rounds):
        figures["asyncio"].append(asyncio.run(_serve(requests)))
        figures["uvloop"].append(uvloop.run(_serve(requests)))
    for loop, each in figures.items():
        print(f"{loop}: {' '.join(f'{value:.1f}' for value in each)} µs of CPU a request; median {statistics.median(each):.1f}")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
