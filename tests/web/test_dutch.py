"""Scrapyard in Dutch in a real browser: a person whose browser asks for Dutch plays a game to its
end against a bot and reads every part of the table in Dutch (the page's words, the scripts'
words from the JavaScript catalogue, the rules' prompt and panels); axe-core finds no serious
problem on the Dutch pages; and at a laptop's and a phone's width nothing runs off the side
(Dutch words are long). Screenshots of each go to artifacts/screenshots/ (nl-*)."""

from __future__ import annotations

import json

import pytest

from tests.web.test_browser import _create, _my_turn, _play_one, _sign_up, _towards_the_goal
from tests.web.test_table import _axe, _play_noting

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _dutch(browser, viewport=LAPTOP, **options):
    return browser.new_context(locale="nl-NL", viewport=viewport, **options)


def test_a_game_is_played_to_its_end_in_dutch(browser, site, screenshot):
    page = _sign_up(_dutch(browser), site, "femke")
    assert page.locator("html").get_attribute("lang") == "nl"
    assert "Nieuwe partij" in page.locator("nav").inner_text()
    _create(page, site, "scavenge", bot_seat=1)
    page.locator(".board-svg").wait_for()
    assert page.locator("#legend-box summary").inner_text() == "Legenda"
    assert "de buit" in page.locator("#legend").text_content()  # the board's legend, from the scripts' catalogue
    panels = page.locator("#panels").inner_text()
    assert "afval" in panels and "(jij)" in panels
    noted = _play_noting(page, _towards_the_goal, screenshot, "nl-scavenge")
    page.locator("#status.finished").wait_for()
    status = page.locator("#status").inner_text()
    assert status.startswith(("Je hebt gewonnen", "bot random won", "Niemand won")), status
    prompts = " ".join(seen["status"] for seen in noted)
    assert "Je gooide" in prompts and "You rolled" not in prompts
    assert "Zo speel je Scavenge" in page.locator("#how-to-play summary").inner_text()
    screenshot(page, "nl-scavenge-end")


def test_axe_finds_no_serious_problem_on_the_dutch_pages(browser, site):
    page = _sign_up(_dutch(browser, bypass_csp=True), site, "gerrit")
    problems = {}
    for path in ("/", "/games/new/", "/account/", "/account/mail-addresses/", "/leaderboards/", "/tournaments/"):
        page.goto(f"{site}{path}")
        page.wait_for_load_state("networkidle")
        assert page.locator("html").get_attribute("lang") == "nl"
        problems[path] = _axe(page)
    _create(page, site, "terrain_vague", bot_seat=1)
    page.locator(".board-svg").wait_for()
    for summary in ("#legend-box summary", "#how-to-play summary", "#fairness summary"):
        page.click(summary)
    problems["terrain_vague"] = _axe(page)
    assert {where: found for where, found in problems.items() if found} == {}, json.dumps(problems, indent=1)


@pytest.mark.parametrize("width", ["laptop", "phone"])
def test_the_dutch_pages_fit_a_laptop_and_a_phone(browser, site, screenshot, width):
    page = _sign_up(_dutch(browser, LAPTOP if width == "laptop" else PHONE), site, f"hanna_{width}")
    overflowing = {}
    _create(page, site, "terrain_vague", bot_seat=1)
    page.locator(".board-svg").wait_for()
    game = page.url
    for name, url in (("lobby", f"{site}/"), ("account", f"{site}/account/"), ("mail-addresses", f"{site}/account/mail-addresses/"),
                      ("new-game", f"{site}/games/new/"), ("table", game)):
        page.goto(url)
        # Loaded and laid out with its fonts; not "networkidle": a page with a game on it keeps a
        # live stream open, so the network is never idle.
        page.wait_for_load_state("load")
        page.evaluate("document.fonts.ready.then(() => true)")
        if name == "table":
            page.locator(".board-svg").wait_for()
        # The page never scrolls sideways; no control's words run out of it.
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        cut = page.evaluate("""[...document.querySelectorAll('button, label, nav a, h1, h2, summary, legend, option')]
            .filter((node) => node.offsetParent !== null && node.scrollWidth > node.clientWidth + 1
                    && getComputedStyle(node).overflow !== 'visible')
            .map((node) => node.textContent.trim().slice(0, 40))""")
        if wide > 0 or cut:
            overflowing[name] = {"sideways": wide, "cut": cut}
        screenshot(page, f"nl-{name}-{width}")
    assert overflowing == {}, overflowing


def test_the_terrafex_stash_titles_leave_room_for_the_pieces_in_dutch(browser, site):
    """A title beside the fires used was drawn at a fixed width: "Gebruikte branden" ran under the
    first fire. No title of the stash may cover any of its pieces, in the longer language."""
    page = _sign_up(_dutch(browser, PHONE), site, "joost")
    _create(page, site, "terrafex", bot_seat=1)
    page.locator(".board-svg .stash-entry").first.wait_for()
    covered = page.evaluate("""(() => {
        const box = (node) => node.getBoundingClientRect();
        const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const titles = [...document.querySelectorAll('.board-svg .stash-title')];
        const pieces = [...document.querySelectorAll('.board-svg .stash-entry')];
        return titles.flatMap((title) => pieces.filter((piece) => meet(box(title), box(piece)))
            .map(() => title.textContent));
    })()""")
    assert covered == []


def _fires_offered(page, word: str):
    """The quick-choice buttons of a Terrafex turn's fires (named by `word`), once the player's
    turn offers them: a turn that opens by placing the bot's fire is played first."""
    fires = page.locator("#choice button.candidate", has_text=word)
    for _ in range(300):
        if fires.count():
            return fires
        if _my_turn(page) and page.locator("#choice button.candidate").count() == 0:
            _play_one(page)
        page.wait_for_timeout(100)
    pytest.fail("no fire was offered")


def test_a_dutch_table_describes_the_moves_in_dutch_beside_their_notation(browser, site, screenshot):
    """The quick-choice buttons and the log's lines read in Dutch; the notation a mail reply types
    stays beside a button's words, and on a log line's title."""
    page = _sign_up(_dutch(browser, PHONE), site, "wout")
    _create(page, site, "terrafex", bot_seat=1)
    fires = _fires_offered(page, "vuur")
    labels = fires.all_inner_texts()
    assert any("vuur klein" in label and "fire small" in label for label in labels), labels
    assert page.locator("#choice button.candidate .notation[lang=en]", has_text="fire small").count() == 1
    screenshot(page, "nl-terrafex-choices-phone")
    fires.filter(has_text="vuur klein").click()
    assert page.locator("#confirm").inner_text() == "Speel vuur klein"
    page.locator("#confirm").click()
    played = page.locator("#log li", has_text="wout: vuur klein").last
    played.wait_for()
    assert played.get_attribute("title") == "fire small"
    assert "fire small" not in page.locator("#log").inner_text()  # the notation stays out of the line's words


def test_an_english_table_shows_the_notation_as_it_was(browser, site):
    page = _sign_up(browser.new_context(locale="en-GB", viewport=LAPTOP), site, "walt")
    _create(page, site, "terrafex", bot_seat=1)
    fires = _fires_offered(page, "fire")
    assert sorted(fires.all_inner_texts()) == ["fire large", "fire medium", "fire small"]
    assert page.locator("#choice .notation, #moves .notation").count() == 0
    fires.filter(has_text="fire small").click()
    page.locator("#confirm").click()
    played = page.locator("#log li", has_text="walt: fire small").last
    played.wait_for()
    assert played.get_attribute("title") is None
