"""The admin shows games, seats and events; events (and snapshots) are read-only there."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from games import services
from games.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    admin = get_user_model().objects.create_superuser("root", password="root password 1")
    client = Client()
    client.force_login(admin)
    return client


def test_admin_lists_games_with_seats_and_events(admin_client):
    creator = get_user_model().objects.create_user("maker", password="pw-long-enough")
    game = services.game_create(creator=creator, rules_id="scavenge", players=2, options={})
    assert admin_client.get("/admin/games/game/").status_code == 200
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/")
    assert page.status_code == 200 and b"maker" in page.content
    assert admin_client.get("/admin/games/event/").status_code == 200


def test_events_are_read_only_in_the_admin(admin_client):
    creator = get_user_model().objects.create_user("maker", password="pw-long-enough")
    game = services.game_create(creator=creator, rules_id="scavenge", players=2, options={})
    event = Event.objects.filter(game=game).first()
    view = admin_client.get(f"/admin/games/event/{event.pk}/change/")
    assert view.status_code == 200 and b'name="_save"' not in view.content
    forged = admin_client.post(f"/admin/games/event/{event.pk}/change/", {"seat": 3})
    assert forged.status_code == 403
    assert admin_client.post(f"/admin/games/event/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/games/event/add/").status_code == 403
    assert Event.objects.get(pk=event.pk).seat == event.seat


def test_a_game_is_read_only_in_the_admin(admin_client):
    """Every change to a game goes through its writer: a save here would write the whole row over
    a move landed meanwhile, with no event in the log."""
    creator = get_user_model().objects.create_user("maker", password="pw-long-enough")
    game = services.game_create(creator=creator, rules_id="scavenge", players=2, options={})  # untimed
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    forged = {"rules": "no_such_game", "players": 4, "status": "finished", "options": '{"x": 1}', "rated": "on",
              "lines_waiting": "on", "_save": "Save",
              "seats-TOTAL_FORMS": "1", "seats-INITIAL_FORMS": "1", "seats-MIN_NUM_FORMS": "0",
              "seats-MAX_NUM_FORMS": "1000", "seats-0-id": str(game.seats.get().pk), "seats-0-game": str(game.pk)}
    assert admin_client.post(f"/admin/games/game/{game.pk}/change/", forged).status_code == 403
    assert admin_client.post(f"/admin/games/game/{game.pk}/delete/", {"post": "yes"}).status_code == 403
    before = (game.rules, game.players, game.status, game.options, game.rated, game.lines_waiting, game.seq)
    game.refresh_from_db()
    assert (game.rules, game.players, game.status, game.options, game.rated, game.lines_waiting, game.seq) == before
    call_command("verify_log", str(game.pk))
