"""One origin for the API, the pages and the live streams: the ASGI application `make run` serves
(`project.serve`, docs/decisions/0028-one-origin-under-granian.md).

A stream path and readiness (`project.asgi.EVENT_LOOP_ROUTES`) go to Django's ASGI handler, where the stream views
wait on the event loop and thousands of idle streams cost a task each. Everything else goes to
Django's WSGI handler (`project.wsgi`) on a small pool of threads: the API's views and the pages
are synchronous, and Django's ASGI handler would run each of them through `sync_to_async` and its
own request machinery, which costs more than handing the WSGI call to a thread here.

A WSGI request's body is read before the view runs (a move is a few hundred bytes); one declared
over `DATA_UPLOAD_MAX_MEMORY_SIZE` is not read at all and Django's edge answers 413 as under any
server (`project.http`), and a chunked one that grows past it is answered 413 here. A WSGI
answer is sent whole, a streaming one (`StreamingHttpResponse`: a player's exported games)
gathered first in its thread.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from project.asgi import EVENT_LOOP_ROUTES
from project.asgi import application as stream_application
from project.wsgi import application as wsgi_application

THREADS = int(os.environ.get("SCRAPYARD_WEB_THREADS", "") or "4")
_pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="wsgi")


def _body_limit() -> int:
    from django.conf import settings

    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http" or EVENT_LOOP_ROUTES.fullmatch(scope["path"]):
        await stream_application(scope, receive, send)  # lifespan, the streams, health on this loop
        return
    body = await _read_body(scope, receive)
    if body is None:
        await _too_large(scope, send)
        return
    loop = asyncio.get_running_loop()
    status, headers, content = await loop.run_in_executor(_pool, _call_wsgi, _environ(scope, body))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else content})


async def _read_body(scope: dict[str, Any], receive: Any) -> bytes | None:
    """The request's body; b"" when its declared length is over the limit (Django refuses it
    unread), None when a body without a declared length grows over it."""
    limit = _body_limit()
    declared = _header(scope, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        # Read (and drop) it all the same: answered while the client was still sending, the
        # connection was cut under it and the client saw no answer at all.
        await _drain(receive, {"more_body": True})
        return b""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        part = message.get("body", b"")
        size += len(part)
        if size > limit and declared is None:
            await _drain(receive, message)
            return None
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)


async def _drain(receive: Any, message: dict[str, Any], most: int = 1 << 20) -> None:
    """Read and drop the rest of a refused body, up to `most` bytes: a client that sends its whole
    body before it reads the answer (most do) then gets the 413, not a connection cut mid-send."""
    while message.get("more_body", False) and most > 0:
        message = await receive()
        most -= len(message.get("body", b""))


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _environ(scope: dict[str, Any], body: bytes) -> dict[str, Any]:
    """PEP 3333's environ for the request, as gunicorn would build it."""
    server = scope.get("server") or ("127.0.0.1", 80)
    client = scope.get("client") or ("", 0)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}"
        if key in environ:  # a repeated header: one value, as RFC 9110 joins them (cookies by "; ")
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    return environ


def _call_wsgi(environ: dict[str, Any]) -> tuple[int, list, bytes]:
    """Run the WSGI application in this pool thread: its status, headers and whole body. A
    streaming answer (a player's exported games) is gathered here too, in the thread whose
    database connection its generator reads through."""
    started: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started[:] = [int(status[:3]), [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]]
        return lambda data: None  # the legacy write() callable: Django never calls it

    result = wsgi_application(environ, start_response)
    try:
        return started[0], started[1], b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()  # Django's request_finished: this thread's connections closed or kept


async def _too_large(scope: dict[str, Any], send: Any) -> None:
    from django.utils import translation

    from project.i18n import language_of_headers

    limit = _body_limit()
    language = language_of_headers(_header(scope, b"accept-language") or "", _header(scope, b"cookie") or "")
    with translation.override(language):
        detail = translation.gettext("the request body is over the limit of {limit} bytes").format(limit=limit)
    body = json.dumps({"code": "body_too_large", "detail": detail})
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body.encode()})
