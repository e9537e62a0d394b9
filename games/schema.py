"""The OpenAPI schema's account of the API: what each operation answers, and every error code it
may answer with, as `{"code": ..., "detail": ...}` per status.

The views return the selectors' dicts; the serializers here only describe those dicts to
drf-spectacular and never render anything. Error codes come from one place, the status table
in `games.http_errors`, so a code documented here answers with the status documented here. The
rules decide some codes themselves (a game's own `not_reachable`, a layout option's problem):
those responses document `code` as a snake_case pattern and name the codes every game shares.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any, Iterable

from drf_spectacular.utils import (
    extend_schema_field,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers

from games.http_errors import STATUS

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
BODY_STATUS = {"malformed_json": 400, "too_deep": 400, "invalid_input": 400, "unknown_field": 400, "unsupported_media_type": 415}
AUTH_STATUS = {"not_authenticated": 401, "authentication_failed": 401}
SCOPE_STATUS = {"missing_scope": 403}
GAME_PATH_STATUS = {"game_not_found": 404, "not_found": 404, "invalid_invitation": 400}
RULES_CODE_PATTERN = r"^[a-z][a-z0-9_]*$"


# --- request fields the views check themselves, described exactly --------------------------

BOT_SEAT_FIELDS = ("seat", "bot", "level")


@extend_schema_field({
    "type": "object",
    "properties": {
        "seat": {"type": "integer", "minimum": 1, "description": "the seat the bot takes (not the creator's)"},
        "bot": {"type": "string", "description": "a bot's name (GET /api/bots/)"},
        "level": {"type": "integer", "description": "its level (default: the bot's own)"},
    },
    "required": ["seat", "bot"],
    "additionalProperties": False,
})
class BotSeatField(serializers.DictField):
    """One bot seat of a new game; games.services checks its values (unknown_bot, invalid_level)."""

    allowed_keys = BOT_SEAT_FIELDS


@extend_schema_field({
    "type": "object",
    "nullable": True,
    "description": 'a clock: {"type": "step", "seconds": 90}, {"type": "correspondence", "days": 3}, '
                   '{"type": "bank", "initial_hours": 240, "increment_hours": 36, "cap_hours": 240}, '
                   'or {"type": "none"} (private games only: no clock); null or absent: correspondence, 14 days a move',
    "required": ["type"],
    "properties": {"type": {"type": "string", "enum": ["step", "correspondence", "bank", "none"]}},
})
class TimeControlField(serializers.JSONField):
    """A time control as games.time_controls reads it; null is the same as leaving it out."""


def _status_of(code: str) -> int:
    for table in (EDGE_STATUS, BODY_STATUS, AUTH_STATUS, SCOPE_STATUS, GAME_PATH_STATUS, STATUS):
        if code in table:
            return table[code]
    raise KeyError(f"error code {code!r} has no status: add it to games.http_errors.STATUS")


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
) -> dict[int, OpenApiResponse]:
    """The error responses of one operation: its own `codes`, the edge's, and those of a body
    (`body`), of authentication (`auth`: "required", "optional" for a token that may be sent
    and be wrong, or "none") and of a game in the path (`game`). Statuses in `rules_statuses`
    may carry a code the rules decide; `scope` is the token scope the operation needs."""
    everything = set(codes) | set(EDGE_STATUS)
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
    **errors: Any,
):
    """`extend_schema` for one operation: its answer, its request body and all its errors
    (`degraded`: the answer it gives with 503 instead of an error, as health does)."""
    responses = {status: answer, **error_responses(name, **errors)}
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
    answers with an ETag and 304 to a matching If-None-Match (ScopedApi, ConditionalGetMiddleware);
    every 429 and 503 carries Retry-After. And a nullable reference gets the `type` that strict
    validators and generators want beside `nullable` (OpenAPI 3.0 ignores `nullable` without it)."""
    for path_item in result.get("paths", {}).values():
        for method, operation_ in path_item.items():
            responses = operation_.get("responses", {})
            for status, response in responses.items():
                content = response.get("content", {})
                if status >= "400" and "text/plain" in content:  # a text resource's errors are JSON
                    response["content"] = {"application/json": content.pop("text/plain"), **content}
            if method == "get" and "200" in responses:
                operation_.setdefault("parameters", []).append({
                    "in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
                    "description": "an ETag this answer had: 304 Not Modified, with no body, while it still matches",
                })
                responses["200"].setdefault("headers", {})["ETag"] = {
                    "schema": {"type": "string"}, "description": "this answer's version, for If-None-Match",
                }
                responses["304"] = {"description": "not modified: the answer is still the one If-None-Match names"}
            if operation_.get("operationId") != "ready" and "streams" not in operation_.get("tags", []):
                for response in responses.values():  # every counted answer (project.throttles)
                    response.setdefault("headers", {}).update(copy.deepcopy(RATE_LIMIT_HEADERS))
            for status in ("429", "503"):
                if status in responses:
                    responses[status].setdefault("headers", {})["Retry-After"] = {
                        "schema": {"type": "integer", "minimum": 1}, "description": "seconds to wait before trying again",
                    }
    _typed_nullables(result.get("components", {}).get("schemas", {}))
    return result


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


