"""The HTTP edge: what reaches the API before any view, and the JSON answers Django itself gives.

Everything here exists so that no request, however malformed, gets an HTML page, a 500 or a
stored value the database or a later read cannot handle:

- `StrictJSONParser` refuses bodies nested deeper than `SCRAPYARD_MAX_JSON_DEPTH` (checked by a
  flat scan before `json.loads`, whose C scanner would otherwise recurse into a RecursionError),
  invalid UTF-8, lone surrogates (`"\\ud800"` decodes to a str that SQLite stores and PostgreSQL
  refuses, and that no JSON encoder can write back) and NUL, which PostgreSQL text cannot hold.
- `ApiEdgeMiddleware` answers an oversized body with 413 before anyone reads it, and NUL in the
  path, query string or headers with 400.
- `bad_request`, `permission_denied`, `not_found`, `server_error` and `csrf_failure` are Django's
  error views in the API's `{code, detail}` shape. `server_error` and the DRF exception handler
  answer a database outage with 503 and `Retry-After`, logging one line when an outage starts and
  one when it ends (per process) rather than a traceback per request.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from rest_framework import exceptions as drf
from rest_framework.parsers import JSONParser

logger = logging.getLogger("scrapyard.http")

RETRY_AFTER_SECONDS = 5


# --- JSON bodies -----------------------------------------------------------------------------


class BadBody(drf.ParseError):
    """A request body the API refuses; `code` is the stable error code clients branch on."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.error_code = code


class BodyTooLarge(drf.APIException):
    status_code = 413
    default_detail = "the request body is too large"

    def __init__(self, limit: int):
        super().__init__(_("the request body is over the limit of {limit} bytes").format(limit=limit))
        self.error_code = "body_too_large"


# One string token, closed or not: the unrolled loop gives every character exactly one way to
# match, and an unclosed string still matches (to the end of the text), so the scan never fails
# and restarts at a later quote, which a hostile body would make quadratic
# (docs/decisions/0012-linear-checks-of-hostile-bodies.md).
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
# Outside its strings a JSON text's brackets are single bytes of its UTF-8 form: everything else
# is dropped in one `bytes.translate` (linear and cheap where a regex over the runs was not:
# decision 0012), and each bracket's step is looked up by its byte.
_NOT_BRACKET_BYTES = bytes(byte for byte in range(256) if byte not in b"[]{}")
_DEPTH_STEP = [0] * 256
_DEPTH_STEP[ord("[")] = _DEPTH_STEP[ord("{")] = 1
_DEPTH_STEP[ord("]")] = _DEPTH_STEP[ord("}")] = -1


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest, in linear time and without
    recursing: strings are cut out first (a bracket inside a string does not nest), then
    everything but brackets, then the depth is the highest running count of the brackets."""
    brackets = _STRINGS.sub("", text).encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET_BYTES)
    return max(0, max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0))


def refuse_unstorable_strings(data: Any) -> None:
    """Raise `BadBody` for a key or string value holding a lone surrogate or NUL (walked with a
    stack, not recursion: the depth is already capped, but a stack costs nothing)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                _check_string(key)
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            _check_string(item)


