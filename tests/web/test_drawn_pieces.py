"""Pieces drawn, not coded: no tile numbers, letter codes or per-hex coordinates written on the
boards (coordinates only round the edge; Scavenge's pawns and good stuff not letters), every board part named in words for a screen reader,
and Space Junkyard's step arrows at least 40 px at a phone's width."""

from __future__ import annotations

import re

import pytest

from tests.web.test_browser import _create, _play_one, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
# Codes the boards used to write on their pieces: tile ids (S13, A02, BRG), a Terrafex piece's
# letters and band (gS+B), a coordinate pair inside a hex (0,-3), an ability (Y›R, □BB, +Y/B).
CODES = re.compile(r"\b[SA]\d\d\b|\bBRG\b|\b[gyrb][SML](/[gyrb][SML])?(\+[WB])?\b|›|□|▢|\+[YBR]")
WRITTEN = """[...document.querySelectorAll('#board svg text')].filter((node) => !node.closest('.edge-labels'))
  .map((node) => node.textContent)"""
UNNAMED = """[...document.querySelectorAll('#board [data-target]')].filter((node) => !/[a-z]{3}/.test(node.getAttribute('aria-label') ?? ''))
  .map((node) => node.dataset.target)"""


@pytest.mark.parametrize("rules", ["scavenge", "terrafex", "space_junkyard", "terrain_vague"])
def test_no_codes_on_the_pieces_and_every_part_named_in_words(browser, site, rules):
    page = _sign_up(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), site, f"drawn_{rules}")
    _create(page, site, rules, bot_seat=1)
    for _ in range(6):  # a few positions
        page.locator(".board-svg").wait_for()
        written = page.evaluate(WRITTEN)
        assert [text for text in written if CODES.search(text)] == [], written
        if rules == "scavenge":  # pawns and the good stuff drawn, not lettered (●, "G", "*"): counts only
            assert [text for text in written if not text.isdigit()] == [], written
        if rules == "terrain_vague":  # coordinates only round the edge: no text in a hex
            assert page.locator("#board .cell text").count() == 0
        assert page.evaluate(UNNAMED) == []
        if rules == "space_junkyard":
            for arrow in page.locator("#board polygon.big-step").all():
                box = arrow.bounding_box()
                assert box["width"] >= 40 and box["height"] >= 40, box
        page.locator("#moves-panel").wait_for()
        _play_one(page)
    assert page.locator("#text-board-box summary").is_visible()  # the text board, one click away
