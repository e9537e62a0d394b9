"""Errors as HTTP answers: one JSON shape, {"code": <stable snake_case>, "detail": <for people>},
and one table from code to status.

Services raise `apikit.errors.ServiceError`s, the rules `rules.errors.RulesError`s, the bots
`bots.base.BotError`s and DRF its own exceptions. `exception_handler` (DRF's hook) gives each its
status from `STATUS`; a rules code not in the table (the rules may name their own, such as
`unknown_field`) is 422 when the move was understood but is illegal, else 400.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions as drf
from rest_framework.response import Response

from apikit.errors import ServiceError
from bots.base import BotError
from games import words
from project import http
from rules.errors import IllegalMove, InvalidOptions, RulesError

STATUS: dict[str, int] = {
    # games.errors
    "bad_request": 400,
    "invalid_input": 400,
    "invalid_invitation": 400,
    "event_out_of_range": 400,
    "invalid_credentials": 400,
    "not_a_player": 403,
    "game_not_found": 404,
    "username_taken": 409,
    "stale_seq": 409,
    "game_not_open": 409,
    "already_seated": 409,
    "game_not_active": 409,
    "game_not_finished": 409,
    "too_late_to_abort": 409,
    "no_draw_offered": 409,
    "creator_cannot_leave": 409,
    "not_the_creator": 403,
    "personal_credentials_only": 403,
    "rules_not_found": 404,
    "takeback_refused": 409,
    "no_takeback_requested": 409,
    "chat_too_fast": 429,
    "deadline_passed": 409,
    "no_vacation_left": 409,
    "log_damaged": 409,
    "rules_version_gone": 409,
    "token_not_found": 404,
    "too_many_tokens": 409,
    "not_a_bot_account": 400,
    "account_has_played": 409,
    "idempotency_key_reused": 422,
    # games.services.conditionals
    "conditional_not_found": 404,
    "conditional_two_players_only": 409,
    "conditional_through_chance": 422,
    "conditional_on_your_turn": 409,
    "conditional_invalid": 422,
    "too_many_conditionals": 409,
    "conditional_duplicate": 409,
    # analysis.services
    "too_many_analyses": 429,
    "analysis_runs_used": 429,
    # games.rematch
    "rematch_not_now": 409,
    "no_rematch_offered": 409,
    # hooks.errors
    "webhook_not_found": 404,
    "delivery_not_found": 404,
    "too_many_webhooks": 409,
    "webhook_disabled": 409,
    "too_many_pings": 429,
    "too_many_replays": 429,
    "url_not_allowed": 400,
    "seek_not_found": 404,
    "too_many_seeks": 409,
    "tournament_not_found": 404,
    "tournament_closed": 409,
    "already_entered": 409,
    "not_the_organiser": 403,
    "player_not_found": 404,
    "trf_two_player_only": 409,
    "not_entered": 403,
    "byes_swiss_only": 409,
    "round_already_paired": 409,
    "too_many_byes": 409,
    "bye_not_asked": 404,
    "entrant_not_found": 404,
    # rules.base
    "rules_error": 400,
    "unknown_field": 400,
    "unknown_notation": 400,
    "ambiguous_notation": 400,
    "unknown_rules": 400,
    "invalid_option": 400,
    "malformed_move": 400,
    "not_your_turn": 403,
    "illegal_move": 422,
    # bots.base
    "unknown_bot": 400,
    "invalid_level": 400,
    "no_move_to_choose": 400,
    "bot_error": 400,
}


def status_of(error: ServiceError | RulesError | BotError) -> int:
    if error.code in STATUS:
        return STATUS[error.code]
    return 422 if isinstance(error, IllegalMove) else 400


def body_of(error: ServiceError | RulesError | BotError) -> dict[str, Any]:
    """The error's JSON: its code as it always is, its detail in the caller's language."""
    body = {**error.as_dict(), "option": error.option} if isinstance(error, InvalidOptions) else error.as_dict()
    body["detail"] = words.translated(body["detail"])
    return body


_DRF_CODES = {
    drf.ParseError: "malformed_json",
    drf.NotAuthenticated: "not_authenticated",
    drf.AuthenticationFailed: "authentication_failed",
    drf.PermissionDenied: "permission_denied",
    drf.NotFound: "not_found",
    drf.MethodNotAllowed: "method_not_allowed",
    drf.NotAcceptable: "not_acceptable",
    drf.UnsupportedMediaType: "unsupported_media_type",
    drf.Throttled: "rate_limited",
    drf.ValidationError: "invalid_input",
}


def _drf_body(exc: drf.APIException) -> dict[str, Any]:
    code = getattr(exc, "error_code", None) or next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, drf.ValidationError):
        return {"code": code, "detail": _("the request has invalid fields"), "fields": exc.detail}
    return {"code": code, "detail": str(exc.detail)}


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, (ServiceError, RulesError, BotError)):
        response = Response(body_of(exc), status=status_of(exc))
        if getattr(exc, "extra", {}).get("retry_after"):  # a quota: when asking again may succeed
            response["Retry-After"] = str(int(exc.extra["retry_after"]))
        return response
    if http.is_outage(exc):
        outage = http.outage_response(exc)
        return Response(json.loads(outage.content), status=outage.status_code, headers={"Retry-After": outage["Retry-After"]})
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if isinstance(exc, drf.APIException):
        response = Response(_drf_body(exc), status=exc.status_code)
        if getattr(exc, "auth_header", None):
            response["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            response["Retry-After"] = str(int(exc.wait))
        return response
    return None  # a bug: Django's 500 handler answers
