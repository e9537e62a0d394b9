"""The HTTP edge (project.http): bodies and requests that once stored unreadable moves, crashed
the parser or answered in HTML now get a JSON refusal with a stable code, and change nothing."""

from __future__ import annotations

import logging
import os
import time

import pytest
from django.db import OperationalError, connection
from rest_framework.test import APIClient

from games.models import Event
from project import http
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db

JSON = "application/json"


def _raw_post(player, path: str, body: bytes, **extra):
    return player.client.generic("POST", path, body, content_type=JSON, **extra)


@pytest.fixture
def scavenge():
    game_id, seated = start_game("scavenge", 2)
    return game_id, seated


def _move_body(game_id: int, seated, text: str) -> bytes:
    """A legal move of the seat to act with a string field added in raw JSON text (so escapes
    such as \\ud800 reach the parser exactly as a client sent them)."""
    game = seated[0].get(f"/api/games/{game_id}/").json()
    seat = game["to_act"][0]
    listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
    move = dict(listed["moves"][0])
    fields = ", ".join(f'"{key}": {_json(value)}' for key, value in move.items())
    return seat, f'{{"expected_seq": {listed["seq"]}, "move": {{{fields}, "note": "{text}"}}}}'.encode()


def _json(value) -> str:
    import json

    return json.dumps(value)


@pytest.mark.parametrize(
    "text, code",
    [("\\ud800", "invalid_unicode"), ("a\\udfffb", "invalid_unicode"), ("\\u0000", "invalid_unicode")],
)
def test_a_move_holding_a_lone_surrogate_or_nul_is_refused_and_the_log_stays_readable(scavenge, text, code):
    game_id, seated = scavenge
    seat, body = _move_body(game_id, seated, text)
    before = Event.objects.filter(game_id=game_id).count()

    response = _raw_post(seated[seat], f"/api/games/{game_id}/moves/", body)

    assert (response.status_code, response.json()["code"]) == (400, code)
    assert Event.objects.filter(game_id=game_id).count() == before
    assert seated[0].get(f"/api/games/{game_id}/events/").status_code == 200


def test_a_body_that_is_not_utf8_is_refused(scavenge):
    game_id, seated = scavenge
    seat, body = _move_body(game_id, seated, "x")
    broken = body.replace(b'"x"', b'"\xed\xa0\x80"')  # a surrogate encoded as if it were UTF-8
    response = _raw_post(seated[seat], f"/api/games/{game_id}/moves/", broken)
    assert (response.status_code, response.json()["code"]) == (400, "invalid_unicode")


def test_only_a_body_with_a_unicode_escape_is_walked_for_unstorable_strings(monkeypatch):
    """NUL and lone surrogates come only through `\\u` escapes (raw ones are refused by the
    decoder), so a body of many containers and no escape is not walked (1 ms for 60 KB of empty
    arrays). A raw NUL in a string is still refused."""

    walked = []
    walk = http.refuse_unstorable_strings
    monkeypatch.setattr(http, "refuse_unstorable_strings", lambda data: (walked.append(data), walk(data)))
    player = register()
    many = b'{"rules": "scavenge", "players": 2, "options": {"a": [' + b"[]," * 5_000 + b"[]]}}"
    assert _raw_post(player, "/api/games/", many).json()["code"] != "invalid_unicode"
    assert walked == []
    raw_nul = _raw_post(player, "/api/games/", b'{"rules": "scav\x00enge", "players": 2}')  # a raw NUL
    assert (raw_nul.status_code, raw_nul.json()["code"]) == (400, "malformed_json")
    escaped = _raw_post(player, "/api/games/", b'{"rules": "scavenge", "players": 2, "options": {"a": "\\u0000"}}')
    assert (escaped.status_code, escaped.json()["code"]) == (400, "invalid_unicode")
    assert len(walked) == 1


def test_a_surrogate_in_a_key_or_deep_in_a_list_is_found():
    player = register()
    for body in (b'{"rules": "scavenge", "players": 2, "options": {"\\ud800": 1}}',
                 b'{"rules": "scavenge", "players": 2, "options": {"a": [[["\\u0000"]]]}}'):
        response = _raw_post(player, "/api/games/", body)
        assert (response.status_code, response.json()["code"]) == (400, "invalid_unicode"), body