def _check_string(text: str) -> None:
    if "\x00" in text:
        raise BadBody("invalid_unicode", _("strings may not contain NUL (\\u0000)"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadBody("invalid_unicode", _("strings must be Unicode scalar values: a lone surrogate is not")) from None


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return strict_json(stream.read(limit + 1) if stream is not None else b"")


def strict_json(raw: bytes) -> Any:
    """A JSON body as `StrictJSONParser` reads it (the API's one reading), or `BadBody`/`BodyTooLarge`."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if len(raw) > limit:
        raise BodyTooLarge(limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody("invalid_unicode", _("the body is not valid UTF-8")) from None
    max_depth = settings.SCRAPYARD_MAX_JSON_DEPTH
    if nesting_depth(text) > max_depth:
        raise BadBody("too_deep", _("JSON may nest at most %(levels)s levels") % {"levels": max_depth})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadBody("malformed_json", _("the body is not valid JSON: %(error)s") % {"error": error}) from None
    except ValueError:  # valid JSON, but an integer longer than Python converts (sys.int_info)
        raise BadBody("number_too_long", _("a number in the body has more than %(digits)s digits")
                      % {"digits": sys.get_int_max_str_digits()}) from None
    if "\\u" in text:
        # NUL and lone surrogates reach a decoded string only through a \u escape: the decoder
        # refuses raw control characters in strings, and UTF-8 decoding refuses encoded
        # surrogates. A body without one is not walked (decision 0012: a walk costs milliseconds).
        refuse_unstorable_strings(data)
    return data


# --- before any view -------------------------------------------------------------------------


class ApiEdgeMiddleware:
    """First in the chain for /api/ (after the rate limits' count, which counts its refusals too):
    refuse what no view should ever see."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith("/api/"):
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal
        response = self.get_response(request)
        if response.status_code < 500:
            outage.ended()
        return response

    @staticmethod
    def _refusal(request) -> JsonResponse | None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return in_readers_language(request, lambda: error_response(
                400, "bad_request", _("Content-Length is not a number")))
        if length > limit:
            return in_readers_language(request, lambda: error_response(
                413, "body_too_large", _("the request body is over the limit of {limit} bytes").format(limit=limit)))
        meta = request.META
        texts = [request.path]
        if meta.get("QUERY_STRING"):  # most API calls have none: no QueryDict made for them
            texts += [*request.GET.keys(), *request.GET.values()]
        # Slices and one join, not a method call per header: this runs for every API request.
        texts += [value for key, value in meta.items() if key[:5] == "HTTP_" and type(value) is str]
        if "\x00" in "".join(texts):
            return in_readers_language(request, lambda: error_response(
                400, "invalid_unicode", _("the path, query string and headers may not contain NUL")))
        return None


def in_readers_language(request, answer: Callable[[], HttpResponse]) -> HttpResponse:
    """`answer()` worded in the language the request asks for (its cookie or Accept-Language):
    these refusals are made before the language middleware has run."""
    with translation.override(translation.get_language_from_request(request)):
        return answer()


# --- database outages ------------------------------------------------------------------------


class _Outage:
    """Whether this process is in a database outage, so each outage is logged once."""

    def __init__(self):
        self._lock = threading.Lock()
        self._down = False

    def started(self, error: BaseException) -> None:
        with self._lock:
            if self._down:
                return
            self._down = True
        logger.error("database unavailable, answering 503 until it is back: %s", _one_line(error))

    def ended(self) -> None:
        if not self._down:
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        logger.warning("database available again")


outage = _Outage()


def is_outage(error: BaseException) -> bool:
    """An error that says the database cannot be reached, not that a query was wrong."""
    return isinstance(error, (OperationalError, InterfaceError)) or (
        isinstance(error, DatabaseError) and "connection" in str(error).lower()
    )


def outage_response(error: BaseException) -> JsonResponse:
    outage.started(error)
    response = error_response(503, "service_unavailable", _("the database is unavailable; try again shortly"))
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


# --- Django's own error views, in the API's shape --------------------------------------------


def error_response(status: int, code: str, detail: str) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status)


def bad_request(request, exception=None) -> JsonResponse:
    if isinstance(exception, DisallowedHost):
        return error_response(400, "unknown_host", _("this server does not answer for that Host header"))
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return error_response(
            413, "body_too_large", _("the request body is over the limit of {limit} bytes").format(limit=limit)
        )
    if isinstance(exception, TooManyFieldsSent):
        return error_response(400, "bad_request", _("too many fields"))
    return error_response(400, "bad_request", _("the request could not be understood"))


def for_people(request) -> bool:
    """A page of the web client (not the API) asked for by a browser: it gets an HTML error."""
    return not request.path.startswith("/api/") and "text/html" in request.headers.get("Accept", "")


def error_page(request, status: int, detail: str) -> HttpResponse:
    return HttpResponse(render_to_string("web/error.html", {"status": status, "detail": detail}), status=status)


def permission_denied(request, exception=None) -> HttpResponse:
    if for_people(request):
        return error_page(request, 403, _("You may not do that."))
    return error_response(403, "permission_denied", _("you may not do that"))


def not_found(request, exception=None) -> HttpResponse:
    if for_people(request):
        return error_page(request, 404, _("There is nothing here."))
    return error_response(404, "not_found", _("no such resource"))


def server_error(request) -> HttpResponse:
    error = sys.exc_info()[1]  # Django calls this view inside its `except`
    if error is not None and is_outage(error):
        return outage_response(error)
    if for_people(request):
        return error_page(request, 500, _("Something went wrong on our side; nothing you sent is lost."))
    return error_response(500, "server_error", _("something went wrong on our side"))


def csrf_failure(request, reason: str = "") -> HttpResponse:
    if for_people(request):
        return error_page(request, 403, _("This form expired: go back, reload the page and send it again."))
    # Django's reason names the check that failed, in its own words: kept as it is.
    detail = _("CSRF check failed: %(reason)s") % {"reason": reason} if reason else _("CSRF check failed")
    return error_response(403, "csrf_failed", detail)


class HideOutageTracebacks(logging.Filter):
    """Drops django.request's per-request traceback for a database outage: `outage` has already
    logged the one line that says so."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return error is None or not is_outage(error)
