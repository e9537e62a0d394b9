"""The analysis of a finished game on its page: "Request analysis" queues it (the live server's
tasks run at once, as a worker would run them), then the page draws the evaluation graph, marks
the marked moves in the log, and the replay slider shows the bot's preferred move on the board
and in words. The page also says that hidden-information moves are judged from the mover's view."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from accounts import services as account_services
from analysis.models import Analysis
from games import services
from games import words
from games.models import Game
from rules.words import message_from
from tests.web.conftest import wait_for_js
from tests.web.test_browser import _create, _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def _play_and_resign(game_id: int, moves: int) -> None:
    rnd = random.Random(game_id)
    users = {seat.index: seat.user for seat in Game.objects.get(pk=game_id).seats.select_related("user")}
    from games import store

    for _ in range(moves):
        game = Game.objects.get(pk=game_id)
        seat = game.to_act[0]
        legal = store.rules_of(game).legal_moves(store.state_at(game), seat)
        services.move_submit(game_id=game_id, user=users[seat], move=rnd.choice(legal), expected_seq=game.seq)
    services.resign(game_id=game_id, user=users[1])


def test_a_finished_games_analysis_is_requested_and_shown(browser, site, screenshot, settings):
    settings.SCRAPYARD_ANALYSIS_ITERATIONS = 6
    settings.SCRAPYARD_ANALYSIS_MILLISECONDS = 100
    alice = _sign_up(browser.new_context(viewport={"width": 1280, "height": 900}), site, "alicean")
    game_id = _create(alice, site, "terrafex")
    bob, _ = account_services.account_create(username="bobanalysis", password="correct horse battery", email="")
    services.game_join(game_id=game_id, user=bob)
    _play_and_resign(game_id, moves=8)

    alice.goto(f"{site}/games/{game_id}/")
    alice.locator("#analysis-box").wait_for()
    assert "only from what its player saw" in alice.locator("#analysis-note").inner_text()
    alice.click("#analysis-request")
    alice.locator("#analysis-graph svg.analysis-graph").wait_for()
    graph = alice.locator("#analysis-graph svg.analysis-graph")
    assert graph.locator("polyline.line").count() == 2  # a line per seat
    assert "Analysed: 8 moves" in alice.locator("#analysis-status").inner_text()
    assert "alicean" in alice.locator("#analysis-graph .analysis-legend").inner_text()
    marks = alice.locator("#log .analysis-mark").count()
    assert marks == graph.locator("circle.mark").count()

    alice.click("#replay-prev")  # the position before the last event: the resignation's
    alice.click("#replay-prev")  # ... and before the last move
    alice.locator("#analysis-preferred").wait_for()
    told = alice.locator("#analysis-preferred").inner_text()
    assert "the bot preferred" in told
    if "marked on the board" in told:  # a preferred move that touches no board part is told in words only
        wait_for_js(alice, "document.querySelector('#board .preferred') !== null")
    screenshot(alice, "analysis-laptop")
    assert get_user_model().objects.filter(username="alicean").exists()


def test_a_dutch_reader_reads_the_analysed_moves_in_dutch_with_their_notation_beside(browser, site, settings):
    settings.SCRAPYARD_ANALYSIS_ITERATIONS = 6
    settings.SCRAPYARD_ANALYSIS_MILLISECONDS = 100
    femke = _sign_up(browser.new_context(locale="nl-NL", viewport={"width": 1280, "height": 900}), site, "femkean")
    game_id = _create(femke, site, "terrafex")
    bob, _ = account_services.account_create(username="bobanalysenl", password="correct horse battery", email="")
    services.game_join(game_id=game_id, user=bob)
    _play_and_resign(game_id, moves=4)

    femke.goto(f"{site}/games/{game_id}/")
    femke.click("#analysis-request")
    femke.locator("#analysis-graph svg.analysis-graph").wait_for()
    femke.click("#replay-prev")  # before the resignation
    femke.click("#replay-prev")  # before the last move: the bot's view of it
    femke.locator("#analysis-preferred").wait_for()
    last = Analysis.objects.get(game_id=game_id).moves[-1]
    with translation.override("nl"):
        played = str(words.translated(message_from(last["text_message"])))
    told = femke.locator("#analysis-preferred").inner_text()
    assert told.startswith("Hier speelde") and f" {played} {last['text']}" in told, told
    notations = femke.locator("#analysis-preferred .notation").all_inner_texts()
    assert notations[0] == last["text"] and played != last["text"]  # the notation beside, in small type