@pytest.mark.parametrize("path", ["/api/accounts/", "/api/accounts/token/", "/api/games/", "/api/games/1/moves/",
                                  "/api/games/1/bots/", "/api/accounts/me/vacation/"])
def test_json_nested_a_thousand_levels_is_refused_on_every_endpoint(path):
    player = register()
    body = ("[" * 1000 + "]" * 1000).encode()
    response = _raw_post(player, path, body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "too_deep"


def test_brackets_inside_strings_do_not_count_as_nesting():
    player = register()
    body = b'{"rules": "' + b"[" * 500 + b'", "players": 2}'
    response = _raw_post(player, "/api/games/", body)
    assert response.json()["code"] != "too_deep"


def _depth_char_by_char(text: str) -> int:
    """The nesting depth read the plain way: one character at a time, skipping strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@pytest.mark.parametrize("text", [
    "", "1", "[]", "[[[]]]", '{"a": [1, {"b": [[]]}]}', "]]][[", "[" * 40 + "]" * 40, "[]," * 500 + "[]",
    '["[[[", "]]]", "\\"[[", "\\\\", [["x"]]]', '["unclosed [[[[', '{"é": ["ü", ["\U0001f600"]]}',
    "[\ud800[]]", '["\\u005b", []]', "[1, 2, [3, [4, [5]]], {}]",
])
def test_nesting_depth_counts_as_a_character_by_character_reading_does(text):
    assert http.nesting_depth(text) == _depth_char_by_char(text)


def test_malformed_json_has_its_own_code():
    response = _raw_post(register(), "/api/games/", b'{"rules": ')
    assert (response.status_code, response.json()["code"]) == (400, "malformed_json")


def test_a_number_longer_than_python_converts_is_refused_in_our_words_not_pythons():
    """A 5,000-digit integer is valid JSON that Python will not convert: the refusal told the
    client to `use sys.set_int_max_str_digits()`. It has a code of its own, and nothing is made."""
    player = register()
    response = _raw_post(player, "/api/games/", b'{"rules": "scavenge", "players": ' + b"9" * 5000 + b"}")
    assert (response.status_code, response.json()["code"]) == (400, "number_too_long")
    assert "sys." not in response.json()["detail"] and "4300" in response.json()["detail"]
    assert player.get("/api/games/?mine=true").json()["count"] == 0


def test_an_oversized_body_gets_json_413(settings):
    player = register()
    body = b'{"rules": "scavenge", "players": 2, "options": {"pad": "' + b"x" * 200_000 + b'"}}'
    response = _raw_post(player, "/api/games/", body)
    assert response.status_code == 413
    assert response["Content-Type"] == JSON
    assert response.json()["code"] == "body_too_large"


def test_a_body_longer_than_its_content_length_claims_is_still_cut_off(settings):
    """A chunked or lying body gets past the Content-Length check; the parser reads no more
    than the limit plus one byte."""
    from io import BytesIO

    from project.http import BodyTooLarge, StrictJSONParser

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    with pytest.raises(BodyTooLarge):
        StrictJSONParser().parse(BytesIO(b'{"a": "' + b"x" * 1000 + b'"}'))


def test_an_unknown_host_gets_json_400():
    response = APIClient().get("/api/rules/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_host"


def test_nul_in_the_query_string_or_a_header_is_refused(scavenge):
    game_id, seated = scavenge
    assert seated[0].client.get(f"/api/games/{game_id}/state/?at=%00").json()["code"] == "invalid_unicode"
    response = seated[0].post(f"/api/games/{game_id}/join/", **{"Idempotency-Key": "a\x00b"})
    assert (response.status_code, response.json()["code"]) == (400, "invalid_unicode")


def test_a_post_without_its_trailing_slash_creates_exactly_as_with_it():
    player = register()
    response = player.client.post("/api/games", {"rules": "scavenge", "players": 2}, format="json")
    assert response.status_code == 201, response.content
    game_id = response.json()["id"]
    assert player.client.get(f"/api/games/{game_id}").json()["id"] == game_id
    assert register().client.post(f"/api/games/{game_id}/join", format="json").status_code == 201


def test_unknown_paths_and_methods_answer_json():
    client = APIClient()
    for response, status, code in (
        (client.get("/api/no-such-thing/"), 404, "not_found"),
        (client.get("/nowhere"), 404, "not_found"),
        (client.delete("/api/rules/"), 405, "method_not_allowed"),
    ):
        assert (response.status_code, response.json()["code"]) == (status, code)


def test_a_database_error_in_a_view_answers_503_and_logs_one_line_per_outage(monkeypatch, caplog):
    from games import apis

    def unreachable(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1, port 1 failed: Connection refused")

    monkeypatch.setattr(apis.selectors, "game_list", unreachable)
    client = APIClient(raise_request_exception=False)
    with caplog.at_level(logging.INFO):
        answers = [client.get("/api/games/") for _ in range(5)]
    assert {(a.status_code, a.json()["code"], a["Retry-After"]) for a in answers} == {(503, "service_unavailable", "5")}
    lines = [r for r in caplog.records if "database unavailable" in r.getMessage()]
    assert len(lines) == 1
    assert not any(r.exc_info for r in caplog.records if r.name == "django.request")

    monkeypatch.undo()
    with caplog.at_level(logging.INFO):
        assert client.get("/api/games/").status_code == 200
    assert any("database available again" in r.getMessage() for r in caplog.records)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_postgresql_outage_answers_503_not_500(caplog):
    """The connection itself fails (a closed port), as when the server restarts."""
    client = APIClient(raise_request_exception=False)
    real = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        with caplog.at_level(logging.INFO):
            answers = [client.get("/api/games/") for _ in range(3)] + [client.get("/api/health/")]
    finally:
        connection.close()
        connection.settings_dict.update(real)
    for answer in answers[:3]:
        assert answer.status_code == 503 and answer.json()["code"] == "service_unavailable", answer.content
        assert answer["Retry-After"]
    assert answers[3].status_code == 503  # health says degraded
    assert not any(r.exc_info for r in caplog.records if r.name == "django.request")
    assert client.get("/api/rules/").status_code == 200


# --- the body checks cost time linear in the body (issue 30, point 2) -------------------------

def _parse_seconds(body: bytes) -> float:
    """The best of three runs of the API's JSON parser over `body`, refusal included."""
    import io
    import time

    from project.http import BadBody, StrictJSONParser

    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        try:
            StrictJSONParser().parse(io.BytesIO(body))
        except BadBody:
            pass
        best = min(best, time.perf_counter() - started)
    return best


def _sized(unit: bytes, size: int) -> bytes:
    return (unit * (size // len(unit) + 1))[:size]


_BODY_SIZE = 60 * 1024
PATHOLOGICAL_BODIES = {
    "unclosed escaped quotes": b'"' + _sized(b'\\"', _BODY_SIZE - 1),
    "escaped quotes, no opening quote": _sized(b'\\"', _BODY_SIZE),
    "unclosed escaped backslashes": b'"' + _sized(b"\\\\", _BODY_SIZE - 1),
    "quote then brackets": _sized(b'"[', _BODY_SIZE),
    "lone quotes and escapes": _sized(b'"\\', _BODY_SIZE),
    "only opening brackets": _sized(b"[", _BODY_SIZE),
}


def test_no_body_costs_the_parser_much_more_than_a_benign_body_of_its_size():
    """A ratio measured side by side, not seconds: the nesting check once ran a regex that was
    quadratic on unclosed quotes (64 KiB cost about 40 s of CPU)."""
    benign = b'{"username": "' + _sized(b"abcdefgh", _BODY_SIZE - 32) + b'", "password": "x"}'
    many_values = b"[" + _sized(b'"ab", ', _BODY_SIZE - 8) + b'"ab"]'
    baseline = max(_parse_seconds(benign), _parse_seconds(many_values), 1e-4)
    for name, body in PATHOLOGICAL_BODIES.items():
        assert len(body) == _BODY_SIZE
        ratio = _parse_seconds(body) / baseline
        assert ratio < 10, f"{name}: {ratio:.0f} times the benign body's parse time"


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL_BODIES))
def test_a_pathological_body_gets_a_json_400_anonymously(name):
    response = APIClient().generic("POST", "/api/accounts/", PATHOLOGICAL_BODIES[name], content_type=JSON)
    assert response.status_code == 400
    assert response.json()["code"] in {"malformed_json", "too_deep"}


# --- a dropped persistent connection is replaced (issue 30, point 11) -------------------------


def _get_through_django(handler, path: str) -> int:
    """A GET through Django's own WSGI handler, whose request signals keep connections between
    requests (the test client turns that off)."""
    import io

    answered = []
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "SERVER_NAME": "testserver", "SERVER_PORT": "80",
               "wsgi.input": io.BytesIO(b""), "wsgi.url_scheme": "http", "HTTP_HOST": "testserver"}
    response = handler(environ, lambda status, headers: answered.append(status))
    response.close()  # request_finished: the connection is kept (CONN_MAX_AGE)
    return int(answered[0].split()[0])


