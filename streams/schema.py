"""The live streams in the OpenAPI schema. They are plain async Django views, not DRF's, so
drf-spectacular cannot see them; this postprocessing hook adds their three paths, with the media
types they stream, the schema of each item (a component: `GameStreamItem`, `ChatStreamItem`,
`AccountStreamItem`), and every error they answer with (the same `{code, detail}` shape).

OpenAPI 3.1 has no word for "a body of many items": the NDJSON media type's schema is one line's
(as most streaming APIs describe it), and the SSE one is text whose every `data:` is one item;
both name the item's component. A generated client reads a whole body, so it should open these
with an SSE or NDJSON reader and parse each item with the component's generated model."""

from __future__ import annotations

from typing import Any

INVITATION_TYPES = ("invitation_created", "invitation_declined", "invitation_cancelled", "invitation_accepted")
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
    result.setdefault("components", {}).setdefault("schemas", {}).update(_item_schemas())
    result["paths"]["/api/games/{game_id}/stream/"] = {
        "get": _operation(
            "gameStream",
            "The caller's view of the game as it goes: game_full (SSE id: its seq), then each event after "
            "that seq exactly as /events/ gives the caller (earlier ones only when asked for: ?after=N or "
            "Last-Event-ID), each batch followed by a game_state (who is to act, the clocks, the status, "
            "and the caller's own legal moves when its seat is to act); ends after a finished game's "
            "last state [scope: read]",
            codes=[400, 401, 403, 404, 503],
            parameters=_game_stream_parameters("seq"),
            item="GameStreamItem",
        )
    }
    result["paths"]["/api/games/{game_id}/chat/stream/"] = {
        "get": _operation(
            "gameChatStream",
            "The game's chat lines the caller may read, live: each item exactly a line of /chat/ "
            "(`event: chat`, `id:` the line's id); resume with Last-Event-ID or ?after=N [scope: read]",
            codes=[400, 401, 403, 404, 503],
            parameters=_game_stream_parameters("line id"),
            item="ChatStreamItem",
        )
    }
    result["paths"]["/api/stream/"] = {
        "get": _operation(
            "accountStream",
            "The account's feed: game_started, your_turn, deadline_warning, game_adjourned and "
            "game_over for each of its games, and invitation_created, invitation_declined, "
            "invitation_cancelled and invitation_accepted for the invitations to or from it, on one "
            "connection. On opening, what is current (each game being played, your_turn where it is, "
            "each pending invitation), then each item as it is made; SSE id: the item's row id (the "
            "opening's items carry the newest row id then), so Last-Event-ID resumes: within a minute of "
            "the last stream, the items made meanwhile come and none twice; later, the opening's items "
            "again [scope: read]",
            codes=[400, 401, 403, 503],
            parameters=[_parameter("Last-Event-ID", "header", {"type": "integer", "minimum": 0},
                                   "resume after this item id (also ?after=)"),
                        _parameter("after", "query", {"type": "integer", "minimum": 0}, "resume after this item id")],
            item="AccountStreamItem",
            anonymous=False,  # 401 without an account: there is nobody's feed to follow
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


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _item_schemas() -> dict[str, Any]:
    """Each stream's items: a game's opens with `game_full` and then gives the events of `/events/`;
    the chat stream gives chat lines; the account feed notices; each may end with `stream_end`."""
    game = {"type": "integer", "description": "the game's id"}
    return {
        "GameStreamFull": {
            "type": "object",
            "description": "the first item: the game as the caller sees it now (SSE: `event: game_full`, `id:` "
                           "its seq); the stream goes on from that seq unless ?after or Last-Event-ID asks for more",
            "properties": {**_state_properties("game_full"), "game": _ref("GameDetail")},
            "required": [*STATE_REQUIRED, "game"],
        },
        "GameStreamState": {
            "type": "object",
            "description": "after each batch of events, the state the newest of them left (SSE: `event: game_state`, "
                           "`id:` its seq): enough for a bot to move without another request",
            "properties": _state_properties("game_state"),
            "required": STATE_REQUIRED,
        },
        "StreamEnd": {
            "type": "object",
            "description": "the last item when the caller's access ends (SSE: `event: stream_end`)",
            "properties": {
                "type": {"type": "string", "enum": ["stream_end"]},
                "reason": {"type": "string", "enum": ["token_revoked", "session_ended", "access_lost"]},
            },
            "required": ["type", "reason"],
        },
        "GameStreamItem": {
            "description": "one item of a game's stream: `game_full` first, then each event as /events/ gives it "
                           "(SSE: `id:` its seq, `event:` its kind) and a `game_state` after each batch, perhaps "
                           "`stream_end` last",
            "oneOf": [_ref("GameStreamFull"), _ref("GameStreamState"), _ref("EventAnswer"), _ref("StreamEnd")],
        },
        "ChatStreamItem": {
            "description": "one item of a game's chat stream: a chat line as /chat/ gives it (SSE: `event: chat`, "
                           "`id:` the line's id), perhaps `stream_end` last",
            "oneOf": [_ref("ChatLine"), _ref("StreamEnd")],
        },
        "AccountNotice": {
            "type": "object",
            "description": "a notice of the account's feed (SSE: `event:` its type)",
            "properties": {
                "type": {"type": "string",
                         "enum": ["game_started", "your_turn", "deadline_warning", "game_adjourned", "game_over"]},
                "game": game,
                "rules": {"type": "string"},
                "seat": {"type": ["integer", "null"], "description": "the account's seat in the game"},
                "seq": {"type": "integer"},
                "deadline": {"type": ["string", "null"], "format": "date-time",
                             "description": "your_turn, deadline_warning: when the seat's time runs out"},
                "aborts_at": {"type": ["string", "null"], "format": "date-time",
                              "description": "game_adjourned: when the game is aborted unless someone moves"},
                "result": {"type": ["object", "null"], "description": "game_over: the result"},
            },
            "required": ["type", "game", "rules", "seat", "seq"],
        },
        "InvitationNotice": {
            "type": "object",
            "description": "an invitation to a private game, to or from the account, made or changed "
                           "(SSE: `event:` its type); the same body a webhook's `data` carries",
            "properties": {
                "type": {"type": "string", "enum": list(INVITATION_TYPES)},
                "invitation": {"type": "integer", "description": "the invitation's id"},
                "game": game,
                "rules": {"type": "string"},
                "invitee": {"type": "string", "description": "the invited account's username"},
                "inviter": {"type": ["string", "null"], "description": "the game's creator, who invited"},
                "status": {"type": "string", "enum": ["pending", "declined", "cancelled", "accepted"]},
            },
            "required": ["type", "invitation", "game", "rules", "invitee", "inviter", "status"],
        },
        "AccountStreamItem": {
            "description": "one item of the account's feed (SSE: `event:` its type, `id:` the newest feed row id "
                           "sent, by which Last-Event-ID resumes; a stream_end has no id)",
            "oneOf": [_ref("AccountNotice"), _ref("InvitationNotice"), _ref("StreamEnd")],
        },
    }


STATE_REQUIRED = ["type", "seq", "status", "to_act", "deadline", "deadlines", "result", "legal_moves"]


def _state_properties(kind: str) -> dict[str, Any]:
    """What every state item of a game's stream says: the same for every caller, but its legal moves."""
    return {
        "type": {"type": "string", "enum": [kind]},
        "seq": {"type": "integer", "description": "the newest event the state includes"},
        "status": {"type": "string", "enum": ["open", "active", "finished"]},
        "to_act": {"type": "array", "items": {"type": "integer"},
                   "description": "the seats that must act now (several in a simultaneous step)"},
        "deadline": {"type": ["string", "null"], "format": "date-time", "description": "the earliest running due time"},
        "deadlines": {"type": "array", "items": _ref("Deadline"), "description": "the clock of each seat that must act"},
        "result": {"type": ["object", "null"], "additionalProperties": {}, "description": "once the game is over"},
        "legal_moves": {"oneOf": [_ref("LegalMoves"), {"type": "null"}],
                        "description": "null for a spectator; a seat's own legal moves at `seq` as GET legal-moves "
                                       "gives them (empty while it is not to act); never another seat's"},
    }


def _streamed(item: str) -> dict[str, Any]:
    return {
        "text/event-stream": {"schema": {
            "type": "string", "contentMediaType": "text/event-stream",
            "description": f"{STREAMED['text/event-stream']}; each `data:` is a {item} (components)",
        }},
        "application/x-ndjson": {"schema": {
            **_ref(item), "description": f"{STREAMED['application/x-ndjson']}: this schema is one line's",
        }},
    }


def _operation(name: str, summary: str, codes: list[int], parameters: list | None = None,
               item: str = "", anonymous: bool = True) -> dict[str, Any]:
    """One stream's operation; `anonymous`: whether it answers without credentials (`{}`, a
    public game's streams do)."""
    credentials = [{"tokenAuth": []}, {"bearerAuth": []}, {"oauth2": ["read"]}, {"cookieAuth": []}]
    return {
        "operationId": name,
        "summary": summary,
        "tags": ["streams"],
        "parameters": parameters or [],
        "security": [*credentials, {}] if anonymous else credentials,
        "responses": {
            "200": {
                "description": "the stream; a keep-alive every 15 s of silence",
                "content": _streamed(item),
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
