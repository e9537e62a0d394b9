"""Challenges are private rated games with a named invitee: the invitee sees it, accepts by
joining (or declines), and the result changes both ratings."""

from __future__ import annotations

import pytest

from tests.api.conftest import register

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_rated_challenge_accepted_changes_both_ratings():
    challenger, challenged = register(), register()
    made = challenger.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True, "rated": True,
                                           "invitees": [challenged.username],
                                           "time_control": {"type": "correspondence", "days": 3}})
    assert made.status_code == 201, made.content
    game_id = made.json()["id"]
    assert [g["game"] for g in challenged.get("/api/invitations/").json()] == [game_id]
    assert challenged.post(f"/api/games/{game_id}/join/").status_code == 201
    assert challenger.post(f"/api/games/{game_id}/resign/").status_code in (200, 201)
    won = challenged.get(f"/api/players/{challenged.username}/").json()
    lost = challenged.get(f"/api/players/{challenger.username}/").json()
    assert won["wins"] == 1 and lost["losses"] == 1
    assert won["ratings"][0]["time_class"] == "correspondence" and won["ratings"][0]["rating"] > 1500
    assert [point["game"] for point in won["ratings"][0]["history"]] == [game_id]


def test_a_declined_challenge_is_gone_and_a_casual_one_rates_nobody():
    challenger, challenged = register(), register()
    made = challenger.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                           "invitees": [challenged.username]}).json()
    assert made["rated"] is False
    assert challenged.post(f"/api/games/{made['id']}/decline/").status_code == 204
    assert challenged.get("/api/invitations/").json() == []
    missing = challenged.get("/api/players/nobody-at-all/")
    assert missing.status_code == 404 and missing.json()["code"] == "player_not_found"
    assert challenged.get(f"/api/players/{challenger.username}/").json()["ratings"] == []


def test_a_leaderboard_never_mixes_two_player_and_multiplayer_pools():
    players = [register() for _ in range(3)]
    for body_players, seated in ((2, players[:2]), (3, players)):
        made = seated[0].post("/api/games/", {"rules": "toy_race", "players": body_players, "rated": True,
                                              "time_control": {"type": "step", "seconds": 60}}).json()
        for player in seated[1:]:
            player.post(f"/api/games/{made['id']}/join/")
        for player in seated[1:]:  # every seat but the first resigns: the game ends
            player.post(f"/api/games/{made['id']}/resign/")
    duel = players[0].get("/api/leaderboards/toy_race/step/").json()
    assert duel["system"] == "glicko2" and len(duel["people"]) == 2
    multi = players[0].get("/api/leaderboards/toy_race/step/", system="plackett_luce").json()
    assert multi["system"] == "plackett_luce" and len(multi["people"]) == 3
    assert {p["system"] for p in players[0].get("/api/leaderboards/").json()} == {"glicko2", "plackett_luce"}
