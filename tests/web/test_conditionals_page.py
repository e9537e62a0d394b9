"""Conditional moves on the game page: "What if…" picks a line on the board of the imagined
position, queues it, lists it with a cancel button, and the server plays it when the opponent's
move matches. Screenshots at laptop and phone width."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import ConditionalLine, Event, Game
from tests.web.conftest import wait_for_js
from tests.web.test_browser import _create, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def _pick_line(page) -> None:
    """Pick the first move at each step (on the board where it can point) until the line ends
    with the player's own reply."""
    page.click("#whatif-start")
    page.locator("#whatif-pick").wait_for()
    for _ in range(24):
        wait_for_js(page, "document.getElementById('whatif-pick').getAttribute('aria-busy') !== 'true'"
                          " && document.getElementById('whatif-prompt').textContent !== ''")
        if page.locator("#whatif-queue").is_enabled():
            return
        before = page.locator("#whatif-line").inner_text()
        pointable = page.locator("#whatif-board .pointable")
        if pointable.count():
            pointable.first.click()
        else:
            if not page.locator("#whatif-moves-box").get_attribute("open") is not None:
                page.click("#whatif-moves-box summary")
            page.locator("#whatif-moves button.move").first.click()
        # Settled: the next position is drawn (the page takes no pick while it asks for it).
        wait_for_js(page, "document.getElementById('whatif-pick').getAttribute('aria-busy') !== 'true'"
                          f" && (document.getElementById('whatif-line').textContent !== {before!r}"
                          " || document.querySelector('#whatif-board .picked') !== null)")
    raise AssertionError("no line ended with the player's reply")


@pytest.mark.parametrize("width,height,name", [(1280, 900, "laptop"), (390, 844, "phone")])
def test_a_line_is_picked_queued_cancelled_and_played(browser, site, screenshot, width, height, name):
    alice_context = browser.new_context(viewport={"width": width, "height": height})
    bob_context = browser.new_context(viewport={"width": width, "height": height})
    alice = _sign_up(alice_context, site, f"alice{name}")
    game_id = _create(alice, site, "terrafex")
    bob = _sign_up(bob_context, site, f"bob{name}")
    services.game_join(game_id=game_id, user=get_user_model().objects.get(username=f"bob{name}"))
    game = Game.objects.get(pk=game_id)
    waiting_name = next(s.user.username for s in game.seats.all() if s.index not in game.to_act)
    waiter = alice if waiting_name.startswith("alice") else bob
    waiter.goto(f"{site}/games/{game_id}/")
    waiter.locator("#whatif-box").wait_for()

    _pick_line(waiter)
    screenshot(waiter, f"conditionals-whatif-{name}")
    waiter.click("#whatif-queue")
    waiter.locator("#whatif-lines li").wait_for()
    assert "I play" in waiter.locator("#whatif-lines").inner_text()
    screenshot(waiter, f"conditionals-queued-{name}")
    waiter.locator("#whatif-lines .whatif-cancel").click()
    waiter.locator("#whatif-none").wait_for()  # at once, before the server has answered the cancel
    for _ in range(150):
        if not ConditionalLine.objects.exists():
            break
        waiter.wait_for_timeout(100)
    assert not ConditionalLine.objects.exists()

    _pick_line(waiter)
    waiter.click("#whatif-queue")
    waiter.locator("#whatif-lines li").wait_for()
    line = ConditionalLine.objects.get()
    mover = game.seats.get(index=line.moves[0]["seat"]).user
    for step in line.moves:  # the opponent plays as the line expects; the server answers
        if step["seat"] == line.seat:
            break
        seq = Game.objects.get(pk=game_id).seq
        services.move_submit(game_id=game_id, user=mover, move=step["move"], expected_seq=seq)
    reply = Event.objects.filter(game_id=game_id).order_by("-seq").first()
    assert reply.seat == line.seat and reply.payload["move"] == line.moves[-1]["move"]
    wait_for_js(waiter, f"document.getElementById('replay-at').max === '{reply.seq}'")
    waiter.locator("#whatif-none").wait_for()
