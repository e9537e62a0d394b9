"""Any number of tabs: a correspondence player opens ten of their games at once in one browser.
Every page loads (a browser keeps at most six connections to a site, and a stream held by each
page used to leave the seventh waiting for ever) and every page shows the next move without a
reload: the pages share one stream (web/static/web/shared_stream.js)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games import selectors, services
from games.models import Game
from tests.web.test_browser import _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

TABS = 10


def test_ten_game_pages_open_at_once_each_load_and_follow_their_game(browser, site):
    context = browser.new_context()
    first = _sign_up(context, site, "tabby")
    users = get_user_model().objects
    tabby, other = users.get(username="tabby"), users.create_user(username="otto", password="correct horse battery")
    games = []
    for _ in range(TABS):
        game = services.game_create(creator=tabby, rules_id="toy_race", players=2, options={})
        services.game_join(game_id=game.pk, user=other)
        games.append(game.pk)
    pages = [first] + [context.new_page() for _ in range(TABS - 1)]
    for page, game_id in zip(pages, games):
        page.set_default_timeout(30_000)
        page.goto(f"{site}/games/{game_id}/", wait_until="commit")
    for page, game_id in zip(pages, games):
        page.locator("#panels .panel.acting").wait_for()
        assert page.locator("#status").inner_text().strip(), game_id
    for page, game_id in zip(pages, games):
        game = Game.objects.get(pk=game_id)
        mover = tabby if game.seats.get(index=game.to_act[0]).user_id == tabby.pk else other
        legal = selectors.legal_moves_for(game=game, user=mover)
        services.move_submit(game_id=game_id, user=mover, move=legal["moves"][0], expected_seq=legal["seq"])
    for page, game_id in zip(pages, games):
        seq = Game.objects.get(pk=game_id).seq
        page.locator(f"#replay-at[max='{seq}']").wait_for()  # the move, shown without a reload
