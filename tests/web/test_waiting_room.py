"""A game waiting for players: its drawn board, a panel for every seat (the open one too), the
invitation link with a button to copy it, and who has joined, kept live as someone joins."""

from __future__ import annotations

import pytest

from tests.web.test_browser import _create, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_the_waiting_room_shows_the_board_the_seats_and_the_link_and_tells_of_a_join(browser, site):
    host = _sign_up(browser.new_context(), site, "hostess")
    game_id = _create(host, site, "terrafex")
    host.locator("#waiting-room").wait_for()
    assert host.locator("#board .board-svg").count() == 1, "the board is drawn while the game waits"
    panels = host.locator("#panels .panel")
    assert panels.count() == 2 and "open seat" in panels.nth(1).inner_text()
    assert host.locator("#invitation-link code").inner_text().endswith(f"/games/{game_id}/")
    assert host.locator("#copy-invitation").is_visible()
    assert "Waiting for 1 more player" in host.locator("#status").inner_text()
    assert "hostess" in host.locator("#joined").inner_text()
    guest = _sign_up(browser.new_context(), site, "guesto")
    guest.goto(host.locator("#invitation-link code").inner_text())
    guest.click("#join")
    host.locator("#panels", has_text="guesto").wait_for()  # live: no reload
    host.locator("#status", has_text="must move").or_(host.locator("#moves-panel")).first.wait_for()
    assert host.locator("#waiting-room").count() == 0
