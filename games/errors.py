"""One JSON shape for every error: {"code": <stable snake_case>, "detail": <for people>}.

Services raise `ServiceError` subclasses; the rules raise `rules.base.RulesError`; DRF raises its
own. `exception_handler` turns each into that shape with the right status, so a client can branch
on `code` and never has to parse `detail`.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

from project import http
from rules.base import IllegalMove, InvalidOptions, NotYourTurn, RulesError


class ServiceError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, detail: str, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.detail, **self.extra}


class InvalidInput(ServiceError):
    code = "invalid_input"


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"


class UsernameTaken(ServiceError):
    status = 409
    code = "username_taken"


class GameNotFound(ServiceError):
    status = 404
    code = "game_not_found"


class NotAPlayer(ServiceError):
    status = 403
    code = "not_a_player"


class NotYourTurnError(ServiceError):
    status = 403
    code = "not_your_turn"


class StaleSeq(ServiceError):
    status = 409
    code = "stale_seq"


class GameNotOpen(ServiceError):
    status = 409
    code = "game_not_open"


class AlreadySeated(ServiceError):
    status = 409
    code = "already_seated"


class GameNotActive(ServiceError):
    status = 409
    code = "game_not_active"


class IdempotencyKeyReused(ServiceError):
    status = 422
    code = "idempotency_key_reused"


class EventOutOfRange(ServiceError):
    status = 400
    code = "event_out_of_range"


class DeadlinePassed(ServiceError):
    status = 409
    code = "deadline_passed"


class NoVacationLeft(ServiceError):
    status = 409
    code = "no_vacation_left"


def _rules_status(error: RulesError) -> int:
    if isinstance(error, NotYourTurn):
        return 403
    if isinstance(error, IllegalMove):
        return 422
    return 400  # MalformedMove, InvalidOptions and anything else the rules call bad input


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
        return {"code": code, "detail": "the request has invalid fields", "fields": exc.detail}
    return {"code": code, "detail": str(exc.detail)}


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, InvalidOptions):
        return Response({**exc.as_dict(), "option": exc.option}, status=400)
    if isinstance(exc, RulesError):
        return Response(exc.as_dict(), status=_rules_status(exc))
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
    return None  # a bug: Django's 500 handler below answers




class LogDamaged(ServiceError):
    status = 409
    code = "log_damaged"


class RulesVersionGone(ServiceError):
    status = 409
    code = "rules_version_gone"
