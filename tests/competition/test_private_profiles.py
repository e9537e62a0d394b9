"""A private game is never rated (issue 30, point 4; `competition.rating_fold` says why): no
profile, leaderboard, history or tally, seen by anyone, tells that it was played or how it went."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from competition import rating_service
from competition.models import Rating
from games import services
from games.models import Game
from tests.api.conftest import register
from tests.competition.conftest import make_users
from tests.competition.test_rated_games import STEP, _play_one_move

pytestmark = pytest.mark.django_db(transaction=True)


def _profile(username: str, viewer=None) -> dict:
    client = APIClient()
    if viewer is not None:
        client.force_authenticate(viewer)
    answer = client.get(f"/api/players/{username}/")
    assert answer.status_code == 200, answer.content
    profile = answer.json()
    for pool in profile["ratings"]:
        pool.pop("deviation")  # grows with the time since the last game: not what is compared
        pool.pop("conservative")
    return profile


def _rated_game(users, *, private: bool) -> int:
    game = services.game_create_seated(creator=users[0], rules_id="toy_race", players=2, options={},
                                       time_control=STEP, rated=True, seats=[{"user": user} for user in users])
    if private:  # as a private game made rated before the rule (the API refuses it now)
        Game.objects.filter(pk=game.pk).update(private=True)
    _play_one_move(game, users)
    services.resign(game_id=game.pk, user=users[1])
    return game.pk


def _standing(user) -> tuple:
    rating = Rating.objects.get(player=f"u{user.pk}")
    return rating.games, rating.wins, rating.losses, round(rating.rating, 6)


def test_a_private_game_moves_no_rating_tally_or_history_for_anyone():
    alice, bob, stranger = make_users(3)
    public = _rated_game([alice, bob], private=False)
    before = {viewer: _profile(alice.username, viewer) for viewer in (alice, bob, stranger, None)}
    standings = _standing(alice), _standing(bob)
    _rated_game([alice, bob], private=True)
    for viewer, seen in before.items():
        assert _profile(alice.username, viewer) == seen
    assert before[stranger]["games"] == 1 and [p["game"] for p in before[stranger]["ratings"][0]["history"]] == [public]
    assert (_standing(alice), _standing(bob)) == standings  # what leaderboards rank by
    rating_service.ratings_rebuild()
    assert (_standing(alice), _standing(bob)) == standings


def test_a_private_game_cannot_be_made_rated():
    host, friend = register(), register()
    asked = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True, "rated": True,
                                      "invitees": [friend.username],
                                      "time_control": {"type": "correspondence", "days": 3}})
    assert asked.status_code == 400 and asked.json()["code"] == "invalid_input", asked.content
    assert "rated" in asked.json()["fields"]
    assert Game.objects.count() == 0
