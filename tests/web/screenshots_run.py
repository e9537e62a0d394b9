"""Screenshots of each game at its start, middle and end, at a laptop's 1280x800 and a phone's
390x844, into docs/screenshots/ (or SCRAPYARD_SCREENSHOTS). Not a test of the suite (its name
does not start with test_): `python -m web.screenshots` runs it, on the embedded default.

Both seats are people; each plays the greedy bot's move for what its own seat sees (a game's
middle then looks like one people play: random moves left Terrain Vague's clubhouse on enemy turf,
the gang out before any pawn was called, a third of the time), played through the API, and the
page is seat 0's, as its player sees it."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import bots
import rules as catalogue
from tests.api.conftest import start_game
from tests.web.conftest import wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

OUT = Path(os.environ.get("SCRAPYARD_SCREENSHOTS", Path(__file__).resolve().parents[2] / "docs" / "screenshots"))
SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SHORTER = {"space_junkyard": {"short": True}}
MIDDLE = {"scavenge": 12, "terrafex": 16, "space_junkyard": 40, "terrain_vague": 90}


def _play(game_id, seated, rnd, moves: int) -> None:
    """`moves` greedy moves (fewer if the game ends), each from its seat's own view, through the API."""
    for turn in range(moves):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        if game["status"] == "finished":
            return
        seat = rnd.choice(game["to_act"])
        mine = seated[seat].get(f"/api/games/{game_id}/").json()
        listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        if listed["seq"] != game["seq"] or mine["seq"] != game["seq"] or not listed["moves"]:
            continue
        move = bots.choose_move(catalogue.get(game["rules"]), mine["view"], seat, bot="greedy", level=1, seed=f"{game_id}-{turn}")
        seated[seat].submit(game_id, move, listed["seq"])


def _shoot(browser, site, player, game_id: int, name: str) -> None:
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, is_mobile=size == "phone", has_touch=size == "phone")
        page = context.new_page()
        page.goto(f"{site}/login/")
        page.fill("input[name=username]", player.username)
        page.fill("input[name=password]", "correct horse battery")
        page.click("form button[type=submit]")
        page.wait_for_url(f"{site}/")
        page.goto(f"{site}/games/{game_id}/")
        page.locator("#panels .panel").first.wait_for()
        wait_for_js(page, "document.querySelector('#board svg') !== null || document.getElementById('board-figure').hidden")
        page.wait_for_timeout(400)
        page.screenshot(path=str(OUT / f"{name}-{size}.png"), full_page=True)
        context.close()


@pytest.mark.parametrize("rules", ["scavenge", "terrafex", "space_junkyard", "terrain_vague"])
def test_screenshots(browser, site, rules):
    OUT.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(f"screenshots-{rules}")
    game_id, seated = start_game(rules, 2, SHORTER.get(rules))
    _shoot(browser, site, seated[0], game_id, f"{rules}-start")
    _play(game_id, seated, rnd, MIDDLE[rules])
    _shoot(browser, site, seated[0], game_id, f"{rules}-middle")
    _play(game_id, seated, rnd, 5000)
    assert seated[0].get(f"/api/games/{game_id}/").json()["status"] == "finished"
    _shoot(browser, site, seated[0], game_id, f"{rules}-end")
