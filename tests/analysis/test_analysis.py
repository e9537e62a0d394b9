"""The analysis of a finished game (`/api/games/{id}/analysis`, `analysis/`): a real worker task
analyses every move; marks follow the drop; one analysis per game, however many ask or run it at
once; a done one is answered from the store; a private game's is its players' only; an unfinished
game has none; a hidden-information game is analysed from each mover's view, never the truth."""

from __future__ import annotations

import datetime as dt
import random
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

import rules
from analysis import engine, services
from analysis.consumer import ANALYSES
from consumers import framework
from consumers.models import Message
from analysis.models import Analysis, AnalysisStatus
from bots.evaluation import Evaluation
from games import store
from games.models import Event, Game
from games.positions import MoveSeen
from tests.analysis.conftest import run_analysis, run_row
from tests.api.conftest import Player, play_to_end, register, start_game

pytestmark = pytest.mark.django_db


def _finished_race(private: bool = False) -> tuple[int, list]:
    if private:
        host, guest = register(), register()
        game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                            "invitees": [guest.username]}).json()["id"]
        assert guest.post(f"/api/games/{game_id}/join/").status_code == 201
        seated = [host, guest]
    else:
        game_id, seated = start_game("toy_race", 2)
    play_to_end(game_id, seated, random.Random(game_id))
    return game_id, seated


def _move_events(game_id: int) -> list[Event]:
    return [e for e in Event.objects.filter(game_id=game_id).order_by("seq") if "move" in e.payload]


# --- marks -----------------------------------------------------------------------------------


@pytest.mark.parametrize("before,after,mark", [
    (0.9, 0.6, "mistake"), (0.5, 0.25, "mistake"), (0.5, 0.3, "inaccuracy"), (0.5, 0.375, "inaccuracy"),
    (0.5, 0.4, None), (0.3, 0.6, None),
])
def test_a_drop_of_a_quarter_is_a_mistake_and_an_eighth_an_inaccuracy(before, after, mark):
    assert engine.mark_of(before=before, after=after, choices=3, preferred_played=False) == mark


def test_a_forced_move_or_the_bots_own_choice_is_never_marked():
    assert engine.mark_of(before=0.9, after=0.1, choices=1, preferred_played=False) is None
    assert engine.mark_of(before=0.9, after=0.1, choices=3, preferred_played=True) is None


def test_a_known_drop_is_stored_with_its_mark(monkeypatch):
    values = iter([Evaluation(0.8, {"type": "step"}, 2), Evaluation(0.5, None, 0)])
    monkeypatch.setattr(engine, "evaluate", lambda *args: next(values))
    game_rules = rules.get("toy_race")
    state = game_rules.setup(2, {}, "seed")
    seen = MoveSeen(seq=2, seat=0, move={"type": "roll"}, text="roll", before=game_rules.view(state, 0),
                    after=game_rules.view(game_rules.apply(state, 0, {"type": "roll"}), 0))
    analysed = engine.analyse_move(game_rules, 1, seen, engine.Budget(iterations=1, milliseconds=None))
    assert analysed["before"] == 0.8 and analysed["after"] == 0.5 and analysed["drop"] == 0.3
    assert analysed["mark"] == "mistake" and analysed["preferred"] == {"type": "step"}


# --- the worker ------------------------------------------------------------------------------


def test_a_finished_game_is_analysed_by_the_worker_task_and_then_answered_from_the_store(ask, sent):
    game_id, (alice, bob) = _finished_race()
    asked = ask(alice, game_id)
    assert asked.status_code == 202 and asked.json()["status"] == "queued", asked.content
    analysis = Analysis.objects.get(game_id=game_id)
    assert sent == [(framework.DELIVER, ("analysis", run_row(game_id)))]
    assert bob.get(f"/api/games/{game_id}/analysis").json()["status"] == "queued"

    assert run_analysis(game_id) == "done"

    answer = bob.get(f"/api/games/{game_id}/analysis").json()
    assert answer["status"] == "done" and answer["range"] == [0.0, 1.0]
    events = _move_events(game_id)
    assert [(m["seq"], m["seat"], m["move"]) for m in answer["moves"]] == [(e.seq, e.seat, e.payload["move"]) for e in events]
    game_rules = rules.get("toy_race")
    for analysed in answer["moves"]:
        assert 0 <= analysed["before"] <= 1 and 0 <= analysed["after"] <= 1
        assert analysed["choices"] == 2 and analysed["preferred"] in game_rules.legal_moves(
            store.state_at(Game.objects.get(pk=game_id), analysed["seq"] - 1), analysed["seat"])
        assert analysed["mark"] == engine.mark_of(before=analysed["before"], after=analysed["after"], choices=2,
                                                  preferred_played=analysed["preferred"] == analysed["move"])
    # the winner's last move ends the game: after it, its expectation is a won game's
    assert answer["moves"][-1]["after"] >= 0.9

    again = ask(register(), game_id)  # anyone, for a public game
    assert again.status_code == 200 and again.json()["moves"] == answer["moves"]
    assert len(sent) == 1 and run_analysis(game_id) == "not_ours"  # cached: never run again


