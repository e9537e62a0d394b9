"""The API's content negotiation (`project.fastjson.JsonFirstNegotiation`) picks, for every
Accept header and `?format=`, the renderer and media type DRF's own negotiation picks: its
shortcut only skips parsing the headers clients nearly always send."""

from __future__ import annotations

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory

from project.fastjson import JsonFirstNegotiation

ACCEPTS = [None, "", "*/*", "application/json", "text/html", "application/json; indent=4", "text/html, */*;q=0.8",
           "application/json, text/plain", "text/plain", "application/*", "*/*; q=0.5, text/html"]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
@pytest.mark.parametrize("suffix", [None, "json"])
def test_the_shortcut_chooses_what_drf_chooses(accept, query, suffix):
    renderers = [renderer() for renderer in api_settings.DEFAULT_RENDERER_CLASSES]
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().post(f"/api/games/1/moves/{query}", **headers))

    def chosen(negotiation):
        try:
            renderer, media_type = negotiation.select_renderer(request, renderers, suffix)
            return type(renderer), media_type
        except Exception as refusal:  # a 404 or 406: the same refusal
            return type(refusal)

    assert chosen(JsonFirstNegotiation()) == chosen(DefaultContentNegotiation())


def test_the_api_negotiates_with_the_shortcut():
    assert api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS is JsonFirstNegotiation
