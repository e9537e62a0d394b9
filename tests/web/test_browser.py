"""Playing in a real browser, by clicking: two people in two browser contexts, and a person
against a bot; live updates without reload, a stale move handled, a phone-sized screen. Each game
played to its end against a bot is in test_table.py, which notes the table along the way."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.conftest import wait_for_js

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PASSWORD = "correct horse battery"
TIMEOUT = 15_000  # ms


def _sign_up(context, site: str, name: str):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{site}/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=email]", f"{name}@example.org")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/")
    assert page.locator("nav").inner_text().count(name) == 1
    return page


def _create(page, site: str, rules: str, players: int = 2, bot_seat: int | None = None, options: dict | None = None) -> int:
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", rules)
    page.select_option("#players", str(players))
    for name, on in (options or {}).items():
        page.set_checked(f"#option-{name}", on)
    if bot_seat is not None:
        page.select_option(f"#seat-{bot_seat}", "random:1")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def _join(page, site: str, game_id: int) -> None:
    page.goto(f"{site}/games/{game_id}/")
    page.click("#join")


def _two_at_a_table(browser, site: str, first: str, second: str, rules: str = "toy_race", first_script: str = ""):
    """Two players, each in their own browser: the first creates a game, the second joins it on
    its page. `first_script` runs in the first player's pages before theirs (a stand-in API)."""
    first_context, second_context = browser.new_context(), browser.new_context()
    if first_script:
        first_context.add_init_script(first_script)
    host = _sign_up(first_context, site, first)
    guest = _sign_up(second_context, site, second)
    game_id = _create(host, site, rules)
    _join(guest, site, game_id)
    return host, guest, game_id


def _my_turn(page) -> bool:
    return page.locator("#moves-panel").is_visible()


def _finished(page) -> bool:
    return "finished" in (page.locator("#status").get_attribute("class") or "")


