"""The replay goes straight to where the slider is: a hundred presses of ◀ ask the server for a
few positions (the one asked for when each answer comes), not one for every event passed."""

from __future__ import annotations

import pytest

from tests.web.conftest import wait_for_js
from tests.web.test_browser import _sign_up
from tests.web.test_table import _finished_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_pressing_back_many_times_jumps_to_the_slider_not_through_every_event(browser, site):
    page = _sign_up(browser.new_context(), site, "rewinder")
    game_id = _finished_game(page, site)
    page.goto(f"{site}/games/{game_id}/")
    page.locator("#status.finished").wait_for()
    last = int(page.locator("#replay-at").get_attribute("max"))
    presses = min(30, last - 2)
    asked = []
    page.on("request", lambda request: "/state/?at=" in request.url and asked.append(request.url))
    # The presses as fast as a player's thumb can hammer: all before any answer comes.
    page.evaluate(f"for (let i = 0; i < {presses}; i += 1) document.getElementById('replay-prev').click()")
    target = last - presses
    wait_for_js(page, f"document.getElementById('board-caption').textContent.endsWith('after event {target}')"
                      " || document.getElementById('replay-label').textContent.startsWith('after event " + str(target) + " ')")
    page.wait_for_timeout(500)
    assert page.locator("#replay-at").input_value() == str(target)
    assert page.locator("#replay-label").inner_text().startswith(f"after event {target} of")
    assert asked and asked[-1].endswith(f"at={target}")
    assert len(asked) <= 3, f"{len(asked)} positions asked for {presses} presses"
