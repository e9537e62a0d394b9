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

from accounts import urls as accounts_urls
from analysis import urls as analysis_urls
from apikit import http_errors
from apikit import schema as kit_schema
from chat import urls as chat_urls
from competition import urls as competition_urls
from games import urls as games_urls
from hooks import urls as hooks_urls
from mail import urls as mail_urls
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db

FUZZED_REQUESTS_AT_LEAST = 1000
EXAMPLES_PER_OPERATION = 20  # 62 operations: some 1,240 requests


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
        for route in games_urls.urlpatterns + accounts_urls.urlpatterns + chat_urls.urlpatterns + hooks_urls.urlpatterns
            + mail_urls.urlpatterns + competition_urls.urlpatterns + analysis_urls.urlpatterns
        for method in _methods(route)
    }
    streams = {"gameStream", "gameChatStream", "accountStream"}  # not DRF views: documented by streams.schema
    assert streams <= operations
    streams.add("ready")  # nor is readiness (project.ops): documented by apikit.schema
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
    edge = set(kit_schema.EDGE_STATUS) | set(kit_schema.BODY_STATUS) | set(kit_schema.AUTH_STATUS)
    unused_anywhere = {"rules_error", "bot_error", "no_move_to_choose", "ambiguous_notation", "unknown_notation"}
    assert sorted(set(http_errors.STATUS) - unused_anywhere - documented) == []
    assert sorted(edge - documented) == []


def test_each_documented_code_has_the_status_it_is_answered_with(client):
    document = _schema(client)
    for name, body in _error_schemas(document).items():
        status = int(name[-3:])
        for code in body["properties"]["code"].get("enum", ()):
            assert kit_schema._status_of(code) == status, (name, code)


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


# --- the schema tells strict validators and generators the truth (issue 30, point 17) ---------


def test_the_schema_is_valid_openapi_for_a_strict_validator(client):
    from openapi_spec_validator import validate

    validate(_schema(client))


def _nodes(node):
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def test_no_nullable_without_a_type_and_no_email_default_that_is_not_an_email(client):
    document = _schema(client)
    assert [node for node in _nodes(document) if node.get("nullable") and "type" not in node] == []
    email = document["components"]["schemas"]["AccountInputRequest"]["properties"]["email"]
    assert all(node.get("default") != "" for node in _nodes(email))


def test_conditional_gets_and_retry_after_are_documented(client):
    document = _schema(client)
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            content = set(responses.get("200", {}).get("content", {}))
            streamed = bool(content) and content <= {"text/event-stream", "application/x-ndjson"}
            if method == "get" and "200" in responses and not streamed:  # a stream, or the export, has no ETag
                assert "ETag" in responses["200"].get("headers", {}), path
                assert "304" in responses, path
                assert any(p["name"] == "If-None-Match" and p["in"] == "header" for p in operation["parameters"]), path
            for status in ("429", "503"):
                if status in responses:
                    assert "Retry-After" in responses[status].get("headers", {}), (path, status)


def test_a_games_bots_items_and_its_time_control_are_described(client):
    body = _schema(client)["components"]["schemas"]["GameCreateInputRequest"]["properties"]
    item = body["bots"]["items"]
    assert set(item["properties"]) == {"seat", "bot", "level"} and item["required"] == ["seat", "bot"]
    assert item["additionalProperties"] is False
    assert body["time_control"]["type"] == ["object", "null"]  # OpenAPI 3.1: null is a type


def test_time_control_null_is_accepted_as_documented():
    player = register()
    game = player.post("/api/games/", {"rules": "toy_race", "players": 2, "time_control": None})
    assert game.status_code == 201, game.content
    assert game.json()["time_control"]["type"] == "correspondence"


@pytest.mark.parametrize("path, body, field", [
    ("/api/games/", {"rules": "toy_race", "players": 2, "privat": True}, "privat"),
    ("/api/games/", {"rules": "toy_race", "players": 2, "bots": [{"seat": 1, "bot": "random", "levle": 2}]},
     "bots[0].levle"),
    ("/api/accounts/", {"username": "someone_new", "password": "a long password", "emial": "x@example.org"}, "emial"),
    ("/api/webhooks/", {"url": "https://example.org/hook", "evnets": ["game_started"]}, "evnets"),
    ("/api/seeks/", {"rules": "toy_race", "players": 2, "time_control": {"type": "step", "seconds": 60},
                     "rating_range": {"min": 1000, "mxa": 2000}}, "rating_range.mxa"),
    ("/api/accounts/me/vacation/", {"on": True, "of": False}, "of"),
])
def test_an_unknown_field_in_a_body_is_refused_by_name_and_changes_nothing(path, body, field):
    from games.models import Game

    player = register()
    games_before = Game.objects.count()
    answer = player.post(path, body)
    assert (answer.status_code, answer.json()["code"]) == (400, "unknown_field"), answer.content
    assert repr(field) in answer.json()["detail"] and answer.json()["field"] == field
    assert Game.objects.count() == games_before


