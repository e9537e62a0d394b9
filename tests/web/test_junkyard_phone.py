"""Space Junkyard on a phone (390x844): every part the player may tap is at least 44x44 px, no two
such parts overlap, and no picture on a tile (resources, corridor costs, abilities, points, ships)
lies over another. At that width the map's push entries measured 19 px and a tile's points star
sat on its corridor costs and abilities."""

from __future__ import annotations

import pytest

from tests.web.test_browser import _create, _play_one, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
TAP = 44

TARGETS = """[...document.querySelectorAll('#board .pointable[data-target]')].map((node) => {
  const box = node.getBoundingClientRect();
  return { target: node.dataset.target, left: box.left, top: box.top, right: box.right, bottom: box.bottom };
})"""

# Each drawn mark on a tile, as the screen shows it; the pairs within one cell that overlap.
CROWDED = """(() => {
  const crowded = [];
  const marks = '.resource, .points-star, .ability-icon, .ship-icon';
  for (const cell of document.querySelectorAll('#board .cell')) {
    const boxes = [...cell.querySelectorAll(marks)].filter((node) => !node.parentElement.closest(marks))
      .map((node) => [node.getAttribute('class'), node.getBoundingClientRect()]);
    boxes.forEach(([name, box], i) => boxes.slice(i + 1).forEach(([other, near]) => {
      const across = Math.min(box.right, near.right) - Math.max(box.left, near.left);
      const down = Math.min(box.bottom, near.bottom) - Math.max(box.top, near.top);
      if (across > 0.5 && down > 0.5) crowded.push(`${cell.dataset.target}: ${name} / ${other}`);
    }));
  }
  return crowded;
})()"""


# How deep the band round the map is on screen, where the push entries and corners lie (a push is
# pointed at there, in the phase that has them): a finger's width, or their taps cannot be.
MARGIN = """(() => {
  const board = document.querySelector('#board svg.board-svg').getBoundingClientRect();
  const first = document.querySelector('#board [data-target="map:0,0"]').getBoundingClientRect();
  return Math.min(first.left - board.left, first.top - board.top);
})()"""


def _overlap(a: dict, b: dict) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5


def test_space_junkyard_on_a_phone_taps_are_a_finger_wide_and_nothing_overlaps(browser, site):
    page = _sign_up(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), site, "junk_phone")
    _create(page, site, "space_junkyard", bot_seat=1)
    for _ in range(8):  # a few positions: the start, steps, the tile taken, the ship built
        page.locator(".board-svg").wait_for()
        page.locator("#moves-panel").wait_for()
        assert page.evaluate(CROWDED) == []
        assert page.evaluate(MARGIN) >= TAP
        targets = page.evaluate(TARGETS)
        small = [t for t in targets if t["right"] - t["left"] < TAP - 0.5 or t["bottom"] - t["top"] < TAP - 0.5]
        assert small == [], small
        touching = [(a["target"], b["target"]) for i, a in enumerate(targets) for b in targets[i + 1:] if _overlap(a, b)]
        assert touching == [], touching
        _play_one(page)
