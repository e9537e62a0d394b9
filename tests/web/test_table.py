"""The game page as a game table, as a player meets it: every game played to its end against a
bot by clicking, every kind of move chosen on the board (a secret choice in a wrestling round,
an opponent's fire met on the page), with the panels and the prompt changing, the opponent's last
move marked and the text board kept current; screenshots of each game at its start, middle and
end (laptop and phone); a phone's width with no sideways scroll and the confirm in sight; axe-core's check of
every page; a move played with the keyboard alone; the tab and a notification telling of your
turn."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from games.services import life
from tests.web.conftest import wait_for_js
from tests.web.test_competition_pages import _until_held
from tests.web.test_browser import (
    TIMEOUT,
    _choose,
    _create,
    _events,
    _finished,
    _first,
    _my_turn,
    _play_one,
    _sign_up,
    _towards_the_goal,
    _two_at_a_table,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# A game option the rules offer for a shorter game, where a whole game is played in the browser:
# Space Junkyard's `short` (16 tiles fewer) ends a random game in about 170 moves instead of 290.
SHORTER = {"space_junkyard": {"short": True}}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}


def _seen(page) -> dict:
    """What a player reads off the table now."""
    return {
        "status": page.locator("#status").inner_text(),
        "panels": page.locator("#panels").inner_text(),
        "text_board": page.locator("#text-board").text_content(),
        "touched": page.locator(".board-svg .touched").count(),
    }


def _play_noting(page, prefer, shoot, name: str, moves_at_most: int = 500) -> list[dict]:
    """Play to the end, noting the table after each move; a screenshot half-way (by the log)."""
    noted = [_seen(page)]
    middle_taken = False
    for moves in range(moves_at_most):
        if _finished(page):
            return noted
        if _my_turn(page):
            _play_one(page, prefer)
            wait_for_js(page, "document.getElementById('status').textContent !== ''")
            noted.append(_seen(page))
            if not middle_taken and moves >= 12:
                shoot(page, f"{name}-middle")
                middle_taken = True
        else:
            page.wait_for_timeout(100)
    pytest.fail(f"{name}: the game did not end in {moves_at_most} moves")


@pytest.mark.parametrize("rules", ["scavenge", "terrafex", "space_junkyard", "terrain_vague"])
def test_each_game_is_played_to_its_end_from_the_table(browser, site, screenshot, rules):
    page = _sign_up(browser.new_context(viewport={"width": 1280, "height": 900}), site, f"table_{rules}")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    game_id = _create(page, site, rules, bot_seat=1, options=SHORTER.get(rules))
    page.locator("#panels .panel").nth(1).wait_for()
    page.locator(".board-svg").wait_for()
    assert page.locator("#panels .panel").count() == 2
    assert "bot" in page.locator("#panels .panel").nth(1).inner_text()
    assert page.locator(".board-svg text.edge").count() > 0 or rules == "terrain_vague" or rules == "space_junkyard"
    assert page.locator("#legend dt").count() >= 3
    assert page.locator("#text-board-box").evaluate("box => !box.open")  # shut where the board is drawn ...
    page.locator("#text-board-box summary").click()  # ... and followed once a player opens it
    screenshot(page, f"{rules}-start")
    noted = _play_noting(page, _towards_the_goal if rules == "scavenge" else _first, screenshot, rules)
    page.locator("#status.finished").wait_for()
    screenshot(page, f"{rules}-end")
    status = page.locator("#status").inner_text()
    assert status.startswith(("You won", "bot random won", "Nobody won", "You shared")), status
    assert ":" in status and "seed" not in status.lower()
    assert len({seen["status"] for seen in noted}) >= 3, "the prompt changes with the game"
    assert len({seen["panels"] for seen in noted}) >= 3, "the panels change with the game"
    assert len({seen["text_board"] for seen in noted}) >= len(noted) // 3, "the text board follows the game"
    assert sum(seen["touched"] > 0 for seen in noted) >= len(noted) // 3, "the last move is marked"
    assert page.locator("#fairness #seed").inner_text() != "published when the game ends"
    log = page.locator("#log")
    assert log.evaluate("node => node.scrollTop + node.clientHeight >= node.scrollHeight - 2"), "the log shows its newest line"
    assert errors == []
    moves = [event for event in _events(game_id) if event.kind == "move"]
    mine = [event for event in moves if event.seat == 0]
    assert len(mine) >= 5
    kinds = {event.payload["move"]["type"] for event in mine}
    if rules != "scavenge":  # (a Scavenge player heading for the goal never stays)
        assert len(kinds) >= 3, kinds  # several kinds of move, each chosen by clicking
    if rules == "terrain_vague":  # a wrestling round: a choice made in secret, then revealed
        assert any(event.payload != event.public_payload for event in mine)
    if rules == "terrafex":  # a fire placed by the opponent, met on the page
        assert any(event.seat == 1 and event.payload["move"]["type"] == "fire" for event in moves)


LAPTOP = {"width": 1280, "height": 800}


@pytest.mark.parametrize("rules", ["scavenge", "terrafex", "space_junkyard", "terrain_vague"])
def test_on_a_laptop_the_whole_board_the_players_and_your_move_are_in_sight_at_once(browser, site, rules):
    """At 1280x800, as on Board Game Arena: the board right under the status line, and in a
    column beside it the players' panels and "Your move" (then the draw, takeback and resign
    buttons), the board and those two in the first screen with nothing scrolled (the panels
    above the board pushed half of it below the fold). On a phone the panels stay above the board."""
    page = _sign_up(browser.new_context(viewport=LAPTOP), site, f"laptop_{rules}")
    _create(page, site, rules, bot_seat=1)
    page.locator(".board-svg").wait_for()
    page.locator("#moves-panel").wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    board, panels = page.locator(".board-svg").bounding_box(), page.locator("#panels").bounding_box()
    moves, buttons = page.locator("#moves-panel").bounding_box(), page.locator("#actions").bounding_box()
    assert board["y"] >= 0 and board["y"] + board["height"] <= LAPTOP["height"], board
    assert panels["x"] >= board["x"] + board["width"], (panels, board)  # beside the board, not above it
    for part in (panels, moves):
        assert part["y"] + min(part["height"], 120) <= LAPTOP["height"] and part["x"] + part["width"] <= LAPTOP["width"], part
    assert buttons["x"] >= board["x"] + board["width"] and buttons["y"] > moves["y"]  # resigning is not what a turn asks
    assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
    phone = _sign_up(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), site, f"phone_{rules}")
    phone.goto(page.url)
    phone.locator(".board-svg").wait_for()
    assert phone.locator("#panels").bounding_box()["y"] < phone.locator(".board-svg").bounding_box()["y"]


def test_a_refresh_asks_for_neither_the_moves_apart_nor_the_shut_text_board(browser, site):
    """The page takes its legal moves from the game's answer, never from a request of their own;
    it does not ask for the text board the player has not opened (the board is drawn); opened, the
    text board is read at once and after each move, and a move no longer shuts it."""
    page = _sign_up(browser.new_context(viewport={"width": 1280, "height": 900}), site, "text_board_reader")
    asked, listed = [], []
    page.on("request", lambda request: asked.append(request.url) if "/board.txt" in request.url else None)
    page.on("request", lambda request: listed.append(request.url) if "/legal-moves/" in request.url else None)
    _create(page, site, "terrafex", bot_seat=1)
    page.locator(".board-svg").wait_for()
    for _ in range(3):
        page.locator("#moves-panel").wait_for()
        _play_one(page)
    page.locator("#moves-panel").wait_for()
    assert asked == [], "the shut text board was read"
    assert listed == [], "the legal moves were asked for apart from the game"
    before = page.locator("#text-board").text_content()
    page.locator("#text-board-box summary").click()
    page.wait_for_function("(before) => document.querySelector('#text-board').textContent !== before", arg=before)
    assert len(asked) == 1
    _play_one(page)
    page.locator("#moves-panel").wait_for()
    page.wait_for_function("() => document.querySelector('#log li:last-child') !== null")
    assert page.locator("#text-board-box").evaluate("box => box.open"), "a move shut the box the player opened"
    page.wait_for_function("(count) => performance.getEntriesByType('resource').filter((r) => r.name.includes('/board.txt')).length > count", arg=1)


def test_the_echo_of_its_own_move_on_the_account_stream_asks_the_page_for_nothing(browser, site):
    """In a turn of several actions the account stream tells `your_turn` again after each of the
    player's own actions, naming its seq: the page has that seq from its move's answer, so it reads
    the game once at most per seq of its own moves, not a second time for the echo."""
    page = _sign_up(browser.new_context(viewport={"width": 1280, "height": 900}), site, "echo_reader")
    games, moves = [], []
    page.on("response", lambda response: games.append(response) if response.request.method == "GET"
            and re.search(r"/api/games/\d+/$", response.url) else None)
    page.on("response", lambda response: moves.append(response) if response.request.method == "POST"
            and response.url.endswith("/moves/") else None)
    _create(page, site, "terrafex", bot_seat=1)
    page.locator(".board-svg").wait_for()
    for _ in range(6):  # two turns of three actions each
        page.locator("#moves-panel").wait_for()
        _play_one(page)
    page.locator("#moves-panel").wait_for()
    page.wait_for_timeout(1000)  # the last echoes have come
    read = Counter(response.json()["seq"] for response in games if response.ok)
    own = [response.json()["game"]["seq"] for response in moves if response.status == 201]
    assert len(own) >= 4, own
    assert {seq: read[seq] for seq in own if read[seq] > 1} == {}, read


def test_a_phone_plays_without_sideways_scroll_and_the_confirm_in_sight(browser, site, screenshot):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = _sign_up(context, site, "phoebe")
    for path in ("/", "/games/new/", "/account/"):
        page.goto(f"{site}{path}")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    for rules in ("scavenge", "terrafex", "space_junkyard", "terrain_vague"):
        _create(page, site, rules, bot_seat=1)
        page.locator("#moves-panel").wait_for()
        wide = page.evaluate("""[...document.querySelectorAll('body *')].filter((node) => node.getBoundingClientRect().right > 390.5)
          .slice(0, 5).map((node) => `${node.tagName}#${node.id}.${node.className?.baseVal ?? node.className}`)""")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], (rules, wide)
        screenshot(page, f"{rules}-phone")
        pointable = page.locator(".board-svg .pointable")
        if pointable.count():
            box = pointable.first.bounding_box()
            assert box["width"] >= 20 and box["height"] >= 20
            for _ in range(6):
                if page.locator("#confirm").count():
                    break
                if page.locator(".board-svg .pointable").count():
                    page.locator(".board-svg .pointable").first.tap()
                else:
                    page.locator("#choice .candidate, #moves button.move").first.tap()
            page.screenshot(path=str(SCREENSHOTS / f"{rules}-phone-confirm.png"))  # what the phone's screen shows
            confirm = page.locator("#confirm").bounding_box()
            assert confirm["y"] + confirm["height"] <= PHONE["height"] and confirm["y"] >= 0, "the confirm is on screen"
            assert confirm["height"] >= 40
    # A finished game's seed and hashes do not push the page sideways.
    finished = _finished_game(page, site)
    page.goto(f"{site}/games/{finished}/")
    page.locator("#status.finished").wait_for()
    page.click("#fairness summary")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


# Every element a finger may tap that measures under 40 CSS px either way (words in a running text
# excepted: a link inside a sentence is as big as the sentence's letters).
SMALL_TARGETS = """[...document.querySelectorAll(
    '.board-svg .pointable, button, summary, select, input:not([type=hidden]), [role=button], nav a, a.button')]
  .filter((node) => node.getClientRects().length && getComputedStyle(node).visibility !== 'hidden')
  .map((node) => [node, node.getBoundingClientRect()])
  .filter(([, box]) => box.width < 40 || box.height < 40)
  .slice(0, 8).map(([node, box]) => `${node.tagName}#${node.id}[${node.dataset.target ?? node.textContent.trim().slice(0, 20)}]`
    + ` ${box.width.toFixed(0)}x${box.height.toFixed(0)}`)"""


# Every board part a finger may tap whose middle another part covers: a tap aimed at it would land
# on the other (a board that widens a part over its neighbours must leave each part its own middle).
COVERED_TARGETS = """[...document.querySelectorAll('.board-svg .pointable')].filter((node) => {
    node.scrollIntoView({ block: 'center', inline: 'center' });
    const box = node.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit?.closest('[data-target]') !== node;
  }).map((node) => node.dataset.target)"""


# A seat's player whose name runs past its panel's edge (a long username on a phone).
CUT_NAMES = """[...document.querySelectorAll('#panels .panel-player')].filter((name) => {
  const panel = name.closest('.panel').getBoundingClientRect(), box = name.getBoundingClientRect();
  return box.right > panel.right + 1 || name.scrollWidth > name.clientWidth + 1;
}).map((name) => name.textContent)"""


@pytest.mark.parametrize("rules", ["scavenge", "terrafex", "space_junkyard", "terrain_vague"])
def test_every_tap_target_on_a_phone_is_at_least_40_px_and_the_page_never_scrolls_sideways(browser, site, screenshot, rules):
    page = _sign_up(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), site, f"thumb_{rules}")
    _create(page, site, rules, bot_seat=1)
    measured = 0
    pointed = set()
    for _ in range(8):  # a few positions: a game's phases point at different parts of the board
        page.locator("#moves-panel").wait_for()
        page.locator(".board-svg").wait_for()
        pointed |= {part.get_attribute("data-target") for part in page.locator(".board-svg .pointable").all()}
        assert page.evaluate(SMALL_TARGETS) == [], f"{rules}: targets under 40 px"
        assert page.evaluate(COVERED_TARGETS) == [], f"{rules}: targets whose middle another part covers"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], rules
        assert page.evaluate(CUT_NAMES) == [], f"{rules}: a player's name runs past its panel"
        measured += page.locator(".board-svg .pointable").count()
        _play_one(page)
        if _finished(page):
            break
    screenshot(page, f"{rules}-phone-middle")
    assert measured > 0, f"{rules}: no board part was ever pointable"
    if rules == "space_junkyard":  # the step arrows, four to a ship's cell, were measured too
        assert pointed & {"N", "E", "S", "W"}, pointed


def _finished_game(page, site) -> int:
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", "toy_race")
    page.uncheck("#creator-plays")
    page.select_option("#seat-0", "random:1")
    page.select_option("#seat-1", "random:1")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/games/*/")
    page.locator("#status.finished").wait_for(timeout=60_000)
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def _axe(page) -> list[dict]:
    page.evaluate(AXE.read_text())
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [{"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"][:3]]}
            for v in found if v["impact"] in ("serious", "critical")]


def test_axe_finds_no_serious_problem_on_any_page(browser, site):
    page = _sign_up(browser.new_context(bypass_csp=True), site, "ada")
    problems = {}
    for path in ("/", "/games/new/", "/account/"):
        page.goto(f"{site}{path}")
        page.wait_for_load_state("networkidle")
        problems[path] = _axe(page)
    for rules in ("scavenge", "terrafex", "space_junkyard", "terrain_vague"):
        _create(page, site, rules, bot_seat=1)
        page.locator("#moves-panel").wait_for()
        page.locator(".board-svg").wait_for()
        for summary in ("#legend-box summary", "#how-to-play summary", "#fairness summary"):
            if page.locator(summary).count():
                page.click(summary)
        problems[rules] = _axe(page)
    assert {where: found for where, found in problems.items() if found} == {}, json.dumps(problems, indent=1)


def test_a_move_is_played_with_the_keyboard_alone(browser, site):
    page = _sign_up(browser.new_context(), site, "kees")
    game_id = _create(page, site, "terrafex", bot_seat=1)
    page.locator(".board-svg .pointable").first.wait_for()
    for _ in range(400):  # Tab through the page to the board's first cell a move may point at
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('pointable')"):
            break
    else:
        pytest.fail("no board cell takes the keyboard's focus")
    for _ in range(6):
        page.keyboard.press("Enter")  # picks the focused cell; the focus moves on to the next step
        if page.evaluate("document.activeElement.id === 'confirm'"):
            break
        if page.locator("#choice .candidate").count():
            page.locator("#choice .candidate").first.focus()
    assert page.evaluate("document.activeElement.id") == "confirm"
    logged = page.locator("#log li").count()
    page.keyboard.press("Enter")
    wait_for_js(page, f"document.querySelectorAll('#log li').length > {logged}")
    assert any(event.seat == 0 and event.kind == "move" for event in _events(game_id))


NOTIFICATIONS = """
window.__told = [];
window.Notification = class {
  static permission = 'default';
  static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
  constructor(title, options) { window.__told.push({ title, body: options.body }); }
};
"""


def test_your_turn_is_told_by_the_title_the_icon_and_an_opted_in_notification(browser, site):
    alice, bob, game_id = _two_at_a_table(browser, site, "amy", "ben", first_script=NOTIFICATIONS)
    alice.locator("#panels .panel.acting").wait_for()
    alice.click("#alerts")
    alice.locator("#alerts", has_text="on").wait_for()
    seat_of_alice = 0 if alice.locator("#panels .panel").nth(0).inner_text().startswith("amy") else 1
    acting_first = alice.locator("#panels .panel.acting").get_attribute("data-seat")
    if int(acting_first) == seat_of_alice:  # alice moves, so that the turn comes back to her
        wait_for_js(alice, "document.title.startsWith('(your turn)')")
        assert "favicon-turn" in alice.locator("#favicon").get_attribute("href")
        _play_one(alice)
    wait_for_js(alice, "!document.title.startsWith('(your turn)')")
    assert "favicon-turn" not in alice.locator("#favicon").get_attribute("href")
    bob.locator("#moves-panel").wait_for()
    _play_one(bob)
    wait_for_js(alice, "document.title.startsWith('(your turn)')", timeout=TIMEOUT)
    wait_for_js(alice, "window.__told.length > 0", timeout=TIMEOUT)
    told = alice.evaluate("window.__told")
    assert told[0]["title"] == "Scrapyard: your turn" and f"game {game_id}" in told[0]["body"]
    # The lobby lists the game as her turn, first.
    alice.goto(f"{site}/")
    alice.locator("#mine li.your-turn").first.wait_for()
    assert f"#{game_id}" in alice.locator("#mine li").first.inner_text()


def test_a_forced_move_is_played_with_one_tap(browser, site, monkeypatch):
    """A Scavenge game whose first roll is seat 0's 0: staying is the only move, offered at once
    and played with one tap; a choice of moves is never played for the player."""
    from games.services import lobby

    monkeypatch.setattr(lobby, "new_seed", lambda: "forced-39")  # seat 0 rolls 0 first
    from mail import services as mail_services

    page = _sign_up(browser.new_context(), site, "fred")
    # A player who has not let the server play forced moves for him (on by default: it would
    # play this one before the page could offer it).
    mail_services.settings_update(user=get_user_model().objects.get(username="fred"), play_forced=False)
    game_id = _create(page, site, "scavenge", bot_seat=1)
    page.locator("#confirm", has_text="Play roll 0: stay").wait_for()
    assert "Only one move" in page.locator("#picking").inner_text()
    assert page.locator("#cancel").count() == 0
    page.click("#confirm")  # the one tap
    wait_for_js(page, "document.querySelectorAll('#log li').length >= 6")
    moves = [event for event in _events(game_id) if event.kind == "move"]
    assert moves[0].seat == 0 and moves[0].payload["move"] == {"type": "stay"}
    page.locator("#moves-panel").wait_for()
    if page.locator("#moves button.move").count() > 1:  # a real choice: nothing is chosen for the player
        assert page.locator("#confirm").count() == 0


def test_a_move_sent_as_the_game_ended_shows_the_result_first(browser, site):
    """The other player resigns while this one's move is on its way: the move is refused as
    stale and the page reads the game again, which is over. Its status tells the result first,
    then what became of the move; it does not ask for a move in a game that has ended."""
    alice, bob, game_id = _two_at_a_table(browser, site, "ann", "bea")
    for _ in range(150):  # whichever page is to move, once both show the game
        if _my_turn(alice) or _my_turn(bob):
            break
        alice.wait_for_timeout(100)
    mover, other = (alice, "bea") if _my_turn(alice) else (bob, "ann")
    _choose(mover)

    def resign_first(route):
        life.resign(game_id=game_id, user=get_user_model().objects.get(username=other))
        route.continue_()  # the move now names a seq the game has left: 409 stale_seq

    mover.route(f"**/api/games/{game_id}/moves/", resign_first)
    mover.locator("#confirm:not([disabled])").click()
    mover.locator("#status.finished").wait_for()
    wait_for_js(mover, "document.getElementById('status').textContent.includes('ended before your move')")
    status = mover.locator("#status").inner_text()
    assert status.startswith("You won"), status
    assert "choose again" not in status


def test_a_moves_answer_slower_than_its_echo_still_costs_one_read(browser, site):
    """On a loaded server a move's answer can come seconds after the news of the move (the account
    stream's echo, the page's look at the log). The page waits a second for the answer, then shows
    the news (a slow answer must not hide the move); it read the game again once the answer came:
    it now reads the move's seq once."""
    page = _sign_up(browser.new_context(viewport={"width": 1280, "height": 900}), site, "slow_answer")
    games = []
    page.on("response", lambda response: games.append(response) if response.request.method == "GET"
            and re.search(r"/api/games/\d+/$", response.url) else None)
    _create(page, site, "terrafex", bot_seat=1)
    page.locator("#moves-panel").wait_for()
    held = []
    moves = re.compile(r"/api/games/\d+/moves/$")
    page.route(moves, lambda route: held.append((route, route.fetch())))  # played; its answer held
    _choose(page)
    page.locator("#confirm:not([disabled])").click()
    _until_held(page, held)
    route, answer = held[0]
    seq = answer.json()["game"]["seq"]
    # The news of the move comes meanwhile: the account stream's echo, or at the latest the page's
    # slow look at the log (every 5 s), which finds the move's event.
    page.wait_for_timeout(7000)
    route.fulfill(response=answer)
    page.unroute(moves)
    page.wait_for_function("(seq) => Number(document.getElementById('replay-at').max) >= seq", arg=seq)
    page.wait_for_timeout(1000)  # a second read, if any, has come
    read = Counter(response.json()["seq"] for response in games if response.ok)
    assert read[seq] == 1, read
