"""The OpenAPI schema: served, complete (every error code of every operation), with a docs page
that works offline, and honoured by the server under property-based fuzzing (schemathesis)
against a live server on PostgreSQL."""

from __future__ import annotations

import json
import re

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from hypothesis import HealthCheck, given, settings
from schemathesis import checks

from competition import urls as competition_urls
from games import http_errors
from games import schema as games_schema
from games import urls as games_urls
from hooks import urls as hooks_urls
from mail import urls as mail_urls
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db

FUZZED_REQUESTS_AT_LEAST = 1000
EXAMPLES_PER_OPERATION = 60  # 62 operations: some 3,700 requests


def _schema(client) -> dict:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def _methods(route) -> list[str]:
    view = route.callback.view_class
    return [method for method in ("get", "post", "put", "patch", "delete") if hasattr(view, method)]


def _error_schemas(document: dict) -> dict[str, dict]:
    return {name: body for name, body in document["components"]["schemas"].items() if re.search(r"Error\d{3}$", name)}


def test_the_schema_is_served_and_documents_every_operation(client):
    document = _schema(client)
    assert document["openapi"].startswith("3.")
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    assert {"moveSubmit", "gameCreate", "gameEvents", "legalMoves", "health", "tokenCreate", "webhookCreate"} <= operations
    routes = {
        (str(route.pattern), method)
        for route in games_urls.urlpatterns + hooks_urls.urlpatterns + mail_urls.urlpatterns + competition_urls.urlpatterns
        for method in _methods(route)
    }
    streams = {"gameStream", "gameChatStream", "accountStream"}  # not DRF views: documented by streams.schema
    assert streams <= operations
    canonical = {(path, method) for path, method in routes if path.endswith(("/", ".txt"))}
    assert len(operations - streams) == len(canonical)
    assert all(path.endswith(("/", ".txt")) for path in document["paths"])
    assert client.get("/api/schema/").status_code == 200  # YAML by default


def test_every_error_code_is_in_the_schema_with_the_code_and_detail_shape(client):
    document = _schema(client)
    errors = _error_schemas(document)
    documented = set()
    for body in errors.values():
        assert {"code", "detail"} <= set(body["required"])
        code = body["properties"]["code"]
        documented |= set(code.get("enum", ()))
        documented |= set(re.findall(r"`([a-z_]+)`", code.get("description", "")))
    edge = set(games_schema.EDGE_STATUS) | set(games_schema.BODY_STATUS) | set(games_schema.AUTH_STATUS)
    unused_anywhere = {"rules_error", "bot_error", "no_move_to_choose", "ambiguous_notation", "unknown_notation"}
    assert sorted(set(http_errors.STATUS) - unused_anywhere - documented) == []
    assert sorted(edge - documented) == []


def test_each_documented_code_has_the_status_it_is_answered_with(client):
    document = _schema(client)
    for name, body in _error_schemas(document).items():
        status = int(name[-3:])
        for code in body["properties"]["code"].get("enum", ()):
            assert games_schema._status_of(code) == status, (name, code)


def test_the_docs_page_works_offline(client):
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the docs page loads something from another host"
    assets = re.findall(r"""(?:src|href)=["']/static/([^"']+)["']""", html)
    assert assets and all(finders.find(asset) for asset in assets)


# --- fuzzing ----------------------------------------------------------------------------------


@pytest.fixture
def fuzz_target(live_server, transactional_db):
    """A live server on the test database (PostgreSQL in CI), an account with a token, and games
    in every state for the fuzzer's game ids to find."""
    active, seated = start_game("scavenge", 2)
    fuzzer = seated[0]
    own_open = fuzzer.post("/api/games/", {"rules": "terrafex", "players": 2}).json()["id"]
    others_open = register().post("/api/games/", {"rules": "space_junkyard", "players": 3}).json()["id"]
    return live_server.url, fuzzer.token, [active, own_open, others_open]


def test_fuzzing_the_schema_finds_no_server_error_and_no_answer_off_the_schema(client, fuzz_target):
    base_url, token, game_ids = fuzz_target
    document = _schema(client)
    loaded = schemathesis.openapi.from_dict(document)
    sent = []
    failures = []

    for result in loaded.get_all_operations():
        operation = result.ok()
        if "streams" in operation.definition.raw.get("tags", []):
            continue  # a stream is not a request and an answer (tests/streams/)

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def fuzz(case):
            headers = {"Authorization": f"Token {token}"} if len(sent) % 5 else {}
            if "game_id" in (case.path_parameters or {}) and len(sent) % 4:
                case.path_parameters["game_id"] = game_ids[len(sent) % len(game_ids)]  # games that exist
            try:
                case.call_and_validate(
                    base_url=base_url,
                    headers=headers,
                    checks=[
                        checks.not_a_server_error,
                        checks.status_code_conformance,
                        checks.content_type_conformance,
                        checks.response_schema_conformance,
                    ],
                )
            except Exception as failure:  # every failure is collected, then reported at once
                failures.append(f"{case.method} {case.formatted_path}: {failure}")
            sent.append(case.operation.label)

        fuzz()

    assert failures == []
    assert len(sent) >= FUZZED_REQUESTS_AT_LEAST
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert len(set(sent)) == len([op for op in operations if "streams" not in op.get("tags", [])])
