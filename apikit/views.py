"""The API kit every app's REST views stand on: `ScopedApi` (scopes by method, DRF's per-request
parts made once per view class, private caching with an ETag), `PlainTextApi` for answers in plain
text, `validated`, which refuses a body field nobody reads (`unknown_field`) instead of
ignoring it, and `invitation_of`, a private game's key as any app's view of a game is given it. Errors become {code, detail} in `apikit.http_errors.exception_handler`."""

from __future__ import annotations

import json
import re
from typing import Any

from django.http import QueryDict
from django.utils.cache import patch_cache_control
from django.utils.datastructures import MultiValueDict
from rest_framework import exceptions, serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request, _hasattr
from rest_framework.views import APIView

from accounts import auth
from apikit import errors
from project import fastjson, http
from project.etags import keyed_etag
from rules.words import msg


class ScopedApi(APIView):
    """Every view of the API: its own permissions, then the scope its method needs (`scopes`, by
    method; `accounts.auth`). Every GET reads; playing and seating play; the account is its own."""

    scopes: dict[str, str] = {"GET": "read", "POST": "play"}

    # DRF makes its parsers, authenticators, permissions and negotiator anew for every request;
    # none of them keeps anything between requests, so each view class makes them once (a move
    # is the most frequent request there is: docs/decisions/0006). Renderers and throttles keep
    # a request's state on themselves and are made per request, as DRF does.
    def initialize_request(self, request, *args, **kwargs):
        # DRF's, with the request that reads a plain JSON body in one step (`ApiRequest`).
        return ApiRequest(request, parsers=self.get_parsers(), authenticators=self.get_authenticators(),
                          negotiator=self.get_content_negotiator(), parser_context=self.get_parser_context(request))

    def initial(self, request, *args, **kwargs):
        """DRF's, with the rate limits counted right after authentication, before anything else
        may refuse: every answer is counted and says so (`project.throttles`). Credentials that
        do not work (or a session's failed CSRF check) leave the request anonymous, counted
        against its address, so a token guessed meets that limit (429) as a request without one
        does. A token that works counts against its account alone, as before."""
        self.format_kwarg = self.get_format_suffix(**kwargs)
        try:
            self.perform_authentication(request)
        except exceptions.APIException:
            self.check_throttles(request)
            raise
        self.check_throttles(request)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(request)
        request.version, request.versioning_scheme = self.determine_version(request, *args, **kwargs)
        self.check_permissions(request)

    def get_parsers(self):
        return _made_once(type(self), "parsers", super().get_parsers)

    def get_authenticators(self):
        return _made_once(type(self), "authenticators", super().get_authenticators)

    def get_permissions(self):
        return _made_once(type(self), "permissions", lambda: [*super(ScopedApi, self).get_permissions(), auth.TokenScopes()])

    def get_content_negotiator(self):
        return _made_once(type(self), "negotiator", super().get_content_negotiator)

    @property
    def default_response_headers(self):
        # Allow (the methods the class defines) and Vary: Accept depend on the class alone; DRF
        # works them out again for every answer. DRF says Vary: Accept only where a view has
        # several renderers; a JSON answer varies with the Accept still (`; indent=`, and a 406
        # for an Accept that admits no JSON), so every view says it.
        return dict(_made_once(type(self), "headers", lambda: {**APIView.default_response_headers.fget(self), "Vary": "Accept"}))

    def finalize_response(self, request, response, *args, **kwargs):
        vary = self.headers.get("Vary")
        if vary is not None and "Vary" not in response:  # what DRF's patch_vary_headers would write, written
            response["Vary"] = self.headers.pop("Vary")
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method in ("GET", "HEAD") and response.status_code == 200 and not response.has_header("Cache-Control"):
            # Per caller (a seat's view), and stale the moment the game moves: a cache may keep
            # it for this caller only and must ask again each time (ETag: a 304 when unchanged).
            patch_cache_control(response, private=True, no_cache=True)
            if getattr(response, "data", None) is not None and not response.has_header("ETag"):
                # a DRF answer; others get the middleware's
                response["ETag"] = _etag_of(response.data)
        return response


class ApiRequest(Request):
    """DRF's request. A body sent as `application/json` to a view whose one parser is the API's
    (`project.http.StrictJSONParser`, every view's) is read by that parser's reading, without
    DRF's parser selection, media type parsing and second copy of the body; any other body
    goes DRF's way. The data, and every refusal, are the same either way."""

    def _load_data_and_files(self):
        if _hasattr(self, "_data") or not self._plain_json():
            return super()._load_data_and_files()
        try:
            self._data = http.strict_json(self._request.body)
        except Exception:
            self._data = self._full_data = QueryDict("", encoding=self._request._encoding)  # as DRF leaves it
            self._files = MultiValueDict()
            raise
        self._full_data = self._data
        self._files = MultiValueDict()

    def _plain_json(self) -> bool:
        meta = self._request.META
        return (meta.get("CONTENT_TYPE") == "application/json" and meta.get("CONTENT_LENGTH", "0") not in ("", "0")
                and len(self.parsers) == 1 and type(self.parsers[0]) is http.StrictJSONParser
                and not self._request._read_started)


