"""A finished game's analysis by mail: `analysis <id>` to the server's address queues it, and the
mail that follows when it is done lists the marked moves (once, however often the sweep looks);
asking again for a done one mails it at once; a game the sender may not see is no game."""

from __future__ import annotations

import random

import pytest

from analysis.consumer import ANALYSES
from analysis.models import Analysis
from mail.models import Inbound, Outgoing
from tests.analysis.conftest import run_analysis
from tests.api.conftest import play_to_end, register
from tests.mail.smtp import headline, text_of, thread_key
from tests.mail.test_abuse import _command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture(autouse=True)
def tiny_analysis_budget(settings):
    settings.SCRAPYARD_ANALYSIS_ITERATIONS = 6
    settings.SCRAPYARD_ANALYSIS_MILLISECONDS = 100


def _finished(first, second) -> int:
    game_id = first.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    play_to_end(game_id, [first, second], random.Random(game_id))
    return game_id


def _in_the_games_thread(analysis, received: list, game_id: int) -> None:
    """The analysis files under the game's thread, as a mail program reads the headers: the same
    root and subject as the game's other mails, following one of them."""
    game_mails = [mail for mail in received if mail is not analysis and f"Scrapyard game {game_id}:" in str(mail["Subject"])]
    assert game_mails and {thread_key(mail) for mail in game_mails} == {thread_key(analysis)}
    assert str(analysis["Subject"]).startswith(f"Scrapyard game {game_id}: toy_race")
    assert analysis["In-Reply-To"] in {str(mail["Message-ID"]) for mail in game_mails}


def test_analysis_by_mail_is_queued_then_mailed_with_the_marked_moves(sink, gateway, eager_tasks):
    ann, ben = register("ann", email="ann@players.example"), register("ben", email="ben@players.example")
    game_id = _finished(ann, ben)

    answer = _command(sink, gateway, "ann", f"analysis {game_id}")
    assert f"analysis of game {game_id} is queued" in answer
    assert Inbound.objects.order_by("pk").last().code == "analysis_queued"
    # The worker's attempt ran after the request's commit (tasks run inline here), and its own
    # commit had the mail made; an attempt given it again finds it done.
    analysis = Analysis.objects.get(game_id=game_id)
    assert analysis.status == "done" and run_analysis(game_id) == "not_ours"

    mails = [m for m in sink.to("ann@players.example") if headline(m) == f"Analysis of game {game_id}"]
    assert len(mails) == 1
    _in_the_games_thread(mails[0], sink.to("ann@players.example"), game_id)
    text = text_of(mails[0])
    marked = [m for m in Analysis.objects.get().moves if m["mark"]]
    assert f"{len(marked)} marked" in text and "only from what its player saw" in text
    for move in marked:
        assert f"{move['seq']:>4}  " in text and move["mark"] in text
    if not marked:
        assert "No move was marked." in text
    assert ANALYSES.periodic() == 0  # the sweep's turn: nothing owed, no second mail
    assert Outgoing.objects.filter(kind="analysis").count() == 1

    again = _command(sink, gateway, "ben", f"analysis {game_id}")  # done: mailed at once
    assert again.startswith(f"Analysis of game {game_id}") and f"The analysis of game {game_id} is done" in again
    _in_the_games_thread(sink.to("ben@players.example")[-1], sink.to("ben@players.example"), game_id)
    assert Inbound.objects.order_by("pk").last().code == "analysis_sent"


def test_analysis_by_mail_of_a_game_the_sender_may_not_see_or_not_finished(sink, gateway, eager_tasks):
    cal, dee = register("cal", email="cal@players.example"), register("dee", email="dee@players.example")
    running = cal.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    dee.post(f"/api/games/{running}/join/")
    assert f"game {running} is active" in _command(sink, gateway, "cal", f"analysis {running}")
    assert Inbound.objects.order_by("pk").last().code == "game_not_finished"
    private = cal.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    register("eve", email="eve@players.example")
    told = _command(sink, gateway, "eve", f"analysis {private}")
    assert f"there is no game {private}" in told and not Analysis.objects.exists()
