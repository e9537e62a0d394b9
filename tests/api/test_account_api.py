"""`/api/accounts/me/`: the account's email and which notices it wants by email."""

from __future__ import annotations

import pytest

from tests.api.conftest import register

pytestmark = pytest.mark.django_db


def test_every_notice_is_wanted_until_turned_off():
    player = register(email="p@example.org")
    me = player.get("/api/accounts/me/").json()
    assert me["email"] == "p@example.org" and me["bot"] is False
    assert me["notify"] == {"game_started": True, "your_turn": True, "deadline_warning": True, "game_over": True}
    changed = player.client.patch("/api/accounts/me/", {"notify": {"your_turn": False}}, format="json").json()
    assert changed["notify"]["your_turn"] is False and changed["notify"]["game_over"] is True
    again = player.client.patch("/api/accounts/me/", {"email": "new@example.org"}, format="json").json()
    assert again["email"] == "new@example.org" and again["notify"]["your_turn"] is False


@pytest.mark.parametrize(
    "body", [{"email": "not an address"}, {"notify": {"everything": True}}, {"notify": {"your_turn": "maybe"}}]
)
def test_bad_settings_are_refused_and_change_nothing(body):
    player = register(email="p@example.org")
    response = player.client.patch("/api/accounts/me/", body, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_input", response.content
    assert player.get("/api/accounts/me/").json()["email"] == "p@example.org"


def test_the_account_needs_the_account_scope():
    player = register()
    key = player.post("/api/tokens/", {"scopes": ["read"]}).json()["token"]
    player.client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = player.get("/api/accounts/me/")
    assert response.status_code == 403 and response.json()["code"] == "missing_scope"