def test_a_move_body_with_an_unknown_field_is_refused_and_a_plain_one_is_not():
    game_id, seated = start_game("toy_race", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover = seated[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    odd = mover.post(f"/api/games/{game_id}/moves/", {"expected_seq": listed["seq"], "move": listed["moves"][0], "seqq": 1})
    assert (odd.status_code, odd.json()["code"], odd.json()["field"]) == (400, "unknown_field", "seqq")
    assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201


def test_an_unknown_leaderboard_is_404_and_a_real_empty_one_is_not(client):
    for path in ("/api/leaderboards/nonsense/whatever/", "/api/leaderboards/toy_race/whatever/",
                 "/api/leaderboards/nonsense/step/"):
        answer = client.get(path)
        assert (answer.status_code, answer.json()["code"]) == (404, "not_found"), path
    assert client.get("/api/leaderboards/toy_race/step/").status_code == 200


# --- hostile shapes where the schema says string or object (issue 30, point 5) ----------------

HOSTILE_VALUES = ["é", "🎲\u200b", ["step"], {"type": ["step"]}, {"type": {"x": 1}}, None, 10**30, -1, True, ""]


def test_hostile_shapes_in_every_body_field_and_in_invitation_links_get_no_server_error(client):
    """Each top-level body field of every operation, and `time_control.type`, and an invitation
    key in the link, replaced in turn by a non-ASCII string, a list, an object, null, a huge
    number...: never a 5xx, always the JSON error shape. Schemathesis generates what the schema
    allows; these are the shapes it allows and the server once crashed on."""
    document = _schema(client)
    host, seated = start_game("toy_race", 2)
    player = seated[0]
    player.client.raise_request_exception = False
    bad = []
    for path, item in document["paths"].items():
        concrete = re.sub(r"\{[a-z_]+_id\}", str(host), path).replace("{username}", player.username)
        concrete = re.sub(r"\{[a-z_]+\}", "x", concrete)
        for method, operation in item.items():
            if "streams" in operation.get("tags", []) or method not in ("get", "post", "patch", "put"):
                continue
            if operation["operationId"] == "ready":
                continue  # its 503 is an answer (what this process cannot reach), not a failure
            if method == "get":
                for value in ("%C3%A9", "%F0%9F%8E%B2", "%00"):
                    answer = player.client.get(f"{concrete}?invitation={value}")
                    if answer.status_code >= 500:
                        bad.append((method, concrete, value, answer.status_code))
                continue
            content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            ref = content.get("schema", {}).get("$ref", "")
            fields = document["components"]["schemas"].get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
            for name in [*fields, "invitation"]:
                for value in HOSTILE_VALUES:
                    shaped = [{name: value}]
                    if name == "time_control":
                        shaped.append({"rules": "toy_race", "players": 2, name: {"type": value}})
                    for body in shaped:
                        answer = getattr(player.client, method)(concrete, body, format="json")
                        if answer.status_code >= 500 or not answer["Content-Type"].startswith("application/json"):
                            bad.append((method, concrete, body, answer.status_code))
    assert bad == []


def test_the_text_board_documents_its_text_and_its_errors_in_json(client):
    responses = _schema(client)["paths"]["/api/games/{game_id}/board.txt"]["get"]["responses"]
    assert list(responses["200"]["content"]) == ["text/plain"]
    assert all(list(response["content"]) == ["application/json"] for status, response in responses.items() if status >= "400")


# --- what generators need (issue 53) ------------------------------------------------------------


def test_no_composition_beside_nullable_anywhere(client):
    """OpenAPI 3.1: a nullable reference is a oneOf with null; `allOf` beside `nullable` is what
    generators ignored (SeatSummary.bot, GameDetail.draw_offer, GameDetail.takeback_request)."""
    document = _schema(client)
    assert document["openapi"] == "3.1.0"
    assert [node for node in _nodes(document) if "nullable" in node] == []
    schemas = document["components"]["schemas"]
    for holder, name in (("SeatSummary", "bot"), ("GameDetail", "draw_offer"), ("GameDetail", "takeback_request")):
        assert {"type": "null"} in schemas[holder]["properties"][name]["oneOf"], (holder, name)


def test_operations_without_credentials_say_so_and_the_others_name_them(client):
    document = _schema(client)
    security = {op["operationId"]: op["security"] for item in document["paths"].values() for op in item.values()}
    for anonymous in ("accountCreate", "tokenObtain", "health", "ready"):
        assert security[anonymous] == [], anonymous
    assert security["moveSubmit"] == [{"tokenAuth": []}, {"bearerAuth": []}, {"oauth2": ["play"]}, {"cookieAuth": []}]
    assert {} in security["gameGet"]  # a public game: a token is welcome, not needed
    assert {"oauth2": ["read"]} in security["gameGet"] and {"oauth2": ["account"]} in security["accountGet"]
    assert all(value == [] or {"tokenAuth": []} in value and {"bearerAuth": []} in value for value in security.values())


def test_the_security_schemes_describe_tokens_bearer_and_the_oauth_flow(client):
    """Personal tokens as `Token` or `Bearer`, and OAuth's authorization code flow with the
    personal tokens' scopes (accounts.oauth)."""
    schemes = _schema(client)["components"]["securitySchemes"]
    assert schemes["tokenAuth"]["type"] == "apiKey" and schemes["tokenAuth"]["in"] == "header"
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}
    flow = schemes["oauth2"]["flows"]["authorizationCode"]
    assert (flow["authorizationUrl"], flow["tokenUrl"], flow["refreshUrl"]) == ("/oauth/authorize/", "/oauth/token/", "/oauth/token/")
    assert set(flow["scopes"]) == {"read", "play", "bot", "webhooks", "account"}


def test_streams_name_their_media_types_and_item_schemas(client):
    document = _schema(client)
    for path, item in (("/api/games/{game_id}/stream/", "GameStreamItem"),
                       ("/api/games/{game_id}/chat/stream/", "ChatStreamItem"), ("/api/stream/", "AccountStreamItem")):
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        assert set(content) == {"text/event-stream", "application/x-ndjson"}
        assert content["application/x-ndjson"]["schema"]["$ref"] == f"#/components/schemas/{item}"
        assert item in content["text/event-stream"]["schema"]["description"]
        assert document["components"]["schemas"][item]["oneOf"]
    assert document["paths"]["/api/ready/"]["get"]["responses"]["503"]


def test_the_schema_is_built_once_per_process_and_answers_304_to_its_etag(client, monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    from project import schema_view

    schema_view.forget()
    built = []
    real = SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema", lambda self, *a, **k: built.append(1) or real(self, *a, **k))
    accept = "application/vnd.oai.openapi+json"
    first = client.get("/api/schema/", HTTP_ACCEPT=accept)
    again = client.get("/api/schema/", HTTP_ACCEPT=accept)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert len(built) == 1
    assert first["ETag"] == again["ETag"]
    unchanged = client.get("/api/schema/", HTTP_ACCEPT=accept, HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304 and unchanged.content == b""
    yaml = client.get("/api/schema/?lang=xx-made-up&version=9")
    assert yaml.status_code == 200 and yaml["ETag"] != first["ETag"] and len(built) == 2  # one more format
    client.get("/api/schema/?lang=yy-made-up")
    assert len(built) == 2  # an unknown language is the default document: no new build


def test_the_scope_each_operation_names_is_the_one_its_security_asks_for_and_the_server_checks(client):
    """A summary's `[scope: x]` is written by hand (`apikit.schema.operation`); the `oauth2`
    requirement comes from the view's `scopes`, which the server checks (`accounts.auth`). They
    drifted twice (invitation cancel checked nothing, chatMute named another scope): every
    operation that takes credentials names one scope, the same in both places, and one of the
    scopes personal tokens and OAuth apps share."""
    from accounts import auth
    from accounts.oauth import SCOPE_WORDS

    document = _schema(client)
    drifted = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            named = re.findall(r"\[scope: ([a-z]+)\]", f"{op.get('summary', '')} {op.get('description', '')}")
            listed = [scope for option in op["security"] for scope in option.get("oauth2", [])]
            takes_credentials = op["security"] != []
            if named != listed or len(named) != int(takes_credentials) or not set(named) <= set(auth.SCOPES):
                drifted.append((method, path, op["operationId"], named, listed))
    assert drifted == []
    flow = document["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert set(flow["scopes"]) == set(auth.SCOPES) == set(SCOPE_WORDS)


def test_stream_operations_document_only_what_they_do():
    """The account's stream answers 401 without an account, so it is not anonymous (`{}`); a
    public game's streams are. A stream sends no ETag and never answers 304 (its body is live):
    none of them documents If-None-Match."""
    from django.test import Client

    document = _schema(Client())
    operations = [op for item in document["paths"].values() for op in item.values()]
    streams = {op["operationId"]: op for op in operations if "streams" in op.get("tags", [])}
    assert set(streams) == {"gameStream", "gameChatStream", "accountStream"}
    assert {} not in streams["accountStream"]["security"]
    assert {"oauth2": ["read"]} in streams["accountStream"]["security"]
    assert {} in streams["gameStream"]["security"] and {} in streams["gameChatStream"]["security"]
    for name, op in streams.items():
        assert "304" not in op["responses"], name
        assert "ETag" not in op["responses"]["200"].get("headers", {}), name
        assert "If-None-Match" not in [parameter["name"] for parameter in op.get("parameters", [])], name
    assert "304" in document["paths"]["/api/games/{game_id}/"]["get"]["responses"]  # the DRF reads still do


def test_the_export_is_documented_as_the_ndjson_it_always_streams(client):
    op = _schema(client)["paths"]["/api/players/{username}/games/"]["get"]
    success = op["responses"]["200"]
    assert list(success["content"]) == ["application/x-ndjson"]  # no JSON document: a generator parsed it as one
    assert "RecordAnswer" in success["content"]["application/x-ndjson"]["schema"]["description"]
    assert "X-Games-Count" in success["headers"] and "ETag" not in success["headers"] and "304" not in op["responses"]
    assert [parameter["name"] for parameter in op["parameters"]] == ["result", "rules", "since", "until", "username"]


def test_accept_parameters_build_no_new_schema_and_the_answer_has_its_formats_own_media_type(client, monkeypatch):
    """The cache is keyed on what changes the document (its format, a known language or version),
    not on the client's Accept: `; x=N` for each N rebuilt it (a second of CPU) and kept each copy."""
    from drf_spectacular.generators import SchemaGenerator

    from project import schema_view

    schema_view.forget()
    built = []
    real = SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema", lambda self, *a, **k: built.append(1) or real(self, *a, **k))
    first = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    for accept in ("application/vnd.oai.openapi+json; x=1", "application/vnd.oai.openapi+json; x=2",
                   "application/vnd.oai.openapi+json; indent=8", "application/json; indent=2; y=3"):
        answer = client.get("/api/schema/", HTTP_ACCEPT=accept)
        assert answer.status_code == 200 and answer.content == first.content, accept
        assert answer["Content-Type"].split(";")[0] == accept.split(";")[0], accept
        assert "x=" not in answer["Content-Type"] and "indent" not in answer["Content-Type"], accept
    assert len(built) == 1
    yaml = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi; z=1")
    assert yaml["Content-Type"].startswith("application/vnd.oai.openapi") and "z=" not in yaml["Content-Type"]
    assert len(built) == 2 and len(schema_view._rendered) == 2


@pytest.mark.parametrize("query, accept, status, code", [("?format=xml", "*/*", 404, "not_found"),
                                                         ("", "text/html", 406, "not_acceptable")])
def test_a_schema_asked_in_a_format_it_has_not_is_refused_in_json(client, query, accept, status, code):
    """The schema's own renderers (YAML first) wrote the refusal in YAML."""
    refused = client.get(f"/api/schema/{query}", HTTP_ACCEPT=accept)
    assert refused["Content-Type"].startswith("application/json"), refused["Content-Type"]
    assert (refused.status_code, refused.json()["code"]) == (status, code)


def test_a_seeks_and_a_tournaments_time_control_are_described_as_a_games_is(client):
    """They were untyped JSON (a generated client's `time_control: Any`); required here, where a
    game's may be null."""
    schemas = _schema(client)["components"]["schemas"]
    for name in ("SeekCreateInputRequest", "TournamentCreateInputRequest"):
        field = schemas[name]["properties"]["time_control"]
        assert field["type"] == "object" and field["required"] == ["type"], (name, field)
        assert field["properties"]["type"]["enum"] == ["step", "correspondence", "bank", "none"]
        assert "time_control" in schemas[name]["required"]
