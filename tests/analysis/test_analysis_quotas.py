"""Analyses anyone may ask for cost the machine: a queue and worker of their own, a quota per
account (queued and running) and per game (how often a day it is queued), refused with 429, a
stable code and Retry-After; asking for one already queued or done costs nothing."""

from __future__ import annotations

import configparser
import random
from pathlib import Path

import pytest

from analysis.consumer import ANALYSES
from consumers import framework
from analysis.models import Analysis, AnalysisStatus
from tests.analysis.conftest import run_analysis
from tests.api.conftest import play_to_end, register, start_game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _finished_games(count: int) -> list[int]:
    games = []
    for _ in range(count):
        game_id, seated = start_game("toy_race", 2)
        play_to_end(game_id, seated, random.Random(game_id))
        games.append(game_id)
    return games


def test_an_account_over_its_quota_of_queued_and_running_analyses_is_refused(ask, sent, settings):
    settings.SCRAPYARD_ANALYSIS_PER_ACCOUNT = 2
    first, second, third = _finished_games(3)
    flooder = register()
    assert ask(flooder, first).status_code == 202
    assert ask(flooder, second).status_code == 202
    Analysis.objects.filter(game_id=second).update(status=AnalysisStatus.RUNNING)  # running counts too

    refused = ask(flooder, third)

    assert refused.status_code == 429, refused.content
    assert refused.json()["code"] == "too_many_analyses" and int(refused["Retry-After"]) > 0
    assert not Analysis.objects.filter(game_id=third).exists()
    assert [name for name, _ in sent] == [framework.DELIVER, framework.DELIVER]
    # someone else is not held back by the flooder's quota
    assert ask(register(), third).status_code == 202
    # and once one of the flooder's is done, it may ask again
    assert run_analysis(first) == "done"
    Analysis.objects.filter(game_id=third).update(status=AnalysisStatus.FAILED)
    assert ask(flooder, third).status_code == 202


def test_asking_for_an_analysis_already_queued_or_done_is_never_refused(ask, sent, settings):
    settings.SCRAPYARD_ANALYSIS_PER_ACCOUNT = 1
    mine, queued, done = _finished_games(3)
    asker, other = register(), register()
    assert ask(asker, mine).status_code == 202
    assert ask(other, queued).status_code == 202
    assert ask(other, done).status_code == 429  # the other's own quota, by the way
    Analysis.objects.filter(game_id=queued).update(status=AnalysisStatus.RUNNING)

    assert ask(asker, queued).status_code == 202  # it queues nothing: no quota spent
    assert len(sent) == 2


def test_a_games_analysis_is_queued_at_most_so_often_a_day(ask, sent, settings):
    settings.SCRAPYARD_ANALYSIS_PER_ACCOUNT = 100
    settings.SCRAPYARD_ANALYSIS_RUNS_PER_GAME = 3
    (game_id,) = _finished_games(1)
    asker = register()
    for _ in range(3):
        assert ask(asker, game_id).status_code == 202
        Analysis.objects.filter(game_id=game_id).update(status=AnalysisStatus.FAILED, problem="boom")

    refused = ask(register(), game_id)

    assert refused.status_code == 429 and refused.json()["code"] == "analysis_runs_used", refused.content
    assert int(refused["Retry-After"]) > 0 and len(sent) == 3
    assert Analysis.objects.get(game_id=game_id).status == AnalysisStatus.FAILED


def test_analyses_have_a_queue_and_a_low_priority_worker_of_their_own():
    from project.celery import app

    route = app.amqp.router.route
    assert ANALYSES.queue == "analysis"  # the framework sends its runs there (`Consumer.queue`)
    for task in ("games.apply_timeout", "games.sweep_deadlines"):
        assert route({}, task)["queue"].name != "analysis", task
    assert all(consumer.queue != "analysis" for consumer in framework.registered() if consumer is not ANALYSES)
    config = configparser.RawConfigParser()
    config.read(ROOT / "deploy" / "supervisord.conf")
    assert "--queues=analysis" in config.get("program:analysis", "command")
    assert config.get("program:analysis", "environment") == 'SCRAPYARD_WORKER_NICE="19"'
    assert "analysis" in config.get("group:workers", "programs").split(",")
    for section in config.sections():
        queues = config.get(section, "command", fallback="").partition("--queues=")[2].split(" ")[0]
        assert section == "program:analysis" or "analysis" not in queues.split(","), section


def test_a_pool_process_takes_the_niceness_its_worker_is_given(monkeypatch):
    import os

    from project import celery

    niced = []
    monkeypatch.setattr(os, "setpriority", lambda which, who, niceness: niced.append((which, who, niceness)))
    monkeypatch.setenv("SCRAPYARD_WORKER_NICE", "19")
    celery._pool_process_niceness()
    monkeypatch.delenv("SCRAPYARD_WORKER_NICE")
    celery._pool_process_niceness()
    assert niced == [(os.PRIO_PROCESS, 0, 19)]
