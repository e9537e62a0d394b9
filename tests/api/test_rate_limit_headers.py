"""RateLimit and RateLimit-Policy on every answer of the API (issue 53, item 6): each documented
operation, the readiness answer, the streams' doors on the web server, and the answers refused
before any view (an unknown URL, a body too large), before authentication (a bad token) or before
negotiation (406). And what the headers count: a request whose token is wrong counts against its
address, as one without a token does, so guessing tokens meets the address's limit."""

from __future__ import annotations

import re
import uuid

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db

# The fields as project.throttles writes them (draft-ietf-httpapi-ratelimit-headers: a list of
# items, each a quoted policy name with its parameters).
POLICY = re.compile(r'"([a-z_]+)";q=([0-9]+);w=([0-9]+)')
STANDING = re.compile(r'"([a-z_]+)";r=([0-9]+);t=([0-9]+)')


def _address() -> str:
    value = uuid.uuid4().int
    return f"10.{value % 250}.{value // 250 % 250}.{value // 62500 % 250 + 1}"


def _limits(settings, **rates):
    settings.SCRAPYARD_RATE_LIMITS = {**settings.SCRAPYARD_RATE_LIMITS, **rates}


def _items(header: str, pattern: re.Pattern) -> list[tuple[str, int, int]]:
    items = header.split(", ")
    matched = [pattern.fullmatch(item) for item in items]
    assert all(matched), header
    return [(m[1], int(m[2]), int(m[3])) for m in matched]


def limits_told(response) -> list[str]:
    """The limits an answer names, after checking that both headers are there and well formed:
    the same names in the same order, `q` and `w` positive, `r` at most `q`, `t` at most two
    windows (the sliding minute's last one may weigh until the end of this one)."""
    assert "RateLimit-Policy" in response and "RateLimit" in response, (response.status_code, dict(response.items()))
    policies = _items(response["RateLimit-Policy"], POLICY)
    standings = _items(response["RateLimit"], STANDING)
    assert [name for name, _, _ in policies] == [name for name, _, _ in standings]
    for (name, quota, window), (_, left, reset) in zip(policies, standings):
        assert quota > 0 and window > 0 and 0 <= left <= quota and 0 <= reset <= 2 * window, (name, quota, left, reset)
    return [name for name, _, _ in policies]


def test_the_answers_refused_before_any_view_and_before_authentication_say_where_the_caller_stands(settings):
    _limits(settings, address=600)
    client = APIClient(REMOTE_ADDR=_address())
    answers = {
        "401 bad Token": client.get("/api/games/", HTTP_AUTHORIZATION="Token nonsense"),
        "401 bad Bearer": client.get("/api/games/", HTTP_AUTHORIZATION="Bearer sy_nonsense"),
        "401 no credentials": client.get("/api/accounts/me/"),
        "404 unknown /api/ path": client.get("/api/no-such-thing/"),
        "406": client.get("/api/games/999999/board.txt", HTTP_ACCEPT="application/json"),
        "413": client.generic("POST", "/api/games/", b"{}", content_type="application/json",
                              CONTENT_LENGTH=str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)),
    }
    assert {name: answer.status_code for name, answer in answers.items()} == {
        name: int(name[:3]) for name in answers}
    for name, answer in answers.items():
        assert limits_told(answer) == ["address"], name
    # One address, one count: each answer counted once, in order.
    left = [_items(answer["RateLimit"], STANDING)[0][1] for answer in answers.values()]
    assert left == list(range(599, 593, -1))


def test_a_signed_in_callers_refusals_count_against_its_account():
    player = register()
    refused = [player.get("/api/games/999999/"), player.client.get("/api/games/999999/board.txt", HTTP_ACCEPT="application/json"),
               player.client.delete("/api/games/")]
    assert [answer.status_code for answer in refused] == [404, 406, 405]
    assert all(limits_told(answer) == ["account"] for answer in refused)


