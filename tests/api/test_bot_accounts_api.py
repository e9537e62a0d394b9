"""Bot accounts: an account a program plays, seated like the server's bots, playing through the
ordinary API with its own token."""

from __future__ import annotations

import pytest

from accounts.models import Account
from games.models import Seat
from tests.api.conftest import Player, register

pytestmark = pytest.mark.django_db


def _bot_account() -> Player:
    bot = register()
    marked = bot.post("/api/accounts/me/bot/")
    assert marked.status_code == 200, marked.content
    assert marked.json() == {"username": bot.username, "bot": True}
    return bot


def test_a_bot_account_is_seated_like_a_bot_and_plays_through_the_api():
    bot = _bot_account()
    person = register()
    created = person.post("/api/games/", {"rules": "terrafex", "players": 2}).json()
    seated = person.post(f"/api/games/{created['id']}/bots/", {"account": bot.username})
    assert seated.status_code == 201, seated.content
    game = seated.json()
    assert game["status"] == "active"
    assert [seat["username"] for seat in game["seats"]] == [person.username, bot.username]
    assert [g["id"] for g in bot.get("/api/games/", mine=1, status="active").json()["results"]] == [game["id"]]
    mover = bot if game["to_act"] == [1] else person
    listed = mover.get(f"/api/games/{game['id']}/legal-moves/").json()
    played = mover.submit(game["id"], listed["moves"][0], listed["seq"])
    assert played.status_code == 201, played.content


def test_marking_is_idempotent_and_only_for_an_account_that_never_played():
    bot = _bot_account()
    assert bot.post("/api/accounts/me/bot/").status_code == 200
    person = register()
    person.post("/api/games/", {"rules": "scavenge", "players": 2})
    refused = person.post("/api/accounts/me/bot/")
    assert refused.status_code == 409 and refused.json()["code"] == "account_has_played"
    assert not Account.objects.filter(user__username=person.username, is_bot=True).exists()


@pytest.mark.parametrize(
    "body, code",
    [
        ({"account": "nobody"}, "not_a_bot_account"),
        ({"account": "PERSON"}, "not_a_bot_account"),
        ({"account": "BOT", "bot": "random"}, "invalid_input"),
        ({}, "invalid_input"),
    ],
)
def test_bad_bot_account_seats_are_refused_and_change_nothing(body, code):
    bot, person = _bot_account(), register()
    names = {"BOT": bot.username, "PERSON": register().username}
    body = {key: names.get(value, value) for key, value in body.items()}
    game_id = person.post("/api/games/", {"rules": "scavenge", "players": 3}).json()["id"]
    refused = person.post(f"/api/games/{game_id}/bots/", body)
    assert refused.status_code == 400 and refused.json()["code"] == code
    assert Seat.objects.filter(game_id=game_id).count() == 1


def test_a_bot_account_takes_one_seat_of_a_game():
    bot, person = _bot_account(), register()
    game_id = person.post("/api/games/", {"rules": "scavenge", "players": 3}).json()["id"]
    assert person.post(f"/api/games/{game_id}/bots/", {"account": bot.username}).status_code == 201
    again = person.post(f"/api/games/{game_id}/bots/", {"account": bot.username})
    assert again.status_code == 409 and again.json()["code"] == "already_seated"


def test_becoming_a_bot_needs_the_bot_scope():
    person = register()
    key = person.post("/api/tokens/", {"scopes": ["read", "play"]}).json()["token"]
    refused = Player(person.username, key).post("/api/accounts/me/bot/")
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope" and "'bot'" in refused.json()["detail"]
    key = person.post("/api/tokens/", {"scopes": ["bot"]}).json()["token"]
    assert Player(person.username, key).post("/api/accounts/me/bot/").status_code == 200
