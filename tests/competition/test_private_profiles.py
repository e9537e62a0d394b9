"""A private game's rating change shows in a profile's history only to those who may see the
game (issue 30, point 4): to a stranger the history reads as if it had not been played."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Game
from tests.competition.conftest import make_users
from tests.competition.test_rated_games import STEP, _play_one_move

pytestmark = pytest.mark.django_db(transaction=True)


def _history(username: str, viewer=None) -> list[int]:
    client = APIClient()
    if viewer is not None:
        client.force_authenticate(viewer)
    answer = client.get(f"/api/players/{username}/")
    assert answer.status_code == 200, answer.content
    return [point["game"] for pool in answer.json()["ratings"] for point in pool["history"]]


def _rated_game(users, *, private: bool) -> int:
    game = services.game_create_seated(creator=users[0], rules_id="toy_race", players=2, options={},
                                       time_control=STEP, rated=True, seats=[{"user": user} for user in users])
    if private:
        Game.objects.filter(pk=game.pk).update(private=True)
    _play_one_move(game, users)
    services.resign(game_id=game.pk, user=users[1])
    return game.pk


def test_a_private_rated_game_is_in_a_profile_only_for_its_players():
    alice, bob, stranger = make_users(3)
    public = _rated_game([alice, bob], private=False)
    private = _rated_game([alice, bob], private=True)
    assert sorted(_history(alice.username, alice)) == sorted([public, private])
    assert sorted(_history(alice.username, bob)) == sorted([public, private])
    assert _history(alice.username, stranger) == [public]
    assert _history(alice.username) == [public]
