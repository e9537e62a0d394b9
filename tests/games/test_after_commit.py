"""A committed move's effects (bots, streams, listeners) run in the web process's after-commit
thread, not in the request (`games.after_commit`): in order, one failure apart from the rest, and
the conditional lines' wake-up sent only for a game with a line (asked after the commit, so a line
queued while the move held the game's lock is not missed), while the request itself does the same
work whether a line waits or not."""

from __future__ import annotations

import threading

import pytest

from games import after_commit, dispatch
from games.models import Game
from games.services import conditionals
from tests.games.test_conditionals import line_to_reply, terrafex_game

# Committed for real: the thread asks the database on its own connection after the commit.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_thread(settings, monkeypatch):
    """The thread on, as in production; what it sends is noted here, and the receivers of mail and
    hooks answer "nobody listens" (their work is theirs to test)."""
    from hooks import receivers as hooks_receivers
    from mail import receivers as mail_receivers

    settings.SCRAPYARD_AFTER_COMMIT_THREAD = True
    sent: list[tuple[str, tuple, str]] = []
    monkeypatch.setattr(dispatch, "send",
                        lambda name, args, **options: sent.append((name, args, threading.current_thread().name)))
    monkeypatch.setattr(mail_receivers, "_has_addressees", lambda game_id: False)
    monkeypatch.setattr(hooks_receivers, "listening", lambda: False)
    yield sent
    assert after_commit.drain()


def _their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(7,)):
    from tests.games.test_conditionals import ahead

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
    seq, callbacks = _their_move(game_id, mover, django_capture_on_commit_callbacks, picks=(3,))
    assert after_commit.drain()
    assert in_thread == [(dispatch.PLAY_CONDITIONALS, (game_id, seq + 1), "scrapyard-after-commit")]
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
    assert [(name, args) for name, args, _ in in_thread] == [(dispatch.PLAY_CONDITIONALS, (game_id, moved[0] + 1))]


def test_jobs_run_in_order_and_one_failing_does_not_stop_the_next(settings):
    settings.SCRAPYARD_AFTER_COMMIT_THREAD = True
    ran: list[int] = []

    def fails():
        raise RuntimeError("the broker is away")

    after_commit.soon(ran.append, 1)
    after_commit.soon(fails)
    after_commit.soon(ran.append, 2)
    assert after_commit.drain()
    assert ran == [1, 2]


def test_without_the_thread_a_job_runs_at_once_in_the_caller(settings):
    settings.SCRAPYARD_AFTER_COMMIT_THREAD = False
    ran: list[str] = []
    after_commit.soon(lambda: ran.append(threading.current_thread().name))
    assert ran == [threading.current_thread().name]


def test_with_tasks_eager_a_job_runs_in_the_caller_even_with_the_thread_on(settings):
    from project.celery import app

    settings.SCRAPYARD_AFTER_COMMIT_THREAD = True
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        ran: list[str] = []
        after_commit.soon(lambda: ran.append(threading.current_thread().name))
        assert ran == [threading.current_thread().name]
    finally:
        app.conf.task_always_eager = eager