def test_the_same_game_analysed_twice_gives_the_same_answer(ask, sent, settings):
    settings.SCRAPYARD_ANALYSIS_MILLISECONDS = 60_000  # iterations alone decide: reproducible
    game_id, (alice, _) = _finished_race()
    ask(alice, game_id)
    run_analysis(game_id)
    first = Analysis.objects.get(game_id=game_id).moves
    Analysis.objects.all().delete()
    ask(alice, game_id)
    run_analysis(game_id)
    assert Analysis.objects.get(game_id=game_id).moves == first


def test_an_unfinished_game_has_no_analysis(ask, sent):
    game_id, (alice, _) = start_game("toy_race", 2)
    for answer in (ask(alice, game_id), alice.get(f"/api/games/{game_id}/analysis")):
        assert answer.status_code == 409 and answer.json()["code"] == "game_not_finished"
    assert not Analysis.objects.exists() and not sent


def test_a_private_games_analysis_is_its_players_only(ask, sent):
    game_id, (host, guest) = _finished_race(private=True)
    stranger = register()
    for answer in (ask(stranger, game_id), stranger.get(f"/api/games/{game_id}/analysis")):
        assert answer.status_code == 404 and answer.json()["code"] == "game_not_found"
    assert not Analysis.objects.exists()
    assert ask(guest, game_id).status_code == 202


def test_asking_needs_an_account_reading_a_public_one_does_not(sent):
    from rest_framework.test import APIClient

    game_id, _ = _finished_race()
    assert APIClient().post(f"/api/games/{game_id}/analysis").status_code == 401
    assert APIClient().get(f"/api/games/{game_id}/analysis").json()["status"] == "none"


