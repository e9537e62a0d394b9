"""The OpenAPI schema's account of every app's API: what each operation answers, and every error code it
may answer with, as `{"code": ..., "detail": ...}` per status.

The views return the selectors' dicts; the serializers here only describe those dicts to
drf-spectacular and never render anything. Error codes come from one place, the status table
in `apikit.http_errors`, so a code documented here answers with the status documented here. The
rules decide some codes themselves (a game's own `not_reachable`, a layout option's problem):
those responses document `code` as a snake_case pattern and name the codes every game shares.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any, Iterable

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from apikit.http_errors import STATUS

# --- the errors every operation shares --------------------------------------------------------

# Raised before or around any view: the edge (project.http), DRF's own refusals, an outage.
EDGE_STATUS = {
    "bad_request": 400,
    "invalid_unicode": 400,
    "not_acceptable": 406,
    "body_too_large": 413,
    "rate_limited": 429,
    "service_unavailable": 503,
}
BODY_STATUS = {"malformed_json": 400, "number_too_long": 400, "too_deep": 400, "invalid_input": 400, "unknown_field": 400, "unsupported_media_type": 415}
AUTH_STATUS = {"not_authenticated": 401, "authentication_failed": 401}
SCOPE_STATUS = {"missing_scope": 403}
GAME_PATH_STATUS = {"game_not_found": 404, "not_found": 404, "invalid_invitation": 400}
RULES_CODE_PATTERN = r"^[a-z][a-z0-9_]*$"


def _status_of(code: str) -> int:
    for table in (EDGE_STATUS, BODY_STATUS, AUTH_STATUS, SCOPE_STATUS, GAME_PATH_STATUS, STATUS):
        if code in table:
            return table[code]
    raise KeyError(f"error code {code!r} has no status: add it to apikit.http_errors.STATUS")


def _error_serializer(name: str, status: int, codes: list[str], rules_decide: bool) -> Any:
    described = ", ".join(f"`{code}`" for code in codes)
    if rules_decide:
        code_field: serializers.Field = serializers.RegexField(
            RULES_CODE_PATTERN,
            help_text=f"{described}, or the game's own code (its rules name what was wrong)",
        )
    else:
        code_field = serializers.ChoiceField(choices=codes, help_text=f"one of {described}")
    fields: dict[str, serializers.Field] = {
        "code": code_field,
        "detail": serializers.CharField(help_text="what was wrong, for people"),
    }
    if status == 400:
        fields["fields"] = serializers.DictField(required=False, help_text="invalid_input: the problem of each field")
        fields["option"] = serializers.CharField(required=False, help_text="invalid_option: the option named")
    if status == 409:
        fields["seq"] = serializers.IntegerField(required=False, help_text="stale_seq: the game's seq now")
    return inline_serializer(name=name, fields=fields)


def error_responses(
    operation: str,
    codes: Iterable[str] = (),
    *,
    body: bool = False,
    auth: str = "optional",
    game: bool = False,
    scope: str | None = None,
    rules_statuses: Iterable[int] = (),
    never_refused: bool = False,
) -> dict[int, OpenApiResponse]:
    """The error responses of one operation: its own `codes`, the edge's, and those of a body
    (`body`), of authentication (`auth`: "required", "optional" for a token that may be sent
    and be wrong, or "none") and of a game in the path (`game`). Statuses in `rules_statuses`
    may carry a code the rules decide; `scope` is the token scope the operation needs;
    `never_refused`: counted but answered over the limit too (`project.throttles.never_refused`).
    """
    everything = set(codes) | set(EDGE_STATUS)
    if never_refused:
        everything.discard("rate_limited")
    if scope is not None:
        everything |= set(SCOPE_STATUS)
    if body:
        everything |= set(BODY_STATUS)
    if auth == "required":
        everything |= set(AUTH_STATUS)
    elif auth == "optional":
        everything.add("authentication_failed")
    if game:
        everything |= set(GAME_PATH_STATUS)
    by_status: dict[int, list[str]] = defaultdict(list)
    for code in sorted(everything):
        by_status[_status_of(code)].append(code)
    for status in rules_statuses:
        by_status.setdefault(status, [])
    rules_decide = set(rules_statuses)
    return {
        status: OpenApiResponse(
            response=_error_serializer(f"{operation[0].upper()}{operation[1:]}Error{status}", status, by_status[status], status in rules_decide),
            description=f"error: {', '.join(by_status[status]) or 'a code of the game'}",
        )
        for status in sorted(by_status)
    }


def operation(
    name: str,
    *,
    summary: str,
    answer: Any,
    status: int = 200,
    request: Any = None,
    parameters: list[Any] | None = None,
    degraded: Any = None,
    media_type: str | None = None,
    **errors: Any,
):
    """`extend_schema` for one operation: its answer, its request body and all its errors
    (`degraded`: the answer it gives with 503 instead of an error, as health does; `media_type`:
    the one media type its answer comes in, whatever the view's renderers, as a stream's)."""
    responses = {(status, media_type) if media_type else status: answer, **error_responses(name, **errors)}
    scope = errors.get("scope")
    if scope is not None:
        summary = f"{summary} [scope: {scope}]"
    if degraded is not None:
        responses[503] = OpenApiResponse(response=degraded, description="degraded: what failed")
    return extend_schema(
        operation_id=name,
        summary=summary,
        request=request,
        responses=responses,
        parameters=parameters or [],
    )


def http_caching_and_strictness(result: dict, **_: Any) -> dict:
    """drf-spectacular postprocessing hook, for what the views share rather than declare: every GET
    but a stream's answers with an ETag and 304 to a matching If-None-Match (ScopedApi,
    ConditionalGetMiddleware); every answer carries RateLimit and RateLimit-Policy
    (project.throttles: readiness's and the streams' too, and opening a stream may be refused with
    429); every 429 and 503 carries Retry-After. And a nullable reference gets the `type` that
    strict validators and generators want beside `nullable` (OpenAPI 3.0 ignores `nullable`
    without it)."""
    for path_item in result.get("paths", {}).values():
        for method, operation_ in path_item.items():
            responses = operation_.get("responses", {})
            for status, response in responses.items():
                content = response.get("content", {})
                if status >= "400" and "text/plain" in content:  # a text resource's errors are JSON
                    response["content"] = {"application/json": content.pop("text/plain"), **content}
            if method == "get" and "200" in responses and not _streamed(operation_):
                operation_.setdefault("parameters", []).append({
                    "in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
                    "description": "an ETag this answer had: 304 Not Modified, with no body, while it still matches",
                })
                responses["200"].setdefault("headers", {})["ETag"] = {
                    "schema": {"type": "string"}, "description": "this answer's version, for If-None-Match",
                }
                responses["304"] = {"description": "not modified: the answer is still the one If-None-Match names"}
            if "streams" in operation_.get("tags", []) and "429" not in responses:
                responses["429"] = _rate_limited(operation_["operationId"])  # opening one counts
            for response in responses.values():  # every answer counts (project.throttles)
                response.setdefault("headers", {}).update(copy.deepcopy(RATE_LIMIT_HEADERS))
            for status in ("429", "503"):
                if status in responses:
                    responses[status].setdefault("headers", {})["Retry-After"] = {
                        "schema": {"type": "integer", "minimum": 1}, "description": "seconds to wait before trying again",
                    }
    _typed_nullables(result.get("components", {}).get("schemas", {}))
    return result


STREAMED_MEDIA_TYPES = {"text/event-stream", "application/x-ndjson"}


def _streamed(operation_: dict) -> bool:
    """A live stream (`streams.schema`), or an answer streamed in a stream's media type (the
    export): its body is sent as it is made, so it has no ETag and never answers 304."""
    success = operation_.get("responses", {}).get("200", {}).get("content", {})
    return "streams" in operation_.get("tags", []) or bool(success) and set(success) <= STREAMED_MEDIA_TYPES


RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "schema": {"type": "string"},
        "description": 'each limit this request counts against: `"account";q=1200;w=60` is 1200 requests per 60 s '
                       "(IETF httpapi rate-limit headers draft)",
    },
    "RateLimit": {
        "schema": {"type": "string"},
        "description": 'where the caller stands on each: `"account";r=1187;t=42` is 1187 requests left, the count '
                       "freeing up within 42 s",
    },
}


def _rate_limited(operation_id: str) -> dict:
    """A 429 for an operation documented by hand (a stream's), in the shape the views' own have."""
    return {
        "description": "error: rate_limited",
        "content": {"application/json": {"schema": {
            "type": "object", "title": f"{operation_id[:1].upper()}{operation_id[1:]}Error429",
            "properties": {"code": {"type": "string", "enum": ["rate_limited"]},
                           "detail": {"type": "string", "description": "what was wrong, for people"}},
            "required": ["code", "detail"],
        }}},
    }


def _typed_nullables(node: Any) -> None:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("nullable") and "type" not in item and "allOf" in item:
                item["type"] = "object"  # every schema referenced this way is an object (a serializer)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def security_and_readiness(result: dict, **_: Any) -> dict:
    """drf-spectacular postprocessing hook. An operation that takes no credentials at all (making
    an account, getting a token, health) says so with an empty `security`: drf-spectacular writes
    `[{}]` ("anonymous allowed"), which generators read as "needs a client with credentials".
    And readiness (`project.ops.ready`, a plain async view) joins the documented operations."""
    for path_item in result.get("paths", {}).values():
        for operation_ in path_item.values():
            if operation_.get("security") == [{}]:
                operation_["security"] = []
    result["paths"]["/api/ready/"] = {"get": copy.deepcopy(_READY)}  # later hooks add to it
    return result


_CHECK = {"type": "string", "description": "ok, or what failed"}
_READY_ANSWER = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["ok", "unavailable"]},
        "database": _CHECK,
        "broker": _CHECK,
        "subscription": {**_CHECK, "description": "a stream server's Redis subscription (only there): ok, or what failed"},
    },
    "required": ["status"],
    "additionalProperties": {"type": "string"},
}
_READY = {
    "operationId": "ready",
    "summary": "Readiness for load balancers: 200 while this process can serve, 503 naming what it cannot reach",
    "tags": ["health"],
    "security": [],
    "responses": {
        "200": {"description": "ready", "content": {"application/json": {"schema": _READY_ANSWER}}},
        "503": {"description": "not ready: the checks that failed say why",
                "content": {"application/json": {"schema": _READY_ANSWER}}},
    },
}


def documented_endpoints(endpoints: list) -> list:
    """drf-spectacular preprocessing hook: every route is served with and without its trailing
    slash (games.urls); the schema documents the canonical one, with the slash (a file such as
    `board.txt` has none)."""
    return [endpoint for endpoint in endpoints if endpoint[0].endswith(("/", ".txt"))]
