"""`project.front` serves the API on a bounded pool of threads and only the streams and readiness
on the event loop: liveness checks that pile up behind a slow answer (a load balancer asking every
100 ms of a loaded machine) wait for the pool's threads and their kept connections, instead of
each opening a thread and a database connection of its own under Django's ASGI handler."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from games import selectors
from project import front

pytestmark = pytest.mark.django_db(transaction=True)


def _scope(path: str) -> dict:
    return {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": [(b"host", b"testserver")], "http_version": "1.1", "scheme": "http",
            "server": ("testserver", 80), "client": ("127.0.0.1", 5000), "root_path": ""}


async def _get(path: str) -> tuple[int, dict]:
    sent: list[dict] = []
    bodies = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive():
        if bodies:
            return bodies.pop()
        await asyncio.Event().wait()  # the client stays connected until the answer is sent

    async def send(message):
        sent.append(message)

    await front.application(_scope(path), receive, send)
    return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


def test_liveness_checks_piling_up_share_the_pool_and_its_connections(monkeypatch):
    served_by: list[str] = []
    checked = selectors.health

    def slow_health():
        served_by.append(threading.current_thread().name)
        time.sleep(0.2)  # an answer held up, as on a loaded machine
        return checked()

    monkeypatch.setattr(selectors, "health", slow_health)

    async def many():
        return await asyncio.gather(*(_get("/api/health/") for _ in range(3 * front.THREADS)))

    answers = asyncio.run(many())
    assert {status for status, _ in answers} == {200}
    assert len(served_by) == 3 * front.THREADS
    assert all(name.startswith("wsgi") for name in served_by), served_by
    assert len(set(served_by)) <= front.THREADS


def test_readiness_still_answers_on_the_event_loop():
    status, answer = asyncio.run(_get("/api/ready/"))
    assert status in (200, 503) and answer["status"] in ("ok", "unavailable") and "database" in answer
