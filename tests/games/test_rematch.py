"""A rematch: offered after a finished game, accepted by the other player with one call, made
as a new started game with the same rules, options and clock and the seats swapped; against a
bot the offer makes it at once. Refused before the end, to a stranger, and without an offer."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services import life
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    from django.core.cache import cache

    cache.clear()


def _finished_game():
    game_id, players = start_game("terrafex", 2, {})
    from django.contrib.auth import get_user_model

    life.resign(game_id=game_id, user=get_user_model().objects.get(username=players[1].username))
    return game_id, players


def test_an_offer_accepted_makes_the_same_game_with_the_seats_swapped():
    game_id, (first, second) = _finished_game()
    offered = first.post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    assert offered.status_code == 200 and offered.json() == {"offered_by": 0, "game": None}
    assert second.get(f"/api/games/{game_id}/rematch/").json()["offered_by"] == 0
    own = first.post(f"/api/games/{game_id}/rematch/", {"action": "accept"})
    assert own.status_code == 409 and own.json()["code"] == "no_rematch_offered"
    accepted = second.post(f"/api/games/{game_id}/rematch/", {"action": "accept"})
    assert accepted.status_code == 200
    new_id = accepted.json()["game"]
    old, new = Game.objects.get(pk=game_id), Game.objects.get(pk=new_id)
    assert (new.rules, new.players, new.options, new.time_control) == (old.rules, old.players, old.options, old.time_control)
    assert new.status == "active"
    seats = {seat.index: seat.user.username for seat in new.seats.all()}
    assert seats == {0: second.username, 1: first.username}
    assert first.get(f"/api/games/{game_id}/rematch/").json()["game"] == new_id
    again = second.post(f"/api/games/{game_id}/rematch/", {"action": "accept"})
    assert again.json()["game"] == new_id and Game.objects.count() == 2  # one rematch, however many clicks


def test_against_a_bot_the_offer_makes_the_game_at_once():
    player = register()
    created = player.post("/api/games/", {"rules": "toy_race", "players": 2, "options": {}, "bots": [{"seat": 1, "bot": "random", "level": 1}]})
    game_id = created.json()["id"]
    from django.contrib.auth import get_user_model

    life.resign(game_id=game_id, user=get_user_model().objects.get(username=player.username))
    made = player.post(f"/api/games/{game_id}/rematch/", {"action": "offer"}).json()
    new = Game.objects.get(pk=made["game"])
    assert {seat.index: (seat.user.username if seat.user else seat.bot) for seat in new.seats.all()} == {0: "random", 1: player.username}


def test_refused_before_the_end_and_to_a_stranger():
    game_id, (first, second) = start_game("terrafex", 2, {})
    early = first.post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    assert early.status_code == 409 and early.json()["code"] == "rematch_not_now"
    game_id, _ = _finished_game()
    stranger = register().post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_a_player"
    bad = first.post(f"/api/games/{game_id}/rematch/", {"action": "please"})
    assert bad.status_code == 400 and Game.objects.count() == 2


def test_an_offer_outlives_an_emptied_cache_and_is_seen_by_every_process():
    """The offer is a row: another process (its own cache) and a restart see it. It was a note in
    the cache: emptied, the offer was gone and the other player's accept refused."""
    from django.core.cache import cache

    from games.models import RematchOffer

    game_id, (first, second) = _finished_game()
    first.post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    cache.clear()  # what another process, or this one after a restart, starts from
    assert second.get(f"/api/games/{game_id}/rematch/").json() == {"offered_by": 0, "game": None}
    assert RematchOffer.objects.filter(game_id=game_id, offered_by=0).exists()
    accepted = second.post(f"/api/games/{game_id}/rematch/", {"action": "accept"})
    assert accepted.status_code == 200 and accepted.json()["game"] is not None


def test_an_unanswered_offer_lapses_after_a_week():
    from datetime import timedelta

    from django.utils import timezone

    from games.models import RematchOffer

    game_id, (first, second) = _finished_game()
    first.post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    RematchOffer.objects.filter(game_id=game_id).update(offered_at=timezone.now() - timedelta(days=8))
    assert second.get(f"/api/games/{game_id}/rematch/").json() == {"offered_by": None, "game": None}
    late = second.post(f"/api/games/{game_id}/rematch/", {"action": "accept"})
    assert late.status_code == 409 and late.json()["code"] == "no_rematch_offered"
    again = second.post(f"/api/games/{game_id}/rematch/", {"action": "offer"})
    assert again.json() == {"offered_by": 1, "game": None}  # a new offer, from the other seat