def _server_pid() -> int:  # asked of the server: behind PgBouncer the client's own pid is PgBouncer's
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _end_on_the_server(backend: int) -> None:
    """End a server connection as a database restart does, asked straight of PostgreSQL (.ci/run
    names it when the suite goes through PgBouncer)."""
    import psycopg

    settings = connection.settings_dict
    host = os.environ.get("POSTGRES_HOST", settings["HOST"])
    port = os.environ.get("POSTGRES_PORT", settings["PORT"] or 5432) if "POSTGRES_HOST" in os.environ else settings["PORT"] or 5432
    with psycopg.connect(host=host, port=port, user=settings["USER"], dbname=settings["NAME"], autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [backend])
        # The signal is sent at once; the backend says its last word and leaves a moment later,
        # as after a restart, which is over before the next request comes.
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [backend]).fetchone() and time.monotonic() < deadline:
            time.sleep(0.01)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_persistent_connection_the_database_dropped_is_replaced_not_reported():
    """The server ends this process's connection, as a database restart does, and the next
    request is answered from a new one."""
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()
    assert _get_through_django(handler, "/api/games/") == 200
    backend = _server_pid()
    _end_on_the_server(backend)
    assert [_get_through_django(handler, "/api/games/") for _ in range(2)] == [200, 200]
    assert _server_pid() != backend


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_costs_no_round_trip_to_check_and_is_asked_once_the_server_spoke(monkeypatch):
    """The health check looks at the idle socket (`project/postgresql/base.py`): a live
    connection's requests send no `SELECT 1`; once the server ended it (straight to PostgreSQL,
    where its last message reaches the socket), the check asks, finds it dead, and a new one
    answers."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.db.backends.postgresql import base as django_postgresql

    asked = []
    ask = django_postgresql.DatabaseWrapper.is_usable
    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", lambda self: asked.append(1) or ask(self))
    handler = WSGIHandler()
    assert [_get_through_django(handler, "/api/games/") for _ in range(3)] == [200, 200, 200]
    assert asked == []
    if "POSTGRES_HOST" in os.environ:
        return  # through PgBouncer, whose client connection lives on: the test above covers it
    backend = _server_pid()
    _end_on_the_server(backend)
    assert _get_through_django(handler, "/api/games/") == 200
    assert asked == [1] and _server_pid() != backend


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_an_error_asked_for_by_a_browser_is_json_not_an_html_page():
    """A browser's Accept (or `?format=api`) got DRF's browsable page, an HTML error page from the
    API: every answer of the API is JSON (or the plain text a text view offers); an Accept that
    admits no JSON at all gets a JSON 406."""
    player = register()
    for response, status, code in (
        (_raw_post(player, "/api/games/", b'{"rules": ', HTTP_ACCEPT=BROWSER_ACCEPT), 400, "malformed_json"),
        (player.client.delete("/api/rules/", HTTP_ACCEPT=BROWSER_ACCEPT), 405, "method_not_allowed"),
        (player.client.get("/api/games/999999/", HTTP_ACCEPT=BROWSER_ACCEPT), 404, "game_not_found"),
        (player.client.get("/api/rules/?format=api", HTTP_ACCEPT=BROWSER_ACCEPT), 404, "not_found"),
        (_raw_post(player, "/api/games/", b'{"rules": ', HTTP_ACCEPT="text/html"), 406, "not_acceptable"),
        (player.client.get("/api/rules/", HTTP_ACCEPT="text/html"), 406, "not_acceptable"),
    ):
        assert response["Content-Type"].startswith("application/json"), (response.status_code, response["Content-Type"])
        assert (response.status_code, response.json()["code"]) == (status, code)
    shown = player.client.get("/api/rules/", HTTP_ACCEPT=BROWSER_ACCEPT)
    assert shown.status_code == 200 and shown["Content-Type"].startswith("application/json")
