"""`/api/webhooks/`: registering, reading, changing and deleting endpoints, their delivery log,
and the refusals, each with its code."""

from __future__ import annotations

import pytest

from hooks.models import Delivery, Endpoint
from tests.api.conftest import register

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.org/scrapyard"


def test_the_secret_is_shown_once_and_the_endpoint_is_listed_without_it():
    player = register()
    made = player.post("/api/webhooks/", {"url": URL, "events": ["your_turn", "game_over"], "description": "my bot"})
    assert made.status_code == 201
    body = made.json()
    assert body["secret"].startswith("whsec_") and body["events"] == ["game_over", "your_turn"]
    assert body["active"] is True and body["game"] is None and body["description"] == "my bot"
    listed = player.get("/api/webhooks/").json()
    assert [entry["id"] for entry in listed] == [body["id"]] and "secret" not in listed[0]
    assert "secret" not in player.get(f"/api/webhooks/{body['id']}/").json()
    assert register().get("/api/webhooks/").json() == []


def test_an_endpoint_may_follow_one_game_and_not_a_missing_one():
    player = register()
    game_id = player.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert player.post("/api/webhooks/", {"url": URL, "game": game_id}).json()["game"] == game_id
    missing = player.post("/api/webhooks/", {"url": URL, "game": game_id + 1000})
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


@pytest.mark.parametrize(
    "body",
    [{}, {"url": URL, "events": []}, {"url": URL, "events": ["everything"]}, {"url": URL, "game": 0}, {"url": ["x"]}],
)
def test_a_malformed_registration_is_refused_and_stores_nothing(body):
    response = register().post("/api/webhooks/", body)
    assert response.status_code == 400 and response.json()["code"] == "invalid_input", response.content
    assert not Endpoint.objects.exists()


@pytest.mark.parametrize("url, english, dutch", [
    ("http://127.0.0.1:6379/", "webhooks may not reach 127.0.0.1: it is this machine",
     "webhooks mogen 127.0.0.1 niet bereiken: dat is deze machine zelf"),
    ("http://localhost./", "webhooks may not reach localhost: it is this machine",
     "webhooks mogen localhost niet bereiken: dat is deze machine zelf"),
    ("http://[::ffff:10.0.0.1]/", "webhooks may not reach ::ffff:10.0.0.1: it is not a public address",
     "webhooks mogen ::ffff:10.0.0.1 niet bereiken: dat is geen openbaar adres"),
])
def test_a_refused_address_is_said_in_a_sentence_of_the_readers_language(url, english, dutch):
    """The refusal once glued an English reason into the sentence ("may not reach 127.0.0.1 is
    not a public address"), untranslated in Dutch."""
    player = register()
    answer = player.post("/api/webhooks/", {"url": url})
    assert (answer.status_code, answer.json()["code"], answer.json()["detail"]) == (400, "url_not_allowed", english)
    answer = player.client.post("/api/webhooks/", {"url": url}, format="json", HTTP_ACCEPT_LANGUAGE="nl")
    assert (answer.status_code, answer.json()["detail"]) == (400, dutch)
    assert not Endpoint.objects.exists()


def test_an_account_may_have_twenty_endpoints(settings):
    player = register()
    for n in range(settings.SCRAPYARD_WEBHOOKS_PER_ACCOUNT):
        assert player.post("/api/webhooks/", {"url": f"{URL}/{n}"}).status_code == 201
    over = player.post("/api/webhooks/", {"url": URL})
    assert over.status_code == 409 and over.json()["code"] == "too_many_webhooks"


def test_an_endpoint_is_changed_paused_resumed_and_deleted_by_its_owner_alone():
    owner, stranger = register(), register()
    hook = owner.post("/api/webhooks/", {"url": URL}).json()
    path = f"/api/webhooks/{hook['id']}/"
    changed = owner.client.patch(path, {"url": URL + "/v2", "events": ["ping", "game_over"][1:]}, format="json")
    assert changed.status_code == 200 and changed.json()["url"] == URL + "/v2" and changed.json()["events"] == ["game_over"]
    paused = owner.client.patch(path, {"active": False}, format="json").json()
    assert paused["active"] is False and paused["disabled_at"] and paused["disabled_reason"] == "paused by its owner"
    resumed = owner.client.patch(path, {"active": True}, format="json").json()
    assert resumed["active"] is True and resumed["disabled_at"] is None
    refused = owner.client.patch(path, {"url": "http://192.168.0.1/"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "url_not_allowed"

    for response in (stranger.get(path), stranger.client.delete(path), stranger.client.patch(path, {}, format="json")):
        assert response.status_code == 404 and response.json()["code"] == "webhook_not_found"
    assert owner.client.delete(path).status_code == 204
    assert owner.get(path).status_code == 404 and not Endpoint.objects.exists()


def test_the_delivery_log_pages_newest_first():
    player = register()
    hook = player.post("/api/webhooks/", {"url": URL}).json()
    endpoint = Endpoint.objects.get()
    for n in range(5):
        Delivery.objects.create(endpoint=endpoint, webhook_id=f"msg_{n}", type="ping", payload={"n": n})
    first = player.get(f"/api/webhooks/{hook['id']}/deliveries/", limit=3).json()
    assert [entry["payload"]["n"] for entry in first["deliveries"]] == [4, 3, 2]
    rest = player.get(f"/api/webhooks/{hook['id']}/deliveries/", limit=3, before=first["next_before"]).json()
    assert [entry["payload"]["n"] for entry in rest["deliveries"]] == [1, 0] and rest["next_before"] is None
    bad = player.get(f"/api/webhooks/{hook['id']}/deliveries/", limit=0)
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"


def test_replaying_what_is_not_there_is_refused():
    player = register()
    hook = player.post("/api/webhooks/", {"url": URL}).json()
    missing = player.post(f"/api/webhooks/{hook['id']}/deliveries/999/replay/")
    assert missing.status_code == 404 and missing.json()["code"] == "delivery_not_found"
    other = register().post(f"/api/webhooks/{hook['id']}/ping/")
    assert other.status_code == 404 and other.json()["code"] == "webhook_not_found"


def test_webhooks_need_the_webhooks_scope():
    player = register()
    reader = player.post("/api/tokens/", {"scopes": ["read", "play"]}).json()["token"]
    hooker = player.post("/api/tokens/", {"scopes": ["webhooks"]}).json()["token"]
    player.client.credentials(HTTP_AUTHORIZATION=f"Token {reader}")
    for response in (player.get("/api/webhooks/"), player.post("/api/webhooks/", {"url": URL})):
        assert response.status_code == 403 and response.json()["code"] == "missing_scope"
        assert "webhooks" in response.json()["detail"]
    player.client.credentials(HTTP_AUTHORIZATION=f"Token {hooker}")
    assert player.post("/api/webhooks/", {"url": URL}).status_code == 201
    player.client.credentials()
    assert player.get("/api/webhooks/").status_code == 401
