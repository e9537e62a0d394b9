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


def test_a_rematch_is_offered_at_the_end_and_accepted_with_one_click(browser, site):
    from tests.web.test_browser import _two_at_a_table

    host, guest, game_id = _two_at_a_table(browser, site, "remy", "rita")
    host.locator("#resign").wait_for()
    host.once("dialog", lambda dialog: dialog.accept())
    host.click("#resign")
    host.locator("#status.finished").wait_for()
    host.click("#offer-rematch")
    host.locator("#rematch-offered").wait_for()
    guest.locator("#accept-rematch").click()  # appears by itself: the page looks every few seconds
    guest.wait_for_url(lambda url: f"/games/{game_id}/" not in url)
    new_id = int(guest.url.rstrip("/").rsplit("/", 1)[1])
    guest.locator("#panels .panel").nth(1).wait_for()
    names = [guest.locator("#panels .panel-player").nth(i).inner_text() for i in range(2)]
    host.locator("#rematch-game").wait_for()
    assert host.locator("#rematch-game").get_attribute("href") == f"/games/{new_id}/"
    old = [host.locator("#panels .panel-player").nth(i).inner_text() for i in range(2)]
    assert [name.replace(" (you)", "") for name in names] == [name.replace(" (you)", "") for name in reversed(old)]