def _acting(pages) -> object:
    """The page whose seat is to act, once one shows it: the other seat's news may still be on
    its way to that page (guessing from one page alone played the wrong one, which then spent a
    minute finding nothing to click)."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while not (acting := [page for page in pages if _my_turn(page)]):
        if time.monotonic() > deadline:
            pytest.fail("no page shows its seat's turn")
        pages[0].wait_for_timeout(50)
    return acting[0]


def _first(page, targets: list[str]) -> str:
    return targets[0]


def _choose(page, prefer=_first) -> None:
    """Click pointable board parts (the one `prefer` picks) until a move is chosen, or the board
    cannot tell the rest apart (then a candidate), else a move from the list."""
    for _ in range(24):
        if page.locator("#confirm").count():
            return
        pointable = page.locator(".board-svg .pointable")
        if pointable.count():
            # One look for every target (one call each was most of a long game's minute here).
            targets = pointable.evaluate_all("parts => parts.map((part) => part.getAttribute('data-target'))")
            part = page.locator(f".board-svg .pointable[data-target='{prefer(page, targets)}']")
        elif page.locator("#choice .candidate").count():
            part = page.locator("#choice .candidate").first
        else:
            part = page.locator("#moves button.move").first
        try:
            part.click(timeout=3000)
        except PlaywrightTimeout:
            continue  # news redrew the board between looking and clicking (a seat acting at the same time): look again


def _play_one(page, prefer=_first) -> None:
    """One move by pointing, then confirmed. News from a seat acting at the same time can take
    the chosen move away (it is no longer legal): then choose again, as a player would."""
    for _ in range(6):
        _choose(page, prefer)
        seq = page.locator("#replay-at").get_attribute("max")
        try:
            page.locator("#confirm:not([disabled])").click(timeout=TIMEOUT / 3)
            break
        except PlaywrightTimeout:
            if not _my_turn(page):
                return  # the news ended the turn: nothing to play now
    else:
        pytest.fail("the chosen move was taken away six times")
    # The move's answer (its confirm no longer disabled), and the position after it or no confirm:
    # the stream can draw the position before the answer comes. Selectors, not a script: the
    # pages' CSP lets no test evaluate a string of JavaScript either.
    try:
        page.locator(f"body:not(:has(#confirm[disabled])) #replay-at:not([max='{seq}']), body:not(:has(#confirm))").first.wait_for()
    except PlaywrightTimeout:  # say what the player sees, not only that a selector never matched
        seen = {part: page.locator(part).first.inner_text() for part in ("#status", "#picking", "#choice")}
        pytest.fail(f"the move after event {seq} was not shown: {seen}")


def _play_until_finished(pages, prefer=_first, moves_at_most: int = 400, quiet_at_most: float = 60.0) -> None:
    """Moves until every page shows the game finished; fails after `moves_at_most` moves, or when
    no page has shown its seat's turn for `quiet_at_most` seconds (it looked for ever, every
    100 ms, at pages that neither showed a turn nor the end)."""
    moves, quiet_until = 0, time.monotonic() + quiet_at_most
    while moves < moves_at_most:
        if all(_finished(page) for page in pages):
            return
        acting = [page for page in pages if _my_turn(page)]
        if acting:
            _play_one(acting[0], prefer)
            moves += 1
            quiet_until = time.monotonic() + quiet_at_most
        elif time.monotonic() > quiet_until:
            seen = [page.locator("#status").first.inner_text() for page in pages]
            pytest.fail(f"no page showed its turn nor the game's end for {quiet_at_most:.0f} s, {moves} moves in: "
                        f"{seen}")
        else:
            pages[0].wait_for_timeout(100)
    pytest.fail(f"the game did not end in {moves_at_most} moves")


def _towards_the_goal(page, targets: list[str]) -> str:
    """A Scavenge player who knows the game (the page does not; this test reads the game from the
    API): hunt the other token to hand it trash, then take the good stuff from the centre or
    from its carrier, then carry it home."""
    if "centre" in targets:
        return "centre"
    game = page.request.get(page.url.replace("/games/", "/api/games/")).json()
    view = game["view"]
    me, other = view["seats"][game["your_seat"]], view["seats"][1 - game["your_seat"]]
    carrier = (view["good_stuff"] or {}).get("carried_by") if isinstance(view["good_stuff"], dict) else None
    if carrier == me["seat"]:
        goal = tuple(me["start"])
    elif carrier is not None or me["trash"] > 0:
        goal = tuple(other["at"])  # land on it: hand it trash, or take (or send back) the good stuff
    else:
        goal = (4.5, 4.5)
    squares = [target for target in targets if "," in target]
    if not squares:
        return targets[0]

    def distance(target: str) -> float:
        row, col = map(int, target.split(","))
        return abs(row - goal[0]) + abs(col - goal[1])

    return min(squares, key=distance)


def test_two_people_play_a_game_to_its_end_in_two_browsers(browser, site, screenshot):
    alice_context, bob_context = browser.new_context(), browser.new_context()
    alice = _sign_up(alice_context, site, "alice")
    game_id = _create(alice, site, "toy_race")
    bob = _sign_up(bob_context, site, "bob")
    bob.locator(f"#open a[href='/games/{game_id}/']").wait_for()
    bob.locator("#open li", has_text=f"#{game_id}").get_by_role("button", name="Join").click()
    bob.wait_for_url(f"{site}/games/{game_id}/")

    # Alice's page learns of the join from the stream, without a reload.
    alice.locator("#panels .panel.acting").wait_for()
    screenshot(alice, "toy_race-start")
    _play_until_finished([alice, bob])
    for page in (alice, bob):
        page.locator("#status.finished").wait_for()
    assert re.match(r"(You|alice|bob) won \d+-\d+: first to square 10", bob.locator("#status").inner_text())
    screenshot(bob, "toy_race-finished")
    assert "finished" in bob.locator("#log").inner_text() or bob.locator("#log li").count() > 3


@pytest.mark.console_errors_allowed(r"net::ERR_FAILED .*(/stream/|/events/\?after=)")  # the streams and polls the test cuts
def test_a_stale_move_is_refused_and_the_page_shows_the_game_as_it_is_now(browser, site):
    context = browser.new_context()
    first = _sign_up(context, site, "carol")
    # The first tab hears nothing of the game (no stream, no polling); a second tab plays meanwhile.
    first.route("**/stream/**", lambda route: route.abort())
    first.route(re.compile(r".*/events/\?after=.*"), lambda route: route.abort())
    game_id = _create(first, site, "toy_race", bot_seat=1)
    first.locator("#moves button.move").first.click()
    second = context.new_page()
    second.goto(f"{site}/games/{game_id}/")
    second.locator("#moves button.move").first.click()
    second.click("#confirm")
    second.locator("#replay-at:not([max='1'])").wait_for()
    first.click("#confirm")
    first.locator("#status", has_text="moved on").wait_for()
    assert first.locator("#replay-at").get_attribute("max") != "1"


def test_news_while_a_move_awaits_its_confirm_keeps_the_confirm_and_the_click_plays_it(browser, site):
    """A redraw while the player is about to confirm (here the other player offers a draw, which
    moves the game's seq but not the player's moves) keeps the confirm bar, the very element: the
    click that follows plays the move. Replacing the bar lost the click (a flaky whole-game test)."""
    host, guest, game_id = _two_at_a_table(browser, site, "ivy", "jack")
    host.locator("#panels .panel.acting").wait_for()
    guest.locator("#panels .panel.acting").wait_for()
    mover, other = (host, guest) if _my_turn(host) else (guest, host)
    mover.locator("#moves button.move").first.click()
    confirm = mover.locator("#confirm")
    chosen = confirm.inner_text()
    kept = confirm.element_handle()
    seq_before_news = int(mover.locator("#replay-at").get_attribute("max"))
    other.click("#offer-draw")
    mover.locator("#draw-offer").wait_for()  # the news is drawn
    seq = mover.locator("#replay-at").get_attribute("max")
    assert int(seq) > seq_before_news
    assert kept.evaluate("button => button.isConnected"), "the confirm was replaced by the redraw"
    assert confirm.inner_text() == chosen
    kept.click()
    mover.locator(f"#replay-at:not([max='{seq}'])").wait_for()
    played = [event for event in _events(game_id) if event.kind == "move"]
    assert len(played) == 1  # the move, played by the click on the kept confirm
    assert played[0].seat == (0 if mover is host else 1)



def test_the_page_asks_only_for_the_events_it_does_not_show_yet(browser, site):
    """After its first load a page asks the log only for the events after the last it shows (a
    long game's whole log at every move cost more than all else a move asks of the server), and
    still lists every event once, in order."""
    host_context, guest_context = browser.new_context(), browser.new_context()
    host, guest = _sign_up(host_context, site, "kim"), _sign_up(guest_context, site, "lou")
    game_id = _create(host, site, "toy_race")
    asked = []
    host.on("request", lambda request: asked.append(request.url) if "/events/?notation=true" in request.url else None)
    _join(guest, site, game_id)
    host.locator("#panels .panel.acting").wait_for()
    for _ in range(4):
        _play_one(_acting([host, guest]))
    seq = _events(game_id)[-1].seq
    host.locator(f"#replay-at[max='{seq}']").wait_for()
    whole = [url for url in asked if "after=" not in url]
    # The first load's (when the listener heard it), and no other; news arriving during a load
    # is shown by one more load, so how many there were depends on timing.
    assert len(whole) <= 1 and len(asked) > len(whole), asked
    shown = [int(value) for value in host.locator("#log li").evaluate_all("items => items.map((item) => item.value)")]
    assert shown == list(range(1, seq + 1))

# The answer to the player's first move held back until the page shows a newer position with a move
# chosen in it and, redrawn since, a draw offer (the stream brought all of it first).
HOLD_THE_MOVES_ANSWER = """
window.__answered = false;
const fetchNow = window.fetch.bind(window);
window.fetch = async (url, options) => {
  const move = !window.__answered && options?.method === 'POST' && String(url).endsWith('/moves/');
  const sentAt = document.getElementById('replay-at')?.max;
  const answer = await fetchNow(url, options);
  if (!move) return answer;
  const until = Date.now() + 20000;
  const shown = () => document.getElementById('replay-at').max !== sentAt && document.getElementById('confirm')
    && document.getElementById('draw-offer');
  while (Date.now() < until && !shown()) {
    await new Promise((wake) => setTimeout(wake, 50));
  }
  window.__answered = true;
  const read = answer.json.bind(answer);
  answer.json = async () => { const body = await read(); window.__answer_read = true; return body; };
  return answer;
};
"""


def test_a_move_chosen_while_the_last_ones_answer_is_on_its_way_is_played_by_its_confirm(browser, site):
    """The stream can show the player's move, and the other player's reply, before the answer to
    the move arrives; a move the player chooses meanwhile stays chosen, through more news (a draw
    offer) and through the late answer. The late answer used to clear the choice but leave its
    confirm bar, and the click sent no move ('a move is a JSON object', the whole-game browser
    test's flake); a redraw while any move was on its way dropped the new choice."""
    host, guest, game_id = _two_at_a_table(browser, site, "kim", "lee", first_script=HOLD_THE_MOVES_ANSWER)
    host.locator("#panels .panel.acting").wait_for()
    if not _my_turn(host):
        guest.locator("#moves-panel").wait_for()
        _play_one(guest)
    host.locator("#moves-panel").wait_for()
    seq = int(host.locator("#replay-at").get_attribute("max"))
    _play_one(host)  # its answer is held
    guest.locator("#moves-panel").wait_for()
    _play_one(guest)
    host.locator(f"#replay-at[max='{seq + 2}']").wait_for()
    host.locator("#moves button.move").first.click()
    chosen = host.locator("#confirm").inner_text()
    guest.click("#offer-draw")
    host.locator("#draw-offer").wait_for()  # news while the first move's answer is still held
    # The answer read (the page's work on it runs straight after, before any other task); the page
    # already shows a later seq, so it reads the game no more for the answer.
    wait_for_js(host, "window.__answer_read === true")
    assert host.locator("#confirm").inner_text() == chosen
    moves_before = [event for event in _events(game_id) if event.kind == "move"]
    host.click("#confirm")
    host.locator(f"#replay-at:not([max='{seq + 3}']), #picking:has-text('Refused')").first.wait_for()
    assert "Refused" not in host.locator("#picking").inner_text()
    played = [event for event in _events(game_id) if event.kind == "move"]
    assert len(played) == len(moves_before) + 1 and played[-1].seat == 0  # the host's, played by the click


def test_a_person_plays_scavenge_against_a_bot_by_pointing_at_the_board(browser, site, screenshot):
    page = _sign_up(browser.new_context(), site, "dora")
    game_id = _create(page, site, "scavenge", bot_seat=1)
    page.locator(".board-svg").wait_for()
    screenshot(page, "scavenge-start")
    pointed = 0
    for _ in range(8):
        page.locator("#moves-panel").wait_for()
        pointed += page.locator(".board-svg .pointable").count() > 0
        _play_one(page, prefer=_towards_the_goal)
    assert pointed >= 4
    page.locator("#moves-panel").wait_for()  # the bot has answered every move
    screenshot(page, "scavenge-playing")
    log = page.locator("#log").inner_text()
    assert log.count("dora:") >= 8 and log.count("bot random:") >= 8
    assert "roll" in log and "to " in log  # the moves in the rules' notation
    events = [e for e in _events(game_id) if e.kind == "move"]
    assert len([e for e in events if e.seat == 0]) == 8


def _events(game_id: int):
    from games.models import Event

    return list(Event.objects.filter(game_id=game_id).order_by("seq"))


def test_a_game_page_fits_a_phone_and_reads_without_javascript(browser, site, screenshot):
    phone = browser.new_context(viewport={"width": 375, "height": 740})
    page = _sign_up(phone, site, "erin")
    game_id = _create(page, site, "scavenge", bot_seat=1)
    page.locator("#moves-panel").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(page, "scavenge-phone")

    plain = browser.new_context(java_script_enabled=False).new_page()
    plain.goto(f"{site}/games/{game_id}/")
    assert "P0" in plain.locator("#text-board").inner_text()
    assert plain.locator("#log li").count() >= 3
    assert plain.locator("#panels .panel").count() == 2 and "erin" in plain.locator("#panels").inner_text()
    assert plain.locator("#panels .panel.acting").count() == 1
    assert plain.locator("#status").inner_text().strip()  # the prompt, or whom the game waits for


@pytest.mark.parametrize("rules, players", [("space_junkyard", 2), ("terrafex", 2), ("terrain_vague", 2)])
def test_every_game_draws_its_board_and_takes_moves_by_pointing(browser, site, screenshot, rules, players):
    page = _sign_up(browser.new_context(), site, f"fan_{rules}")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    game_id = _create(page, site, rules, players, bot_seat=1)
    page.locator(".board-svg").wait_for()
    assert page.locator(".board-svg [data-target]").count() >= 7  # Terrain Vague starts from the centre and its ring
    screenshot(page, f"{rules}-start")
    if rules == "space_junkyard":  # printed faces, every ship's panel, the corners to start from
        assert page.locator(".board-svg .resource").count() > 0 and page.locator(".board-svg line.wall").count() > 0
        assert page.locator(".board-svg text.ship-title").count() == players
        page.locator("#moves-panel").wait_for()
        pointable = {part.get_attribute("data-target") for part in page.locator(".board-svg .pointable").all()}
        assert pointable == {"NW", "NE", "SE", "SW"}
    for _ in range(3):
        page.locator("#moves-panel").wait_for()
        _play_one(page)
    page.locator("#moves-panel").wait_for()
    screenshot(page, f"{rules}-playing")
    assert errors == []
    assert len([e for e in _events(game_id) if e.kind == "move" and e.seat == 0]) >= 3


def test_a_game_of_bots_is_watched_live_as_a_spectator(browser, site):
    page = _sign_up(browser.new_context(), site, "watcher")
    page.goto(f"{site}/games/new/")
    page.select_option("#rules", "toy_race")
    page.uncheck("#creator-plays")
    page.select_option("#seat-0", "random:1")
    page.select_option("#seat-1", "random:1")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.locator("#status.finished").wait_for(timeout=60_000)  # the bots played it out
    assert not page.locator("#moves-panel").is_visible()
    assert page.locator("#log li").count() > 5 and "bot random:" in page.locator("#log").inner_text()
    assert re.match(r"(bot random won|A draw|Nobody won)", page.locator("#status").inner_text())
    assert page.locator("#seen-box").count() == 0  # no raw data dump on a game's page


def test_the_account_page_keeps_email_and_notice_choices(browser, site):
    page = _sign_up(browser.new_context(), site, "frank")
    page.goto(f"{site}/account/")
    page.locator("[data-notice='your_turn']").uncheck()
    page.fill("#email", "frank@example.net")
    page.click("#settings-form button[type=submit]")
    page.locator("#saved", has_text="Saved").wait_for()
    page.reload()
    page.locator("[data-notice='game_over']").wait_for()
    assert not page.locator("[data-notice='your_turn']").is_checked()
    assert page.locator("[data-notice='game_over']").is_checked()
    assert page.input_value("#email") == "frank@example.net"


def test_the_account_page_keeps_mail_choices_and_shows_the_mail_received(browser, site):
    from django.contrib.auth import get_user_model

    from games import services as game_services
    from mail import services as mail_services

    page = _sign_up(browser.new_context(), site, "gwen")
    page.goto(f"{site}/account/")
    wait_for_js(page, "document.getElementById('digest-hour').value !== ''")  # the settings are in
    page.select_option("#cadence", "digest")
    page.fill("#time-zone", "America/Montreal")
    page.fill("#digest-hour", "6")
    page.click("#settings-form button[type=submit]")
    page.locator("#saved", has_text="Saved").wait_for()
    users = get_user_model().objects
    gwen, other = users.get(username="gwen"), users.create_user("hank", password="pw-long-enough")
    game = game_services.game_create(creator=gwen, rules_id="toy_race", players=2, options={})
    game_services.game_join(game_id=game.pk, user=other)
    address = mail_services.reply_address(gwen.pk, game.pk, 0)
    raw = f"From: gwen@example.org\r\nTo: {address}\r\nSubject: Re: your turn\r\n\r\nboard\r\n".encode()
    for inbound_id in mail_services.inbound_store(via="smtp", envelope_sender="gwen@example.org", recipients=[address], raw=raw):
        mail_services.inbound_handle(inbound_id=inbound_id)
    page.reload()
    page.locator("#inbound li[data-outcome='done']").wait_for()
    wait_for_js(page, "document.getElementById('digest-hour').value !== ''")  # the settings are in
    assert "board" in page.locator("#inbound").inner_text()
    assert page.input_value("#time-zone") == "America/Montreal" and page.input_value("#digest-hour") == "6"
    assert page.locator("#cadence").input_value() == "digest"
    page.goto(f"{site}/games/{game.pk}/")
    wait_for_js(page, "document.getElementById('game-mail')?.value === 'default'")
    with page.expect_response(lambda response: "/api/mail/settings/" in response.url and response.request.method == "PATCH"):
        page.select_option("#game-mail", "none")
    assert mail_services.settings_of(user=gwen)["games"] == {str(game.pk): "none"}
    mail_services.bounce_hard(user_id=gwen.pk, reason="550 no such user")
    page.goto(f"{site}/account/")
    page.locator("#bounced", has_text="bounced").wait_for()
    page.click("#mail-on")
    page.locator("#bounced").wait_for(state="hidden")


def test_a_draw_offered_in_one_browser_is_accepted_in_the_other_and_a_resignation(browser, site):
    alice, bob, game_id = _two_at_a_table(browser, site, "olga", "petr")
    alice.locator("#offer-draw").wait_for()
    alice.click("#offer-draw")
    alice.locator("#draw-offered").wait_for()
    alice.fill("#chat-text", "a draw?")
    alice.click("#chat-form button[type=submit]")
    bob.locator("#chat li", has_text="a draw?").wait_for(timeout=5000)  # pushed on the chat stream, not polled
    bob.locator("#accept-draw").wait_for()  # live, without a reload
    bob.click("#accept-draw")
    for page in (alice, bob):
        page.locator("#status.finished", has_text=re.compile(r"A draw \d+-\d+: draw agreed$")).wait_for()
    alice.goto(f"{site}/")  # the lobby words the reason as the table does
    assert alice.locator("#finished li", has_text=f"#{game_id} ").inner_text().endswith(" · draw agreed")

    second = _create(alice, site, "toy_race")
    _join(bob, site, second)
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.locator("#resign").click()
    alice.goto(f"{site}/games/{second}/")
    alice.locator("#status", has_text="You won").wait_for()


def _no_stream_here(route) -> None:
    """What a web server with no stream process beside it answers a stream request
    (`streams.views._elsewhere`): a 503, which is no stream, so the browser gives the stream up."""
    route.fulfill(status=503, content_type="application/json", headers={"Retry-After": "2"},
                  body='{"code": "streams_unavailable", "detail": "the stream server is restarting; try again in a moment"}')


@pytest.mark.console_errors_allowed(r"status of 503 .*/stream/")  # the streams the test refuses
def test_a_page_whose_streams_are_refused_follows_the_game_and_its_chat_by_polling(browser, site):
    """A 503 closes an EventSource at its first error, with no retry: the pages counted three
    failures before polling, so a player's chat and a spectator's table never moved again."""
    host, guest, game_id = _two_at_a_table(browser, site, "uma", "vic")
    host.context.route("**/stream/**", _no_stream_here)
    host.reload()
    spectator = _sign_up(browser.new_context(), site, "wes")
    spectator.context.route("**/stream/**", _no_stream_here)
    spectator.goto(f"{site}/games/{game_id}/")
    for page in (host, spectator):
        page.locator("#panels .panel.acting").wait_for()
    seq = spectator.locator("#replay-at").get_attribute("max")
    guest.fill("#chat-text", "good luck")
    guest.click("#chat-form button[type=submit]")
    host.locator("#chat li", has_text="good luck").wait_for()
    mover = host if _my_turn(host) else guest
    _play_one(mover)
    spectator.locator(f"#replay-at:not([max='{seq}'])").wait_for()


def test_a_private_game_is_joined_from_an_invitation_in_the_lobby_or_by_its_link(browser, site):
    host = _sign_up(browser.new_context(), site, "quinn")
    friend = _sign_up(browser.new_context(), site, "rosa")
    stranger = _sign_up(browser.new_context(), site, "sven")
    host.goto(f"{site}/games/new/")
    host.select_option("#rules", "scavenge")
    host.select_option("#players", "3")
    host.check("#private")
    host.fill("#invitees", "rosa")
    host.click("#new-game button[type=submit]")
    host.wait_for_url(re.compile(r"/games/\d+/$"))
    game_id = int(host.url.rstrip("/").rsplit("/", 1)[1])
    link = host.locator("#invitation-link code").inner_text()
    stranger.goto(f"{site}/")
    stranger.locator("#open li").first.wait_for()
    assert f"#{game_id} " not in stranger.locator("#open").inner_text()  # unlisted
    friend.goto(f"{site}/")
    friend.locator(f"#invited li[data-game='{game_id}'] .join-invited").click()
    friend.wait_for_url(f"{site}/games/{game_id}/")
    stranger.goto(link)
    stranger.click("#join")
    stranger.locator("#panels .panel.acting").wait_for()