_MADE: dict[tuple[type, str], Any] = {}


def _made_once(view: type, what: str, make: Any) -> Any:
    """What `make()` gives for this view class, made at its first request. Two threads racing at
    the first request each make one, and either is kept: both are the same."""
    key = (view, what)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = make()
    return made


def _etag_of(data: Any) -> str:
    """A digest of the answer (what this caller may see), leaving out the clocks' `seconds_left`,
    which changes every moment while nothing happens: `due_at` beside it says the same, and a
    client polling an unchanged game gets its 304 (ConditionalGetMiddleware answers it). Keyed
    with the server's secret (`project.http.keyed_etag`), so nobody can test a guess of the body
    (an account's email, say) against it offline. The countdown is cut out of the encoded answer
    (C code all the way: a walk of the answer in Python cost a game's answer more than the rest)."""
    return keyed_etag(_COUNTDOWN.sub(b"", fastjson.dumps(data, sort_keys=True)))


# A `seconds_left` key and its number. Only a key can match: inside a JSON string a quote is
# escaped, so `"seconds_left":` there reads `\"seconds_left\":`.
_COUNTDOWN = re.compile(rb'(?<!\\)"seconds_left":-?[0-9.eE+-]+')


def _without_countdown(data: Any) -> Any:
    """`data` without its `seconds_left` keys: what the ETag covers, as data (tests compare it)."""
    if isinstance(data, dict):
        return {key: _without_countdown(value) for key, value in data.items() if key != "seconds_left"}
    if isinstance(data, list):
        return [_without_countdown(value) for value in data]
    return data


class PlainTextRenderer(BaseRenderer):
    """Lets content negotiation pick text/plain: any Accept that admits it (text/plain, text/*,
    */*) gets the text; one that does not (application/json alone) gets 406."""

    media_type = "text/plain"
    format = "txt"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode(self.charset) if isinstance(data, str) else json.dumps(data).encode()


class PlainTextApi(ScopedApi):
    """A view whose answer is plain text; its errors keep the API's JSON shape."""

    renderer_classes = (PlainTextRenderer,)

    def finalize_response(self, request, response, *args, **kwargs):
        if response.status_code >= 400:  # an error keeps the API's JSON shape whatever was asked
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


def invitation_of(request) -> str:
    """A private game's invitation key, from its link (`?invitation=`) or a join's body: every
    app's views of a game take it (the game's, its chat's), and hand it to the game's selectors."""
    meta = request.META  # a read without a query string or a body (most reads) makes neither's QueryDict
    found = request.query_params.get("invitation") if meta.get("QUERY_STRING") else None
    if not found and meta.get("CONTENT_LENGTH", "0") not in ("", "0"):
        found = request.data.get("invitation") if isinstance(request.data, dict) else ""
    return found if isinstance(found, str) else ""


def validated(serializer_class, data, *, known: tuple[str, ...] = ()) -> dict:
    """`data` checked by the serializer. A JSON body (not a query string) may hold no field the
    serializer does not name (nor `known`, fields read elsewhere): a misspelt `"privat": true`
    is refused with `unknown_field`, not ignored."""
    serializer = serializer_class(data=data)
    if isinstance(data, dict) and not isinstance(data, QueryDict):
        unknown = _unknown_field(serializer, data, known)
        if unknown is not None:
            raise errors.UnknownField(msg("there is no field {unknown!r} here", unknown=unknown), field=unknown)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _unknown_in_item(child: Any, item: dict, prefix: str) -> str | None:
    if isinstance(child, serializers.Serializer):
        return _unknown_field(child, item, prefix=prefix)
    allowed = getattr(child, "allowed_keys", None)  # a DictField of a known shape (schema.BotSeatField)
    return next((f"{prefix}{key}" for key in item if key not in allowed), None) if allowed is not None else None


def _unknown_field(serializer: serializers.Serializer, data: dict, known: tuple[str, ...] = (), prefix: str = "") -> str | None:
    """The first field of `data` (walking nested objects and lists of objects) that the
    serializer does not name, as a path such as `bots[0].levle`; None when there is none."""
    for key, value in data.items():
        field = serializer.fields.get(key)
        if field is None or field.read_only:
            if key in known:
                continue
            return f"{prefix}{key}"
        if isinstance(field, serializers.Serializer) and isinstance(value, dict):
            found = _unknown_field(field, value, prefix=f"{prefix}{key}.")
        elif isinstance(field, (serializers.ListSerializer, serializers.ListField)) and isinstance(value, list):
            found = next((f for n, item in enumerate(value) if isinstance(item, dict)
                          and (f := _unknown_in_item(field.child, item, f"{prefix}{key}[{n}].")) is not None), None)
        else:
            found = None
        if found is not None:
            return found
    return None
