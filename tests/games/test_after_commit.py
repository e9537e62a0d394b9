"""A committed move's effects (bots, streams, listeners) run in the web process's after-commit
thread, not in the request (`consumers.after_commit`): in order, one failure apart from the rest, and
the conditional lines' wake-up sent only for a game whose locked row says a line may wait (set
under the same lock by the line's storing, so a line stored while a move waits for the lock is not
missed), while the request itself does the same work whether a line waits or not."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from django.db import connections, transaction

from consumers import after_commit
from consumers.framework import DELIVER, FAN_OUT, fan_out
from consumers.models import Message
from games import dispatch
from games.models import ConditionalLine, Game
from games.services import conditionals
from tests.games.test_conditionals import ahead, line_to_reply, terrafex_game

# Committed for real: the thread asks the database on its own connection after the commit.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_thread(monkeypatch):
    """The thread (the suite's default, as in production); what it sends is noted here, and the
    receivers of mail and hooks answer "nobody listens" (their work is theirs to test)."""
    from consumers import framework

    sent: list[tuple[str, tuple, str]] = []
    monkeypatch.setattr(dispatch, "send",
                        lambda name, args, **options: sent.append((name, args, threading.current_thread().name)))
    monkeypatch.setattr(framework, "listening", lambda consumer, game_id: False)
    yield sent
    assert after_commit.drain()


def test_by_default_a_moves_news_runs_on_the_thread_after_the_answer_and_the_test_waits_for_it(monkeypatch):
    """The suite runs the production path (issue 50): nothing here turns the thread on. A move's
    news is told on the after-commit thread, not in the request, and the test client's request
    returns once it has run (tests/conftest.py), so a test sees the news's effects at once."""
    from consumers import framework

    news = framework.news
    told: list[tuple[int, int, str]] = []

    def noted(game_id, seq=None, hints=None):
        told.append((game_id, seq, threading.current_thread().name))
        news(game_id, seq, hints)

    monkeypatch.setattr(framework, "news", noted)
    assert after_commit.in_background()
    game_id, mover, _, _ = terrafex_game()
    assert {name for _, _, name in told} == {"scrapyard-after-commit"}  # the creation's, the join's
    told.clear()
    answer = mover.submit(game_id, ahead(game_id, [7])[0][1], Game.objects.get(pk=game_id).seq)
    assert answer.status_code == 201
    assert told == [(game_id, answer.json()["game"]["seq"], "scrapyard-after-commit")]
    assert threading.current_thread().name != "scrapyard-after-commit"


def _their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(7,)):
    seq = Game.objects.get(pk=game_id).seq
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert mover.submit(game_id, ahead(game_id, list(picks))[0][1], seq).status_code == 201
    return seq, callbacks


def test_the_wake_up_goes_only_to_a_game_with_a_line_and_never_from_the_request(
    in_thread, django_capture_on_commit_callbacks
):
    game_id, mover, waiter, seat = terrafex_game()
    seq, callbacks = _their_move(game_id, mover, django_capture_on_commit_callbacks)
    assert after_commit.drain()
    assert in_thread == []  # no line: no worker woken for nothing
    request_work = len(callbacks)

    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    _, callbacks = _their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(3,))
    assert after_commit.drain()
    assert in_thread == [(FAN_OUT, ("conditionals", game_id), "scrapyard-after-commit")]
    assert len(callbacks) == request_work  # the request did the same with a line as without


def test_a_line_checked_before_a_move_and_stored_after_it_still_wakes_the_worker(
    in_thread, django_capture_on_commit_callbacks, monkeypatch
):
    """The waiting seat's line is checked against the position, then the opponent's move commits
    (its wake-up finds no line yet), then the line is stored: as when the line's INSERT waits on
    the move's lock. The worker is woken all the same, at once, not at beat's next sweep."""
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    checked = conditionals._checked_line
    moved: list[int] = []

    def check_then_let_the_move_in(*args):
        result = checked(*args)
        moved.append(_their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(3,))[0])
        assert after_commit.drain()
        assert in_thread == []  # the move's own wake-up saw no line
        return result

    monkeypatch.setattr(conditionals, "_checked_line", check_then_let_the_move_in)
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    assert after_commit.drain()
    (name, (consumer, row_id)), = [(name, args) for name, args, _ in in_thread]
    assert (name, consumer) == (DELIVER, "conditionals")  # the line's own row, sent once it committed
    assert Message.objects.filter(pk=row_id, game_id=game_id, seq=moved[0] + 1).exists()


@pytest.mark.postgres  # the row lock a move waits on, and pg_locks to see it wait
def test_a_line_stored_while_the_move_waits_for_the_lock_is_seen_on_the_row_the_move_locks(
    in_thread, django_capture_on_commit_callbacks, monkeypatch
):
    """The line's storing holds the game's row lock (it sets `lines_waiting`) when the opponent's
    move asks for it; the move waits, then reads the flag on the row it locks and wakes the
    worker. The line's own after-commit look (`_wake_if_moved_on`) is silenced, so only the row
    can have told the move."""
    monkeypatch.setattr(conditionals, "_wake_if_moved_on", lambda line, seq: None)
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    waiter_user = Game.objects.get(pk=game_id).seats.get(index=seat).user
    seq = Game.objects.get(pk=game_id).seq
    theirs = ahead(game_id, [3])[0][1]
    stored, answers = threading.Event(), []

    def store_the_line_and_hold_the_lock():
        try:
            with transaction.atomic():
                conditionals.conditional_create(game_id=game_id, user=waiter_user, moves=line)
                stored.set()
                _wait_until_someone_waits_for_a_lock()
        finally:
            connections.close_all()

    def their_move():
        try:
            answers.append(mover.submit(game_id, theirs, seq).status_code)
        finally:
            connections.close_all()

    holder = threading.Thread(target=store_the_line_and_hold_the_lock)
    holder.start()
    assert stored.wait(10)
    move = threading.Thread(target=their_move)
    move.start()
    holder.join(15)
    move.join(15)
    assert answers == [201]
    assert after_commit.drain()
    assert [(name, args) for name, args, _ in in_thread] == [(FAN_OUT, ("conditionals", game_id))]


