"""A token caller's move, answered without the machinery it does not need.

Most moves come from bots and clients that name a token and send a JSON body. For them the
request went through URL resolution, the rest of the middleware (static files, sessions, CSRF,
messages: each passes a token caller straight on) and DRF's generic dispatch (a `Request`
wrapper, content negotiation, the permission and throttle objects made anew, the `Response`
rendered through a template response), about a tenth of a move's CPU before any of it was the
move's own work (bench/RESULTS.md, "Step two, fifth session").

`MoveShortcutMiddleware` answers such a move itself, with the very parts the view uses, so the
answer is the one `MoveSubmitApi` would give, byte for byte:

- the token read by `games.auth.ScopedTokenAuthentication`, the scope the view names for POST;
- the rate limits of the view's `throttle_classes` (`project.throttles`), checked by DRF's own
  `check_throttles`;
- the body read by `project.http.strict_json`, the move played by `games.apis.move_played`;
- every refusal from then on answered by the API's one exception handler
  (`games.http_errors.exception_handler`), rendered as DRF renders it.

Anything else is left to the full chain, before this has read the body or counted the request:
another method or path, a session caller, a token that does not authenticate or lacks the
scope, an Accept header or a body that is not plain JSON, a query string. Their answers (401,
403, 406, 415, ...) are therefore DRF's own. The middleware sits after those that put headers on
every answer (security, CSP, framing), so a shortcut's answer carries the same headers.
`SCRAPYARD_MOVE_SHORTCUT=off` sends every move through the full chain (the benchmark compares
the two; `tests/games/test_move_shortcut.py` checks they answer alike).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from games import apis, auth
from project import fastjson, http
from project.middleware import names_a_token

_MOVES = re.compile(r"/api/games/([0-9]+)/moves/")
_RENDERER = fastjson.OrjsonRenderer()
_VIEW = apis.MoveSubmitApi
# What DRF's `finalize_response` adds to every answer of the view: Allow, and Vary: Accept.
_VIEW_HEADERS = _VIEW().default_response_headers


class MoveShortcutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.authenticator = auth.ScopedTokenAuthentication()
        self.scope = _VIEW.scopes["POST"]

    def __call__(self, request):
        game_id = _plain_token_move(request) if settings.SCRAPYARD_MOVE_SHORTCUT else None
        if game_id is None or not self._may_play(request):
            return self.get_response(request)
        try:
            _VIEW().check_throttles(request)
            data = http.strict_json(request.read(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1))
            # From the environ, as the token was (`games.auth`): `request.headers` is never built here.
            key = request.META.get("HTTP_IDEMPOTENCY_KEY")
            body, headers = apis.move_played(game_id, request.user, data, key)
        except Exception as error:
            return _refusal(error)
        response = HttpResponse(fastjson.dumps(body), status=201, content_type=_RENDERER.media_type)
        for name, value in headers.items():
            response[name] = value
        return _as_the_view_ends_it(response)

    def _may_play(self, request) -> bool:
        """Whether the token authenticates and holds the scope (else the full chain answers):
        sets `request.user` and `request.auth` as DRF would."""
        try:
            credentials = self.authenticator.authenticate(request)
        except exceptions.APIException:
            return False
        if credentials is None or self.scope not in auth.scopes_of(credentials[1]):
            return False
        request.user, request.auth = credentials
        return True


def _plain_token_move(request) -> int | None:
    """The game of a move POST named by its token, with a JSON body and a plain Accept header
    and no query string; None for any other request."""
    meta = request.META
    if request.method != "POST" or meta.get("QUERY_STRING"):
        return None
    match = _MOVES.fullmatch(request.path_info)
    if match is None or meta.get("HTTP_ACCEPT", "*/*") not in fastjson.JsonFirstNegotiation.PLAIN:
        return None  # the Accept headers the API's negotiation answers with JSON unparsed
    if not names_a_token(request):
        return None
    if not meta.get("HTTP_ACCEPT_LANGUAGE", "en").lstrip().lower().startswith(("en", "*")):
        return None  # errors in another language: the full chain, whose LocaleMiddleware picks it
    if meta.get("CONTENT_TYPE", "").split(";")[0].strip().lower() != "application/json":
        return None
    try:
        if int(meta.get("CONTENT_LENGTH") or 0) <= 0:
            return None
    except ValueError:
        return None
    return int(match[1])


def _refusal(error: Exception) -> HttpResponse:
    """The answer DRF's dispatch gives for an error raised in the view: the API's exception
    handler's, rendered; an error it does not answer (a bug) goes on to Django's 500 view."""
    response = api_settings.EXCEPTION_HANDLER(error, {"view": None, "args": (), "kwargs": {}, "request": None})
    if response is None:
        raise error
    set_rollback()
    return _rendered(response)


def _rendered(response: Response) -> HttpResponse:
    response.accepted_renderer = _RENDERER
    response.accepted_media_type = _RENDERER.media_type
    response.renderer_context = {}
    return _as_the_view_ends_it(response.render())


def _as_the_view_ends_it(response: HttpResponse) -> HttpResponse:
    """The headers the rest of the chain would have added: DRF's Allow and Vary, the
    Content-Length that Django's CommonMiddleware sets, and LocaleMiddleware's language (the
    shortcut answers only callers content with English: `_plain_token_move`)."""
    for name, value in _VIEW_HEADERS.items():
        if name == "Vary":
            patch_vary_headers(response, [value])
        else:
            response[name] = value
    patch_vary_headers(response, ["Accept-Language"])
    response["Content-Language"] = "en"
    response["Content-Length"] = str(len(response.content))
    return response
