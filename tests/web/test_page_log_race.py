"""The game page's log stops at the game it read: a seat taken between the page's read of the
game and its read of the log (another player joining as the page loads) made the log name a seat
the page's players did not have yet, and the page answered 500."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import selectors, services
from tests.api.conftest import register

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_a_seat_taken_while_the_page_loads_does_not_break_the_page(monkeypatch):
    creator, joiner = register(), register()
    created = creator.post("/api/games/", {"rules": "scavenge", "players": 2, "options": {}})
    game_id = created.json()["id"]
    read_log = selectors.events_visible

    def log_read_after_a_join(**kwargs):
        if selectors.game_get(game_id=game_id).status == "open":
            services.game_join(game_id=game_id, user=_user(joiner))  # lands between the two reads
        return read_log(**kwargs)

    monkeypatch.setattr("web.views.selectors.events_visible", log_read_after_a_join)
    browser = Client()
    browser.force_login(_user(creator))
    answer = browser.get(f"/games/{game_id}/")
    assert answer.status_code == 200
    assert selectors.game_get(game_id=game_id).seq > created.json()["seq"]  # the join did land


def _user(player):
    return get_user_model().objects.get(username=player.username)


def test_the_logs_names_are_found_by_seat_number_where_the_seats_taken_leave_a_gap():
    """The game lists only the seats taken; the log looked a seat up by its place in that list."""
    from web import table

    game = {"seats": [{"seat": 0, "username": "ann", "bot": None}, {"seat": 2, "username": "cor", "bot": None}]}
    events = [{"seq": 1, "seat": 2}, {"seq": 2, "seat": None}, {"seq": 3, "seat": 1}]
    assert [line["who"] for line in table.log_lines(game, events)] == ["cor", None, "open seat"]
