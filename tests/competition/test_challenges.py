"""Challenges are private games with a named invitee: the invitee sees it, accepts by joining
(or declines). A private game is never rated (`tests/competition/test_private_profiles.py`)."""

from __future__ import annotations

import pytest

from tests.api.conftest import register

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_challenge_accepted_is_played_and_rates_nobody():
    challenger, challenged = register(), register()
    made = challenger.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                           "invitees": [challenged.username],
                                           "time_control": {"type": "correspondence", "days": 3}})
    assert made.status_code == 201, made.content
    game_id = made.json()["id"]
    assert [g["game"] for g in challenged.get("/api/invitations/").json()] == [game_id]
    assert challenged.post(f"/api/games/{game_id}/join/").status_code == 201
    assert challenger.post(f"/api/games/{game_id}/resign/").status_code in (200, 201)
    assert challenged.get(f"/api/games/{game_id}/").json()["status"] == "finished"
    for player in (challenger, challenged):
        profile = challenged.get(f"/api/players/{player.username}/").json()
        assert profile["games"] == 0 and profile["ratings"] == []


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
    from competition.models import Rating

    Rating.objects.filter(system="glicko2").update(sigma=60, deviation=60)  # settled, as after many games
    Rating.objects.filter(system="plackett_luce").update(sigma=3, deviation=180)
    duel = players[0].get("/api/leaderboards/toy_race/step/").json()
    assert duel["system"] == "glicko2" and len(duel["people"]) == 2
    multi = players[0].get("/api/leaderboards/toy_race/step/", system="plackett_luce").json()
    assert multi["system"] == "plackett_luce" and len(multi["people"]) == 3
    assert {p["system"] for p in players[0].get("/api/leaderboards/").json()} == {"glicko2", "plackett_luce"}


def test_a_leaderboard_lists_settled_players_active_in_thirty_days_by_conservative_rating():
    import datetime as dt

    from django.utils import timezone

    from competition.models import Rating

    now = timezone.now()

    def rated(name, rating, deviation, days_ago):
        Rating.objects.create(player=f"x:{name}", name=name, rules="toy_race", time_class="step", system="glicko2",
                              mu=rating, sigma=deviation, volatility=0.06, rating=rating, deviation=deviation, games=40,
                              last_played_at=now - dt.timedelta(days=days_ago))

    rated("veteran", 1800, 50, 1)
    rated("steady", 1850, 90, 0)
    rated("lucky", 1900, 200, 0)  # one win: the highest rating, and provisional
    rated("gone", 2000, 50, 45)  # not seen for 45 days
    rated("rusty", 1900, 108, 29)  # settled when last seen; 29 days away make it provisional again
    board = register().get("/api/leaderboards/toy_race/step/").json()
    assert [row["name"] for row in board["people"]] == ["veteran", "steady"]  # 1700 before 1670
    assert [row["conservative"] for row in board["people"]] == [1800 - 2 * 50, 1850 - 2 * 90]
    assert "minus 2 deviations" in board["rule"] and "30 days" in board["rule"]
    profile_row = next(r for r in board["people"] if r["name"] == "steady")
    assert profile_row["deviation"] == 90 and profile_row["provisional"] is False
