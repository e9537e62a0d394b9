"""The live streams in the OpenAPI schema. They are plain async Django views, not DRF's, so
drf-spectacular cannot see them; this postprocessing hook adds their three paths, with the media
types they stream and every error they answer with (the same `{code, detail}` shape)."""

from __future__ import annotations

from typing import Any

ERRORS = {
    400: ["invalid_input"],
    401: ["not_authenticated", "authentication_failed"],
    403: ["missing_scope"],
    404: ["game_not_found"],
    503: ["streams_unavailable"],  # the stream process is restarting: Retry-After says when to come back
}
STREAMED = {
    "text/event-stream": "Server-Sent Events: `id:` the seq, `event:` the kind or notice type, `data:` its JSON",
    "application/x-ndjson": "one JSON object a line (send `Accept: application/x-ndjson`); a blank line is a keep-alive",
}
ELSEWHERE = (
    "on the API's own (WSGI) port: a redirect to the same path on the stream server "
    "(`SCRAPYARD_STREAM_URL`), which holds streams"
)


def document_streams(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    result.setdefault("paths", {})
    result["paths"]["/api/games/{game_id}/stream/"] = {
        "get": _operation(
            "gameStream",
            "The caller's view of the game's log as it grows: each item exactly what /events/ gives "
            "the caller; resume with Last-Event-ID or ?after=N; ends after a finished game's last event "
            "[scope: read]",
            codes=[400, 401, 403, 404, 503],
            parameters=_game_stream_parameters("seq"),
        )
    }
    result["paths"]["/api/games/{game_id}/chat/stream/"] = {
        "get": _operation(
            "gameChatStream",
            "The game's chat lines the caller may read, live: each item exactly a line of /chat/ "
            "(`event: chat`, `id:` the line's id); resume with Last-Event-ID or ?after=N [scope: read]",
            codes=[400, 401, 403, 404, 503],
            parameters=_game_stream_parameters("line id"),
        )
    }
    result["paths"]["/api/stream/"] = {
        "get": _operation(
            "accountStream",
            "The account's feed: game_started, your_turn, deadline_warning, game_adjourned and "
            "game_over for each of its games, on one connection [scope: read]",
            codes=[401, 403, 503],
        )
    }
    return result


def _game_stream_parameters(resumed_by: str) -> list[dict[str, Any]]:
    """A game's stream: its id, where to resume (`after` or Last-Event-ID), a private game's key."""
    return [
        _parameter("game_id", "path", {"type": "integer"}, required=True),
        _parameter("after", "query", {"type": "integer", "minimum": 0}, f"resume after this {resumed_by}"),
        _parameter("Last-Event-ID", "header", {"type": "integer", "minimum": 0}, f"resume after this {resumed_by}"),
        _parameter("invitation", "query", {"type": "string"}, "a private game's invitation key"),
    ]


def _operation(name: str, summary: str, codes: list[int], parameters: list | None = None) -> dict[str, Any]:
    return {
        "operationId": name,
        "summary": summary,
        "tags": ["streams"],
        "parameters": parameters or [],
        "security": [{"tokenAuth": []}, {"cookieAuth": []}, {}],
        "responses": {
            "200": {
                "description": "the stream; a keep-alive every 15 s of silence",
                "content": {kind: {"schema": {"type": "string", "description": text}} for kind, text in STREAMED.items()},
            },
            "302": {"description": ELSEWHERE},
            **{str(status): _error(name, status) for status in codes},
        },
    }


def _error(name: str, status: int) -> dict[str, Any]:
    codes = ERRORS[status]
    return {
        "description": f"error: {', '.join(codes)}",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "title": f"{name[0].upper()}{name[1:]}Error{status}",
                    "properties": {
                        "code": {"type": "string", "enum": codes},
                        "detail": {"type": "string", "description": "what was wrong, for people"},
                    },
                    "required": ["code", "detail"],
                }
            }
        },
    }


def _parameter(name: str, where: str, schema: dict, description: str = "", required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": where, "schema": schema, "description": description, "required": required}
