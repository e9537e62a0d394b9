"""A tiny ASGI application for tests/project/test_held_socket.py: answers with its process id,
and loads no Django, so a server of it starts in a moment."""

from __future__ import annotations

import os


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            done = "startup" if message["type"] == "lifespan.startup" else "shutdown"
            await send({"type": f"lifespan.{done}.complete"})
            if done == "shutdown":
                return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": str(os.getpid()).encode()})
