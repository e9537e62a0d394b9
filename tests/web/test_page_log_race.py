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


def test_a_moves_line_names_its_player_from_the_log_and_a_system_line_none():
    """The game lists only the seats taken; the log looked a seat up by its place in that list, then
    by its number among the seats now. A move's line names the player the log names then (`by`), a
    system event's words name theirs themselves."""
    from web import table

    events = [{"seq": 1, "seat": 2, "kind": "system", "by": {"username": "cor", "bot": None}},
              {"seq": 2, "seat": None, "kind": "system", "by": None},
              {"seq": 3, "seat": 2, "kind": "move", "by": {"username": "cor", "bot": None}},
              {"seq": 4, "seat": 1, "kind": "move", "by": {"username": None, "bot": {"name": "random", "level": 1}}}]
    assert [line["who"] for line in table.log_lines(events)] == [None, None, "cor", "bot random"]
