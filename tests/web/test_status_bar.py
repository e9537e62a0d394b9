"""The status bar, as on a game site: who must move in words ("ben must move"), the moves the
board cannot point at as buttons in the bar, the bar in sight at the top of a phone's screen
however far the page scrolls, and every seat's clock shown, the running one and the stopped."""

from __future__ import annotations

import pytest

from tests.web.test_browser import _my_turn, _two_at_a_table
from web import table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def test_the_bar_says_who_must_move_offers_the_moves_off_the_board_and_shows_both_clocks(browser, site):
    first, second, game_id = _two_at_a_table(browser, site, "amos", "bella")
    for _ in range(150):
        if _my_turn(first) or _my_turn(second):
            break
        first.wait_for_timeout(100)
    mover, waiter, mover_name = (first, second, "amos") if _my_turn(first) else (second, first, "bella")
    waiter.locator("#status", has_text=f"{mover_name} must move").wait_for()
    # The race's moves are not drawn on a board: they are buttons in the bar, next to the words.
    assert mover.locator("#status-bar #choice .candidate").count() >= 1
    assert waiter.locator("#status-bar #choice .candidate").count() == 0
    for page in (first, second):
        clocks = [clock.inner_text() for clock in page.locator("#panels .clock").all()]
        assert len(clocks) == 2 and all("left" in clock for clock in clocks), clocks
        assert sum("stopped" in clock for clock in clocks) == 1, clocks  # the mover's runs, the other's waits
    assert first.locator("#seen-box").count() == 0
    mover.locator("#status-bar #choice .candidate").first.click()
    mover.locator("#confirm").click()
    mover.locator("#status", has_text="must move").wait_for()


def test_the_bar_stays_at_the_top_of_a_phone_as_the_page_scrolls(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 600}, is_mobile=True, has_touch=True)
    host, guest, game_id = _two_at_a_table(browser, site, "cleo", "dan")
    page = context.new_page()
    page.goto(host.url)  # a spectator's phone
    page.locator("#status", has_text="must move").wait_for()
    page.click("#fairness summary")  # a longer page
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(200)
    assert page.evaluate("window.scrollY") > 150
    box = page.locator("#status-bar").bounding_box()
    assert -1 <= box["y"] <= 1 and box["height"] < 600 / 4, box


def test_the_server_words_the_bar_as_the_page_does():
    game = {"status": "active", "your_seat": 0, "to_act": [1], "presentation": {"prompt": None},
            "seats": [{"seat": 0, "username": "ann"}, {"seat": 1, "username": None, "bot": {"name": "mcts", "level": 2}}]}
    assert table.status_line(game) == "bot mcts must move"
    both = {**game, "to_act": [0, 1], "presentation": {"prompt": "Choose a card"}}
    assert table.status_line(both) == "Choose a card (bot mcts must move too)"
    waiting = {**game, "status": "open", "players": 2, "seats": [{"seat": 0, "username": "ann"}]}
    assert table.status_line(waiting) == "Waiting for 1 more player to join"
