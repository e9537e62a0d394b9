"""Refusals made at the edge, before or beside the views (a bad body, a header that lies, a
request the stream server or the front does not serve), keep their code and word their detail
in the language the request asks for, like every other API answer."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import Client

from tests.api.conftest import register

pytestmark = pytest.mark.django_db

DUTCH = {"HTTP_ACCEPT_LANGUAGE": "nl"}


def _post(body: bytes, **extra):
    return register().client.generic("POST", "/api/games/", body, content_type="application/json", **extra)


@pytest.mark.parametrize(("body", "code", "dutch"), [
    (b'{"rules": ', "malformed_json", "de body is geen geldige JSON: "),
    (b"[" * 500 + b"]" * 500, "too_deep", "JSON mag hoogstens "),
    (b'{"rules": "\xff"}', "invalid_unicode", "de body is geen geldige UTF-8"),
    (b'{"rules": "a\\u0000b"}', "invalid_unicode", "tekenreeksen mogen geen NUL"),
])
def test_a_refused_body_is_told_in_dutch_with_its_code_unchanged(body, code, dutch):
    english, refused = _post(body).json(), _post(body, **DUTCH).json()
    assert english["code"] == refused["code"] == code
    assert refused["detail"].startswith(dutch) and not english["detail"].startswith(dutch)


def test_the_edge_refuses_before_the_language_middleware_yet_in_the_readers_language():
    refused = Client().get("/api/games/?name=a%00b", **DUTCH)
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_unicode"
    assert refused.json()["detail"] == "het pad, de querystring en de headers mogen geen NUL bevatten"
    lying = Client().generic("POST", "/api/games/", b"{}", content_type="application/json",
                             CONTENT_LENGTH="many", HTTP_COOKIE="django_language=nl")
    assert lying.status_code == 400 and lying.json()["detail"] == "Content-Length is geen getal"


def test_the_metrics_refusal_follows_the_readers_language(settings):
    settings.SCRAPYARD_METRICS_TOKEN = "operator-secret"
    refused = Client().get("/metrics", **DUTCH)
    assert refused.status_code == 401 and refused.json() == {
        "code": "not_authenticated", "detail": "de metrics vragen om hun token"}


def _asgi_answer(application, path: str, headers: list[tuple[bytes, bytes]], body: bytes = b"") -> tuple[int, dict]:
    scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": headers, "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 80),
             "client": ("127.0.0.1", 5000), "root_path": ""}
    sent: list[dict] = []
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


def test_the_front_and_the_stream_server_word_their_own_refusals_in_the_readers_language(settings):
    from project import asgi, front

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    status, answer = _asgi_answer(front.application, "/api/games/",
                                  [(b"accept-language", b"nl-NL,nl;q=0.9,en;q=0.5"), (b"transfer-encoding", b"chunked")],
                                  b"x" * 50)
    assert status == 413 and answer["code"] == "body_too_large"
    assert answer["detail"] == "de inhoud van het verzoek is groter dan de grens van 10 bytes"
    status, answer = _asgi_answer(asgi.application, "/api/games/", [(b"accept-language", b"nl")])
    assert status == 404 and answer["code"] == "not_found" and answer["detail"].startswith("de streamserver bedient alleen")