def test_ten_guessed_bearer_tokens_from_one_address_meet_its_limit_after_the_third(settings):
    _limits(settings, address=3)
    address = _address()
    guesses = [APIClient(REMOTE_ADDR=address).get("/api/games/", HTTP_AUTHORIZATION=f"Bearer sy_{uuid.uuid4().hex}")
               for _ in range(10)]
    assert [guess.status_code for guess in guesses] == [401] * 3 + [429] * 7
    refused = guesses[-1]
    assert refused.json()["code"] == "rate_limited" and int(refused["Retry-After"]) > 0
    assert limits_told(refused) == ["address"]
    assert refused["RateLimit"] == f'"address";r=0;t={refused["Retry-After"]}'
    # A missing token on an operation that needs one counts the same way.
    assert APIClient(REMOTE_ADDR=address).get("/api/accounts/me/").status_code == 429


def test_a_valid_token_is_counted_against_its_account_not_its_address(settings):
    """The address's count is for callers without an account (documented: 600 a minute per
    address without one): guesses from an address do not refuse the accounts signing in from it."""
    _limits(settings, address=3, account=1000)
    address = _address()
    for _ in range(5):
        APIClient(REMOTE_ADDR=address).get("/api/games/", HTTP_AUTHORIZATION="Token nonsense")
    player = register()
    signed_in = APIClient(REMOTE_ADDR=address)
    signed_in.credentials(HTTP_AUTHORIZATION=f"Bearer {player.token}")
    answers = [signed_in.get("/api/games/") for _ in range(5)]
    assert [answer.status_code for answer in answers] == [200] * 5
    assert all(limits_told(answer) == ["account"] for answer in answers)


@pytest.mark.parametrize("probe", ["/api/ready/", "/api/health/"])
def test_the_probes_say_where_their_caller_stands_and_are_never_refused(settings, probe):
    """A load balancer that got a 429 from readiness would take a healthy node out, a liveness
    probe would restart a healthy process: each counts against its caller's address and tells it
    so, but answers whatever the count, and its schema promises no 429."""
    _limits(settings, address=2)
    client = APIClient(REMOTE_ADDR=_address())
    answers = [client.get(probe) for _ in range(4)]
    assert {answer.status_code for answer in answers} <= {200, 503} and all(
        limits_told(answer) == ["address"] for answer in answers)
    assert answers[-1]["RateLimit"].startswith('"address";r=0;')
    assert client.get("/api/rules/").status_code == 429  # counted: the address is at its limit
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json", REMOTE_ADDR=_address()).json()
    assert "429" not in document["paths"][probe]["get"]["responses"]


# --- every documented operation ----------------------------------------------------------------


def _filled(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{([a-z_]+)\}", lambda m: values.get(m[1], "999999"), path)


def test_every_documented_operation_answers_with_both_headers(client):
    """A representative request for every operation of the schema (whatever it answers: an error
    must carry them too), signed in, and the schema's own pages beside them."""
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    game_id, (player, other) = start_game("toy_race", 2)
    values = {"game_id": str(game_id), "username": other.username, "rules_id": "toy_race", "time_class": "correspondence"}
    operations = [(method, path) for path, item in document["paths"].items() for method in item
                  if method in ("get", "post", "put", "patch", "delete")]
    operations.sort(key=lambda operation: operation[0] == "delete")  # what deletes things last
    assert len(operations) > 50
    for method, path in operations:
        answer = getattr(player.client, method)(_filled(path, values), {}, format="json")
        assert limits_told(answer), (method, path, answer.status_code)
        if answer.status_code == 401:  # its token revoked or replaced by the operation: a new account
            player = register()
    for path in ("/api/schema/", "/api/docs/", "/api/redoc/"):
        assert limits_told(client.get(path)), path


def test_the_schema_documents_both_headers_on_every_answer_of_every_operation(client):
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                assert {"RateLimit", "RateLimit-Policy"} <= set(response.get("headers", {})), (method, path, status)
            if "streams" in operation.get("tags", []):  # opening a stream counts, and may be refused
                assert "Retry-After" in operation["responses"]["429"]["headers"], path
    assert "429" not in document["paths"]["/api/ready/"]["get"]["responses"]  # never refused
