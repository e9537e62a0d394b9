"""JSON answers encoded with orjson, a C encoder, rather than the standard library's, which DRF's
`JSONRenderer` uses (docs/decisions/0008-json-answers-by-orjson.md).

The output is what DRF's renderer gives (compact, UTF-8, not ASCII-escaped): every value orjson
does not write itself in DRF's way (datetimes, decimals, lazy strings, UUIDs, querysets, ...)
goes through DRF's own encoder, so a datetime still reads `...Z` and a Decimal still a string.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_drf = JSONEncoder()
OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def dumps(data: Any, *, sort_keys: bool = False) -> bytes:
    """`data` as compact UTF-8 JSON bytes, DRF's encoder writing what orjson leaves to it."""
    return orjson.dumps(data, default=_drf.default, option=OPTIONS | (orjson.OPT_SORT_KEYS if sort_keys else 0))


class OrjsonRenderer(JSONRenderer):
    """DRF's JSON renderer, encoding with orjson (an indented answer, asked for in the Accept
    header, is left to DRF's)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self._indented(accepted_media_type, renderer_context):
            return super().render(data, accepted_media_type, renderer_context)
        return dumps(data)

    def _indented(self, accepted_media_type, renderer_context) -> bool:
        """Whether the client asked for an indented answer: only a media type with parameters
        (`; indent=2`) or a renderer context naming one can, so most answers skip the parsing."""
        if ";" not in (accepted_media_type or "") and not (renderer_context or {}).get("indent"):
            return False
        return bool(self.get_indent(accepted_media_type or "", renderer_context or {}))


class JsonFirstNegotiation(DefaultContentNegotiation):
    """DRF's content negotiation, without parsing the Accept header a client of the API nearly
    always sends: none, `*/*` or `application/json`, with no `?format=`, gets the first renderer
    (JSON), which is what DRF's own negotiation picks for them. Anything else is DRF's to decide.
    Parsing the header showed in a move POST's profile
    (docs/decisions/0008-json-answers-by-orjson.md)."""

    PLAIN = frozenset({"*/*", "application/json"})

    def select_renderer(self, request, renderers, format_suffix=None):
        first = renderers[0]
        if (format_suffix is None and first.media_type == "application/json"
                and request.META.get("HTTP_ACCEPT", "*/*") in self.PLAIN
                and not self._format_asked(request)):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)

    def _format_asked(self, request) -> bool:
        # Without a query string there is no `?format=`: no QueryDict made to find that out.
        return bool(request.META.get("QUERY_STRING")) and self.settings.URL_FORMAT_OVERRIDE in request.query_params