# --- what the operations answer ---------------------------------------------------------------

ANY_OBJECT = serializers.DictField(help_text="shaped by the game's rules (GET /api/rules/)")


class TokenAnswer(serializers.Serializer):
    token = serializers.CharField(help_text="send as `Authorization: Token <token>`")


class TokenInfo(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=["read", "play", "bot", "webhooks", "account"]))
    prefix = serializers.CharField(help_text="the key's first characters, to tell tokens apart")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    token = serializers.CharField(required=False, help_text="the key: in the answer that made it, and never again")


class AccountInfo(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField(help_text="a bot account: a program plays it")


class AccountSettings(AccountInfo):
    email = serializers.CharField(allow_blank=True)
    notify = serializers.DictField(
        child=serializers.BooleanField(),
        help_text="by email: game_started, your_turn, deadline_warning, game_over (true: wanted)",
    )
    language = serializers.CharField(allow_blank=True, help_text='"en", "nl", or "": the browser\'s language')


class AccountAnswer(TokenAnswer):
    username = serializers.CharField()


class OptionDescription(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["bool", "int", "choice", "json"])
    default = serializers.JSONField()
    description = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class RulesDescription(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    version = serializers.IntegerField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    chance = serializers.BooleanField(help_text="the seed decides something after setup")
    hidden_information = serializers.BooleanField(help_text="a seat may know what another does not")
    simultaneous = serializers.BooleanField(help_text="several seats may have to act at once")
    options = OptionDescription(many=True)


class RulesDetail(RulesDescription):
    move_schema = serializers.DictField(help_text="the JSON Schema of the game's moves: one object shape per move type")
    doc = serializers.CharField(allow_null=True, help_text="the game's page for players and client authors (Markdown)")


class BotDescription(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    levels = serializers.ListField(child=serializers.IntegerField())
    default_level = serializers.IntegerField()
    level_descriptions = serializers.DictField(child=serializers.CharField())


class BotOfSeat(serializers.Serializer):
    name = serializers.CharField()
    level = serializers.IntegerField()


class SeatSummary(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = BotOfSeat(allow_null=True)


class Deadline(serializers.Serializer):
    seat = serializers.IntegerField()
    due_at = serializers.DateTimeField(allow_null=True)
    stopped = serializers.BooleanField()
    seconds_left = serializers.FloatField()
    weekends_paused = serializers.BooleanField()


class StandIn(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField()


class GameSummary(serializers.Serializer):
    id = serializers.IntegerField()
    rules = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    players = serializers.IntegerField()
    options = serializers.DictField()
    rated = serializers.BooleanField(help_text="whether the result changes the players' ratings")
    seats = SeatSummary(many=True)
    seq = serializers.IntegerField(help_text="the number of the game's latest event")
    to_act = serializers.ListField(child=serializers.IntegerField())
    time_control = serializers.DictField(allow_null=True)
    timeout_policy = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    deadlines = Deadline(many=True)
    stand_ins = StandIn(many=True)
    result = serializers.DictField(allow_null=True)
    seed_sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()


class ChatLine(serializers.Serializer):
    id = serializers.IntegerField(help_text="pass the last one as ?after= for newer lines")
    channel = serializers.ChoiceField(choices=["players", "spectators"])
    username = serializers.CharField()
    text = serializers.CharField()
    at = serializers.DateTimeField()


class ChatPage(serializers.Serializer):
    channel = serializers.ChoiceField(choices=["players", "spectators"], help_text="where you talk")
    lines = ChatLine(many=True)


class InvitationInfo(serializers.Serializer):
    game = serializers.IntegerField()
    rules = serializers.CharField()
    status = serializers.CharField(help_text="the game's status")
    by = serializers.CharField(help_text="who made the game")
    created_at = serializers.DateTimeField()


class DrawOffer(serializers.Serializer):
    by = serializers.IntegerField(help_text="the seat that offers")
    seq = serializers.IntegerField(help_text="the event of the offer")
    accepted = serializers.ListField(child=serializers.IntegerField(), help_text="the seats that accepted so far")


class TakebackRequest(serializers.Serializer):
    by = serializers.IntegerField(help_text="the seat that asks")
    seq = serializers.IntegerField(help_text="the event of the request")
    undo = serializers.IntegerField(help_text="the event of the move to take back")
    accepted = serializers.ListField(child=serializers.IntegerField(), help_text="the seats that accepted so far")


class PanelItem(serializers.Serializer):
    label = serializers.CharField()
    value = serializers.JSONField(help_text="a number or a short text")


class Panel(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField(help_text="the game's name for the seat (White, rubbles, Red ship)")
    colour = serializers.CharField(help_text="a CSS colour name the seat's pieces are drawn in")
    score = serializers.FloatField(allow_null=True, help_text="None where the game keeps no running score")
    score_parts = PanelItem(many=True)
    resources = PanelItem(many=True)
    notes = serializers.ListField(child=serializers.CharField())
    out = serializers.BooleanField(help_text="the seat has left the game")


class Presentation(serializers.Serializer):
    panels = Panel(many=True, help_text="a panel per seat, in seat order, as your seat may see it")
    prompt = serializers.CharField(allow_null=True, help_text="one line: what your seat must do now (None: nothing)")
    touched = serializers.ListField(
        child=serializers.CharField(), help_text="the cells the last event changed, named as moves name them (\"3,4\") or by the game's own names"
    )
    ending = serializers.CharField(
        allow_null=True, help_text="once the rules have ended the game, how they decided it, in words (a tie-break named); "
                                   "None before, and where a player or the server ended it: the result's reason says why"
    )


class GameDetail(GameSummary):
    presentation = Presentation(help_text="what a page shows: the same for every game (rules.presentation)")
    your_seat = serializers.IntegerField(allow_null=True)
    private = serializers.BooleanField(help_text="unlisted: seen and joined by invitation only")
    timeouts_to_resign = serializers.IntegerField(help_text="timeouts in a row that resign a seat (0: never)")
    invitation_key = serializers.CharField(allow_null=True, help_text="to its creator only: the key of the invitation link, /games/{id}/?invitation=<key>")
    you_created = serializers.BooleanField(help_text="whether you made this game (you may cancel it before it starts)")
    draw_offer = DrawOffer(allow_null=True, help_text="the draw on offer, if any (it lapses when its seat moves)")
    takeback_request = TakebackRequest(allow_null=True, help_text="the takeback asked for, if any")
    playing = serializers.ListField(child=serializers.IntegerField(), help_text="the seats still in the game (not resigned or forfeited)")
    view = serializers.DictField(help_text="the game as your seat (or a spectator) may see it")
    seed = serializers.CharField(allow_null=True, help_text="published once the game is finished")


class GamePage(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameSummary(many=True)


class LegalMoves(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.DictField())
    notation = serializers.ListField(
        child=serializers.CharField(), help_text="each move's human notation, in the same order (unique per move)"
    )


class EventAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["created", "move", "timeout", "system"])
    seat = serializers.IntegerField(allow_null=True)
    payload = serializers.DictField(allow_null=True, help_text="your own move in full; others' as they may see it")
    created_at = serializers.DateTimeField()
    hash = serializers.CharField()
    prev_hash = serializers.CharField()
    private_digest = serializers.CharField(allow_blank=True, allow_null=True)
    text = serializers.CharField(required=False, help_text="with ?notation=true: the event in words")


class GameAfterMove(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the game's version now: the expected_seq of your next move")
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadlines = Deadline(many=True)
    result = serializers.DictField(allow_null=True)
    your_seat = serializers.IntegerField()
    your_turn = serializers.BooleanField(help_text="whether you have moves now (then `moves` lists them)")
    view = serializers.DictField(help_text="the game as your seat may see it")
    moves = serializers.ListField(child=serializers.DictField(), help_text="your legal moves now (none: not your turn)")
    notation = serializers.ListField(child=serializers.CharField(), help_text="each move's human notation, in order")


class MoveAnswer(EventAnswer):
    game = GameAfterMove(help_text="the game after the move as your seat sees it, with your next moves: a client "
                                   "needs no other request to play on (on an Idempotency-Key retry, the game as it is now)")


class EventsAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    events = EventAnswer(many=True)


class StateAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    view = serializers.DictField()


class VacationAnswer(serializers.Serializer):
    on_vacation = serializers.BooleanField()
    since = serializers.DateTimeField(allow_null=True)
    year = serializers.IntegerField()
    days_per_year = serializers.IntegerField()
    days_used = serializers.FloatField()
    days_left = serializers.FloatField()
    ends_at = serializers.DateTimeField(allow_null=True)


class HealthAnswer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "degraded"])
    database = serializers.CharField()
    broker = serializers.CharField()


class Move(serializers.Serializer):
    expected_seq = serializers.IntegerField(min_value=0, help_text="the game's seq your move answers")
    move = serializers.DictField(help_text='a legal move as GET legal-moves lists it, {"type": ...}')


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="a retry with the same key returns the first answer and stores nothing new (at most 200 characters)",
)
PAGE = [
    OpenApiParameter("limit", int, OpenApiParameter.QUERY, required=False, description="games a page (50; at most 200)"),
    OpenApiParameter("offset", int, OpenApiParameter.QUERY, required=False, description="games to skip"),
]
