"""No script error on a game page: the clocks tick before the page's first load has drawn the
panels (the server's panels carry a clock with no time yet). Every browser test also fails on
any script or console error (tests/web/conftest.py, `page_errors`)."""

from __future__ import annotations

import time

import pytest

from tests.web.test_browser import _create, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_the_clocks_tick_without_an_error_before_the_first_load_has_drawn_the_panels(browser, site, page_errors):
    page = _sign_up(browser.new_context(), site, "slowpoke")
    game_id = _create(page, site, "toy_race", bot_seat=1)

    def slow(route):
        time.sleep(2.5)  # a loaded server: the clocks tick twice before the answer
        route.continue_()

    page.route(f"**/api/games/{game_id}/", slow)
    page.goto(f"{site}/games/{game_id}/")
    page.locator("#panels .panel.acting").wait_for()
    page.wait_for_timeout(1500)
    assert [error for error in page_errors if "script error" in error] == []
    assert all(clock.inner_text() != "clock stopped: NaN" for clock in page.locator("#panels .clock").all())
