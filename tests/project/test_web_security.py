"""Browser-facing defences: a Content-Security-Policy with no inline script on every answer, HSTS
and Secure cookies behind TLS (DJANGO_SECURE=1), and a stream server that shares its streams
only with the configured origins and serves nothing but the stream routes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.testing import ApplicationCommunicator
from django.test import AsyncClient, Client

from tests.streams.test_game_stream import _run

ROOT = Path(__file__).resolve().parents[2]
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def _policy(answer) -> dict[str, str]:
    return {part.split()[0]: part for part in (p.strip() for p in answer["Content-Security-Policy"].split(";")) if part}


@pytest.mark.django_db
@pytest.mark.parametrize("stream_url", ["", "http://streams.example:8001"])
def test_pages_and_api_answers_carry_a_policy_that_runs_no_inline_script(settings, stream_url):
    # "": the streams on the site's own origin, `make run`'s default (the policy's cache once took
    # that empty URL for the one it had made a policy for, and sent an empty policy).
    settings.SCRAPYARD_STREAM_URL = stream_url
    client = Client()
    for path in ("/", "/login/", "/api/docs/", "/api/rules/", "/admin/login/"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        policy = _policy(answer)
        assert policy["script-src"] == "script-src 'self'", path  # no 'unsafe-inline', no 'unsafe-eval'
        assert "frame-ancestors 'none'" in answer["Content-Security-Policy"]
        assert settings.SCRAPYARD_STREAM_URL.rstrip("/") in policy["connect-src"]
        if answer["Content-Type"].startswith("text/html"):
            assert not INLINE_SCRIPT.findall(answer.content.decode()), f"{path} has an inline script"


def _fresh_process(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings", **env}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)


SECURE_PROBE = """
import django, json
django.setup()
from django.test import Client
answer = Client().get('/login/', secure=True)
cookie = answer.cookies.get('csrftoken')
print(json.dumps({'hsts': answer.get('Strict-Transport-Security'), 'csrf_secure': bool(cookie and cookie['secure'])}))
from django.conf import settings
print(json.dumps({'session': settings.SESSION_COOKIE_SECURE, 'proxy': list(settings.SECURE_PROXY_SSL_HEADER or [])}))
"""


def test_behind_tls_hsts_and_secure_cookies_are_switched_on_by_django_secure():
    on = _fresh_process(SECURE_PROBE, DJANGO_SECURE="1", DJANGO_DEBUG="1")
    off = _fresh_process(SECURE_PROBE, DJANGO_SECURE="", DJANGO_DEBUG="1")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    answer, configured = (json.loads(line) for line in on.stdout.splitlines()[-2:])
    assert answer["hsts"].startswith("max-age=31536000") and answer["csrf_secure"]
    assert configured == {"session": True, "proxy": ["HTTP_X_FORWARDED_PROTO", "https"]}
    answer, configured = (json.loads(line) for line in off.stdout.splitlines()[-2:])
    assert answer["hsts"] is None and not answer["csrf_secure"] and configured["session"] is False


@pytest.mark.django_db(transaction=True)
def test_the_stream_server_shares_streams_only_with_the_configured_origins(settings):
    settings.SCRAPYARD_SITE_URL = "http://127.0.0.1:8000"
    settings.SCRAPYARD_WEB_ORIGINS = ["https://client.example.org"]

    async def ask(origin: str):
        answer = await AsyncClient().get("/api/games/999999/stream/", headers={"Origin": origin})
        return answer.get("Access-Control-Allow-Origin"), answer.get("Access-Control-Allow-Credentials")

    async def all_of_them():
        return [await ask(origin) for origin in (
            "http://127.0.0.1:8000", "https://client.example.org", "http://127.0.0.1:9999", "http://127.0.0.1",
            "http://evil.example.org",
        )]

    site, configured, other_port, no_port, stranger = _run(all_of_them)
    assert site == ("http://127.0.0.1:8000", "true") and configured == ("https://client.example.org", "true")
    assert other_port == no_port == stranger == (None, None)


async def _served(path: str) -> tuple[int, bytes]:
    from project.asgi import application

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8001")], "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8001)}
    talk = ApplicationCommunicator(application, scope)
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(timeout=10)
    body = await talk.receive_output(timeout=10)
    await talk.wait(timeout=10)
    return start["status"], body.get("body", b"")


@pytest.mark.django_db(transaction=True)
def test_the_stream_server_serves_the_stream_routes_only():
    for path in ("/admin/", "/admin/login/", "/api/games/", "/api/accounts/", "/", "/api/docs/", "/api/games/1/"):
        status, body = _run(lambda: _served(path))
        assert (status, json.loads(body)["code"]) == (404, "not_found"), path
    status, body = _run(lambda: _served("/api/games/999999/stream/"))  # reaches the stream view
    assert (status, json.loads(body)["code"]) == (404, "game_not_found")


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_the_stream_server_answers_its_liveness_and_readiness_for_the_load_balancer():
    """A load balancer (and a node joining: docs/scaling.md) asks each port's /api/ready/; the
    stream server answered 404 to it, so no node behind the proxy ever looked ready (bench.cluster)."""
    status, body = _run(lambda: _served("/api/health/"))
    assert status == 200
    status, body = _run(lambda: _served("/api/ready/"))
    assert status == 200 and json.loads(body)["subscription"] == "ok", body
