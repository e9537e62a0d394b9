"""The new-game form reads as a form: each checkbox on the line of its words, the box first, and
only the chosen time control's fields in sight."""

from __future__ import annotations

import pytest

from tests.web.test_browser import _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# Each checkbox's box and the first line of its label's words: the box's middle on that line, left of the words.
BESIDE = """[...document.querySelectorAll('#new-game input[type=checkbox]')].filter((box) => box.getClientRects().length).map((box) => {
  const label = box.closest('label'), b = box.getBoundingClientRect();
  const range = document.createRange();
  const words = [...label.childNodes].find((node) => node !== box && node.textContent.trim());
  range.selectNodeContents(words);
  const line = range.getClientRects()[0];
  return { id: box.id, beside: b.right <= line.left + 1 && b.top < line.bottom && b.bottom > line.top };
})"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}], ids=["laptop", "phone"])
def test_checkboxes_sit_beside_their_words_and_only_the_chosen_time_fields_show(browser, site, viewport):
    page = _sign_up(browser.new_context(viewport=viewport), site, f"former{viewport['width']}")
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", "space_junkyard")  # a game with a yes/no option
    page.locator("#options input[type=checkbox]").first.wait_for()
    found = page.evaluate(BESIDE)
    assert len(found) >= 4 and all(box["beside"] for box in found), found
    shown = {
        "none": set(),
        "step": {"#step-seconds"},
        "correspondence": {"#days", "#pause-weekends"},
        "bank": {"#pause-weekends"},
        "noclock": set(),
    }
    for kind, fields in shown.items():
        page.select_option("#time-type", kind)
        visible = {field for field in ("#step-seconds", "#days", "#pause-weekends") if page.locator(field).is_visible()}
        assert visible == fields, kind
        assert page.locator("#timeout-policy").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_a_game_whose_book_draws_who_starts_lets_the_creator_start_from_the_form(browser, site, screenshot):
    """Terrafex draws White; the form's "First player: seat 0" gives the creator (seat 0) the
    first turn whatever the seed drew."""
    import re

    from games.models import Game

    page = _sign_up(browser.new_context(viewport={"width": 390, "height": 844}), site, "starter")
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", "terrafex")
    first = page.locator("#option-first_player")
    first.wait_for()
    assert [text.strip() for text in first.locator("option").all_inner_texts()] == ["drawn at random", "seat 0"]
    assert first.input_value() == '"drawn"'  # the book's way by default
    first.select_option('"seat_0"')
    screenshot(page, "new-game-first-player")
    page.select_option("#seat-1", "random:1")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert game.options["first_player"] == "seat_0"
    page.locator("#moves-panel").wait_for()  # seat 0, the creator, is to move: White
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