def _wait_until_someone_waits_for_a_lock(seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    with connections["default"].cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("the move never waited for the line's lock")


def test_once_no_line_is_left_the_worker_clears_the_flag_and_moves_stop_waking_it(
    in_thread, django_capture_on_commit_callbacks
):
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    answer = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line})
    assert answer.status_code == 201
    assert Game.objects.get(pk=game_id).lines_waiting
    assert waiter.client.delete(f"/api/games/{game_id}/conditionals/{answer.json()['id']}/").status_code == 204
    assert not ConditionalLine.objects.filter(game_id=game_id).exists()
    _their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(5,))
    assert after_commit.drain()
    assert [(name, args) for name, args, _ in in_thread] == [(FAN_OUT, ("conditionals", game_id))]
    assert fan_out(conditionals.CONDITIONAL_LINES, game_id) == 0  # the worker, woken: no line left
    assert not Game.objects.get(pk=game_id).lines_waiting
    in_thread.clear()
    game = Game.objects.get(pk=game_id)
    their_seat = game.to_act[0]
    player = mover if their_seat != seat else waiter
    with django_capture_on_commit_callbacks(execute=True):
        assert player.submit(game_id, ahead(game_id, [0])[0][1], game.seq).status_code == 201
    assert after_commit.drain()
    assert in_thread == []


def test_the_flag_is_never_in_what_anyone_is_shown(django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    for player in (mover, waiter):
        assert "lines_waiting" not in player.get(f"/api/games/{game_id}/").content.decode()


def test_no_setting_takes_the_thread_away(settings):
    """Every installation runs the news on the thread (docs/decisions/0005): the figures settled
    it, so an environment cannot turn it off, not even with the name the retired flag had."""
    settings.SCRAPYARD_AFTER_COMMIT_THREAD = False
    assert after_commit.in_background()


def test_jobs_run_in_order_and_one_failing_does_not_stop_the_next():
    ran: list[int] = []

    def fails():
        raise RuntimeError("the broker is away")

    after_commit.soon(ran.append, 1)
    after_commit.soon(fails)
    after_commit.soon(ran.append, 2)
    assert after_commit.drain()
    assert ran == [1, 2]


def test_a_failure_outside_the_jobs_does_not_end_the_thread(monkeypatch, caplog):
    """The connections' check before a burst failed (in the suite: a test without the database,
    where pytest-django refuses it): the thread ended, and every later job waited forever. Now
    the failure is logged and the burst's jobs still run."""
    check = after_commit.close_old_connections
    failures = iter([RuntimeError("the database is away")])

    def fails_once():
        failure = next(failures, None)
        if failure is not None:
            raise failure
        check()

    monkeypatch.setattr(after_commit, "close_old_connections", fails_once)
    ran: list[int] = []
    after_commit.soon(ran.append, 1)
    assert after_commit.drain()
    after_commit.soon(ran.append, 2)
    assert after_commit.drain()
    assert ran == [1, 2]
    assert "after-commit job fails_once() failed" in caplog.text


def test_in_the_callers_block_a_job_runs_at_once_in_the_caller():
    """The tests' way past the thread (a test inside one uncommitted transaction): for the block
    only, and the thread again after it."""
    ran: list[str] = []
    with after_commit.in_the_caller():
        after_commit.soon(lambda: ran.append(threading.current_thread().name))
        assert not after_commit.in_background()
    assert ran == [threading.current_thread().name]
    assert after_commit.in_background()


def test_with_tasks_eager_a_job_runs_in_the_caller():
    from project.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        ran: list[str] = []
        after_commit.soon(lambda: ran.append(threading.current_thread().name))
        assert ran == [threading.current_thread().name]
    finally:
        app.conf.task_always_eager = eager


@pytest.mark.redis
def test_a_burst_of_jobs_sends_its_stream_notices_together_in_order_and_drain_waits_for_them(settings, monkeypatch):
    """Jobs queued while the thread is busy run as one burst: their notices leave in one pipeline,
    in the order of the jobs, and `drain` returns only once they have left."""
    import redis

    from games import announce

    settings.SCRAPYARD_REDIS_NAMESPACE = f"burst-{time.monotonic_ns()}"
    sent_together: list[int] = []
    publish_all = announce._publish_all
    monkeypatch.setattr(announce, "_publish_all", lambda notices: (sent_together.append(len(notices)),
                                                                   publish_all(notices)))
    listener = redis.Redis.from_url(settings.REDIS_URL).pubsub()
    listener.psubscribe(f"{announce.game_prefix()}*")
    assert listener.get_message(timeout=2)["type"] == "psubscribe"
    busy, release = threading.Event(), threading.Event()
    after_commit.soon(lambda: (busy.set(), release.wait(5)))
    assert busy.wait(5)
    for seq in range(1, 6):
        after_commit.soon(announce.event_recorded, 900_001, seq)
    release.set()
    assert after_commit.drain()
    heard = [listener.get_message(timeout=2) for _ in range(5)]
    assert [json.loads(message["data"])["seq"] for message in heard] == [1, 2, 3, 4, 5]
    assert sent_together == [5]
    listener.close()


def test_the_module_imports_before_django_is_set_up():
    """`bench.p1_profile` imports it first (it failed when the module imported the models)."""
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", "import consumers.after_commit"], env=env, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert done.returncode == 0, done.stderr
