"""The game page's log names each line's player as the log does: the seat's player at that event,
not the seat's player now (bea's lines stay hers after cid took her seat), a system line once in
its own words ("ann takes a seat", not "ann: ann takes a seat"), a move beside its player. The
page as served (read without JavaScript) and as its script draws it say the same."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import selectors, services
from tests.web.conftest import wait_for_js

SEATED = ["game created", "ann takes a seat", "bea takes a seat", "bea leaves the seat", "cid takes a seat",
          "dan takes a seat", "game started"]


def _seat_changes_hands() -> tuple[int, dict]:
    """ann's game of three: bea takes seat 1 and leaves it, cid takes it, dan seat 2: it starts."""
    users = {name: get_user_model().objects.create_user(username=name) for name in ("ann", "bea", "cid", "dan")}
    game = services.game_create(creator=users["ann"], rules_id="toy_race", players=3, options={})
    services.game_join(game_id=game.pk, user=users["bea"])
    services.leave(game_id=game.pk, user=users["bea"])
    for name in ("cid", "dan"):
        services.game_join(game_id=game.pk, user=users[name])
    return game.pk, users


def _step(game_id: int, user) -> None:
    seq = selectors.game_get(game_id=game_id).seq
    services.move_submit(game_id=game_id, user=user, move={"type": "step"}, expected_seq=seq)


@pytest.mark.django_db
def test_the_served_page_names_each_lines_player_at_that_event():
    game_id, users = _seat_changes_hands()
    _step(game_id, users["ann"])
    page = Client().get(f"/games/{game_id}/").content.decode()
    log = page.split('<ol id="log"', 1)[1].split("</ol>", 1)[0]
    assert re.findall(r"<li [^>]*>(.*?)</li>", log) == [*SEATED, "ann: step"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_the_pages_script_names_each_lines_player_at_that_event(browser, site):
    game_id, users = _seat_changes_hands()
    page = browser.new_context().new_page()
    page.goto(f"{site}/games/{game_id}/")
    wait_for_js(page, "document.getElementById('replay-label').textContent !== ''")  # the script drew the log
    assert page.locator("#log li").all_inner_texts() == SEATED
    _step(game_id, users["ann"])  # news: the script adds the new line to those it drew
    page.locator("#log li", has_text="step").wait_for()
    assert page.locator("#log li").all_inner_texts() == [*SEATED, "ann: step"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_a_seat_a_stand_in_plays_says_so_in_its_panel_and_its_lines_name_the_bot(browser, site):
    """Under the `bot` policy the page told a stand-in's turns as the owner's and its panel said
    nothing of the bot."""
    import datetime as dt

    from games import time_controls, timeouts
    from games.models import Deadline

    users = {name: get_user_model().objects.create_user(username=name) for name in ("ann", "bea")}
    game = services.game_create(creator=users["ann"], rules_id="toy_race", players=2, options={}, timeout_policy="bot",
                                time_control={"type": "correspondence", "days": 1})
    services.game_join(game_id=game.pk, user=users["bea"])
    game = selectors.game_get(game_id=game.pk)
    late = game.to_act[0]
    Deadline.objects.filter(game_id=game.pk).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=late)
    owner = ("ann", "bea")[late]
    page = browser.new_context().new_page()
    page.goto(f"{site}/games/{game.pk}/")
    wait_for_js(page, "document.getElementById('replay-label').textContent !== ''")
    lines = page.locator("#log li").all_inner_texts()
    assert lines[-2] == f"bot mcts plays for {owner}" and lines[-1].startswith("bot mcts: timeout: ")
    assert page.locator(f"#panels li[data-seat='{late}'] .badge.stand-in").inner_text() == "played by bot mcts"
    assert page.locator(f"#panels li[data-seat='{1 - late}'] .badge.stand-in").count() == 0