# --- one at a time ---------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_make_one_analysis_and_send_one_task(sent):
    if connection.vendor != "postgresql":
        pytest.skip("a race needs PostgreSQL")
    game_id, seated = _finished_race()
    users = [get_user_model().objects.get(username=p.username) for p in seated]
    barrier = threading.Barrier(2)

    def request_from(user):
        barrier.wait()
        try:
            services.analysis_request(game_id=game_id, user=user)
        finally:
            connection.close()

    threads = [threading.Thread(target=request_from, args=(user,)) for user in users]
    [t.start() for t in threads]
    [t.join(timeout=60) for t in threads]
    assert not [t for t in threads if t.is_alive()], "a request still waits after 60 s"
    assert Analysis.objects.filter(game_id=game_id).count() == 1
    assert len(sent) == 1
    assert Analysis.objects.get().requests.count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_given_one_analysis_run_it_once(ask, sent, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("a race needs PostgreSQL")
    game_id, (alice, _) = _finished_race()
    ask(alice, game_id)
    first_searching, second_done = threading.Event(), threading.Event()
    searched = []
    real = engine.evaluate

    def evaluate(*args):
        searched.append(args[2])
        first_searching.set()
        second_done.wait(10)
        return real(*args)

    monkeypatch.setattr(engine, "evaluate", evaluate)
    results = {}

    def run(name):
        try:
            results[name] = run_analysis(game_id)
        finally:
            connection.close()

    first = threading.Thread(target=run, args=("first",))
    first.start()
    assert first_searching.wait(10)
    run("second")  # a redelivered message, while the first worker holds the lease
    second_done.set()
    first.join(timeout=60)
    assert not first.is_alive(), "the first worker's analysis still runs after 60 s"
    assert results == {"first": "done", "second": "not_ours"}
    assert len(searched) == 2 * len(_move_events(game_id))  # every position searched once (before, after)


def test_the_sweep_sends_again_a_lost_message_and_a_dead_workers_analysis(ask, sent):
    game_id, (alice, _) = _finished_race()
    ask(alice, game_id)
    row = run_row(game_id)
    sent.clear()
    assert framework.due_send(ANALYSES) == 0  # just queued: its message may still come
    later = timezone.now() + dt.timedelta(seconds=ANALYSES.resend_seconds + 1)
    assert framework.due_send(ANALYSES, at=later) == 1 and sent == [(framework.DELIVER, ("analysis", row))]
    Analysis.objects.filter(game_id=game_id).update(status=AnalysisStatus.RUNNING)  # its worker died running it
    Message.objects.filter(pk=row).update(leased_until=timezone.now() - dt.timedelta(seconds=1),
                                          enqueued_at=timezone.now() - dt.timedelta(hours=1))
    sent.clear()
    assert framework.due_send(ANALYSES) == 1 and sent == [(framework.DELIVER, ("analysis", row))]
    assert run_analysis(game_id) == "done" and Analysis.objects.get().status == AnalysisStatus.DONE


def test_an_analysis_whose_runs_keep_dying_is_given_up_as_failed(ask, sent):
    game_id, (alice, _) = _finished_race()
    ask(alice, game_id)
    Analysis.objects.filter(game_id=game_id).update(status=AnalysisStatus.RUNNING)
    Message.objects.filter(pk=run_row(game_id)).update(retries=len(ANALYSES.retry_waits),
                                                       leased_until=timezone.now() - dt.timedelta(seconds=1))
    assert run_analysis(game_id) == "failed"
    analysis = Analysis.objects.get()
    assert analysis.status == AnalysisStatus.FAILED and "died" in analysis.problem
    assert alice.get(f"/api/games/{game_id}/analysis").json()["status"] == "failed"


# --- hidden information ----------------------------------------------------------------------


def test_a_hidden_information_game_is_analysed_from_each_movers_view_only(ask, sent, monkeypatch):
    from tests.api.test_game_record_api import _finished

    game_id, seated = _finished("terrain_vague", moves=60, options={"board": "random"})
    given = []
    real = engine.evaluate

    def evaluate(game_rules, view, seat, budget, rng):
        given.append((view, seat))
        return real(game_rules, view, seat, budget, rng)

    monkeypatch.setattr(engine, "evaluate", evaluate)
    ask(seated[0], game_id)
    assert run_analysis(game_id) == "done"

    game = Game.objects.get(pk=game_id)
    game_rules = store.rules_of(game)
    events = _move_events(game_id)
    assert len(given) == 2 * len(events)
    differs = 0
    for event, (before, seat), (after, _) in zip(events, given[::2], given[1::2]):
        truth_before = store.state_at(game, event.seq - 1)
        assert seat == event.seat and isinstance(before, dict)
        assert before == game_rules.view(truth_before, seat)  # what the mover saw, no more
        assert after == game_rules.view(store.state_at(game, event.seq), seat)
        other = 1 - seat
        differs += game_rules.view(truth_before, other) != before
    # Somewhere the other seat knew what the mover did not (a secret duel choice): using the
    # truth, or the other's view, would have given the analyser another position.
    resolving = [e for e in events if "revealed" in e.public_payload.get("move", {})]
    assert resolving and differs
    for event in resolving:  # the second chooser of a duel never saw the first's choice
        before = given[2 * events.index(event)][0]
        truth = store.state_at(game, event.seq - 1)
        assert before != game_rules.view(truth, 1 - event.seat)
    answer = seated[1].get(f"/api/games/{game_id}/analysis").json()
    assert "only from what its player saw" in answer["seen_from"]


def test_asking_takes_a_play_token_and_a_revoked_one_gets_nothing_queued(ask, sent):
    """As an attacker would try it: a read-only token, a just-revoked one, and a private game's id
    that answers exactly as an id that does not exist."""

    game_id, (host, _) = _finished_race()
    reader = Player(host.username, host.post("/api/tokens/", {"scopes": ["read"]}).json()["token"])
    assert ask(reader, game_id).status_code == 403
    made = host.post("/api/tokens/", {"scopes": ["play"]}).json()
    player = Player(host.username, made["token"])
    assert host.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
    refused = ask(player, game_id)
    assert refused.status_code == 401 and refused.json()["code"] == "authentication_failed"
    assert not Analysis.objects.exists() and sent == []

    private_id, _ = _finished_race(private=True)
    stranger = register()
    hidden, unknown = ask(stranger, private_id), ask(stranger, private_id + 1000)
    assert (hidden.status_code, hidden.json()["code"]) == (unknown.status_code, unknown.json()["code"]) == (404, "game_not_found")
