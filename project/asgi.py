"""The ASGI entry point: the `streams` process of `make run` (uvicorn) serves the live streams
(`streams.views`) from it; the API's other views run under WSGI (`project.wsgi`).

It serves the stream routes only, and its own liveness and readiness (`/api/health/`,
`/api/ready/`, which a load balancer asks of every port): any other path gets 404 `not_found`
before Django sees it, so the stream server's port is no second door to the API, its admin or
its pages."""

import json
import os
import re

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

django_application = get_asgi_application()

STREAM_ROUTES = re.compile(r"/api/(?:stream|games/[0-9]+/(?:chat/)?stream|health|ready)/?")
# What must run on the event loop where both handlers serve one port (`project.front`): the streams
# and readiness (which asks after this loop's subscription). The liveness answer is a plain view:
# under Django's ASGI handler each request of one runs in a thread and connection of its own, so a
# load balancer's checks piling up behind a slow answer would open connections without bound.
EVENT_LOOP_ROUTES = re.compile(r"/api/(?:stream|games/[0-9]+/(?:chat/)?stream|ready)/?")


def _not_found(scope) -> bytes:
    from django.utils import translation

    from project.i18n import language_of_headers

    headers = dict(scope.get("headers") or ())
    language = language_of_headers(headers.get(b"accept-language", b"").decode("latin-1"),
                                   headers.get(b"cookie", b"").decode("latin-1"))
    with translation.override(language):
        detail = translation.gettext("the stream server serves only /api/stream/, /api/games/{id}/stream/ "
                                     "and /api/games/{id}/chat/stream/")
    return json.dumps({"code": "not_found", "detail": detail}).encode()


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["type"] == "http" and not STREAM_ROUTES.fullmatch(scope["path"]):
        body = _not_found(scope)
        await send({"type": "http.response.start", "status": 404,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
        return
    await django_application(scope, receive, send)


async def _lifespan(receive, send) -> None:
    """At start-up, take stream connections the web server on this machine hands over
    (`streams.handoff`, when `SCRAPYARD_STREAM_HANDOFF` names its socket)."""
    import asyncio

    from django.conf import settings

    from streams.handoff import Receiver, own_path

    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            if settings.SCRAPYARD_STREAM_HANDOFF:
                path = own_path(settings.SCRAPYARD_STREAM_HANDOFF, os.environ)  # the first's, or the second's
                Receiver(application, path).start(asyncio.get_running_loop())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
