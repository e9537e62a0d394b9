"""The page scripts' own numbers and clock words in the reader's language, in a real browser: a
table with clocks shows each clock's units as the reader abbreviates them ("2d 23u" in Dutch,
"2d 23h" in English), and a number with decimals is written the reader's way (1,5 in Dutch, 1.5
in English), by the same script function the panels, the analysis and the leaderboards use."""

from __future__ import annotations

import re

import pytest

from tests.web.test_browser import _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# The running clock of the seat to act, three days a move: two units, days then hours.
CLOCKS = {
    "nl-NL": re.compile(r"^klok: nog [0-3]d \d{1,2}u$"),
    "en-GB": re.compile(r"^clock: [0-3]d \d{1,2}h left$"),
}
FRESH_CLOCKS = {"nl-NL": ["3d 0u", "1u 0m", "1m 30s", "45s"], "en-GB": ["3d 0h", "1h 0m", "1m 30s", "45s"]}
DECIMALS = {"nl-NL": ("1,5", "0,25"), "en-GB": ("1.5", "0.25")}


def _table_with_clocks(page, site: str) -> None:
    """A game of days per move against a bot: it starts at once, and the seat to act's clock runs."""
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", "scavenge")
    page.select_option("#time-type", "correspondence")
    page.select_option("#days", "3")
    page.select_option("#seat-1", "random:1")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.locator(".board-svg").wait_for()


@pytest.mark.parametrize("locale", sorted(CLOCKS))
def test_clock_units_and_decimals_are_written_the_readers_way(browser, site, screenshot, locale):
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 800})
    page = _sign_up(context, site, f"clocks_{locale[:2]}")
    _table_with_clocks(page, site)
    running = page.locator("#panels .clock.running").first
    running.wait_for()
    page.wait_for_function("document.querySelector('#panels .clock.running').textContent.length > 0")
    assert CLOCKS[locale].match(running.inner_text().strip()), running.inner_text()
    # Every clock on the table, running or stopped, in the same words.
    units = set("dums") if locale.startswith("nl") else set("dhms")
    clocks = page.locator("#panels .clock").all_inner_texts()
    assert len(clocks) == 2 and all(set(re.findall(r"\d+([a-z])\b", clock)) <= units for clock in clocks), clocks
    # A number with decimals, written by the page's own script in the page's language.
    written = page.evaluate("""async () => {
        const script = [...document.querySelectorAll('script[type=module][src]')].map((s) => s.src)
            .find((src) => /\\/web\\/[^/]*\\.js/.test(src));
        const words = await import(new URL('i18n.js', script).href);
        return [words.numberText(1.5), words.numberText(0.25)];
    }""")
    assert tuple(written) == DECIMALS[locale]
    # A clock read in its first second names its second unit too: "3d 0h", as a second later "2d 23h".
    fresh = page.evaluate("""async () => {
        const script = [...document.querySelectorAll('script[type=module][src]')].map((s) => s.src)
            .find((src) => /\\/web\\/[^/]*\\.js/.test(src));
        const api = await import(new URL('api.js', script).href);
        const from = (seconds) => api.whenText(new Date(Date.now() + seconds * 1000 + 200).toISOString());
        return [from(3 * 86400), from(3600), from(90), from(45)];
    }""")
    assert fresh == FRESH_CLOCKS[locale]
    assert page.locator("html").get_attribute("lang") == locale[:2]
    screenshot(page, f"clocks-{locale[:2]}")
    context.close()
