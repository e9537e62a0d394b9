"""Bot turns and conditional lines as consumers of the log (`consumers.framework`): each keeps
only its notice and its delivery, and gets from the framework what mail and webhooks get: a
message lost with the broker is found by the sweep, a failing delivery is tried again after a
wait (with jitter), and two workers never both deliver one row."""

from __future__ import annotations

import datetime as dt
import threading
from unittest.mock import patch

import pytest
from django.db import connections

from consumers import framework
from consumers.models import Message
from games import dispatch, services, time_controls
from games.models import Game
from games.services import bot_turns, conditionals
from tests.api.conftest import register
from tests.games.test_conditionals import line_to_reply, terrafex_game

pytestmark = pytest.mark.django_db


def _bot_to_act() -> Game:
    """A game whose bot seat is to act, its wake-up lost (every message to the broker is)."""
    human = register()
    created = human.post("/api/games/", {"rules": "terrafex", "players": 2, "bots": [{"seat": 1, "bot": "random"}]})
    game = Game.objects.get(pk=created.json()["id"])
    while 1 not in game.to_act:
        move = human.get(f"/api/games/{game.pk}/legal-moves/").json()["moves"][0]
        assert human.submit(game.pk, move, game.seq).status_code == 201
        game = Game.objects.get(pk=game.pk)
    return game


def _line_waiting() -> tuple[int, int, int]:
    """A game where the opponent's move has just matched a queued line, its wake-up lost:
    (game, the seq the line answers, the line's seat)."""
    game_id, mover, waiter, seat = terrafex_game()
    line = line_to_reply(game_id, seat, [3])
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line]}).status_code == 201
    for _, move in line[:-1]:
        assert mover.submit(game_id, move, Game.objects.get(pk=game_id).seq).status_code == 201
    return game_id, Game.objects.get(pk=game_id).seq, seat


def _quiet_for_a_minute(game_id: int) -> None:
    Game.objects.filter(pk=game_id).update(updated_at=time_controls.now() - dt.timedelta(minutes=1))


def _waits_its_first_wait(consumer, row, before, after) -> None:
    """The row is due again after the consumer's first wait, plus at most 10% jitter, counted from
    the failed attempt (made between `before` and `after`)."""
    wait = dt.timedelta(seconds=consumer.retry_waits[0])
    assert before + wait <= row.next_attempt_at <= after + wait * 1.1


# --- bot turns ------------------------------------------------------------------------------


def test_a_bot_turn_whose_message_was_lost_is_found_by_the_sweep_and_played():
    with patch.object(dispatch, "send") as sent:
        game = _bot_to_act()
        assert not Message.objects.filter(consumer="bots", game_id=game.pk).exists()  # lost: never fanned out
        _quiet_for_a_minute(game.pk)
        sent.reset_mock()
        assert framework.sweep(force=True) >= 1
        assert ((framework.FAN_OUT, ("bots", game.pk)), {"queue": "bots"}) in [
            (call.args, call.kwargs) for call in sent.call_args_list]
        framework.fan_out(services.BOT_TURNS, game.pk)  # what that message runs, in a bots worker
    row = Message.objects.get(consumer="bots", game_id=game.pk)
    assert row.status == "done" and row.seq == game.seq
    assert Game.objects.get(pk=game.pk).seq > game.seq, "the bot played, in the fan-out's worker, at once"


def test_a_bot_turn_lost_after_its_row_was_made_is_sent_again_by_the_sweep():
    with patch.object(dispatch, "send") as sent:
        game = _bot_to_act()
        with patch.object(framework, "attempt"):  # the worker died right after the fan-out committed
            framework.fan_out(services.BOT_TURNS, game.pk)
        row = Message.objects.get(consumer="bots", game_id=game.pk)
        sent.reset_mock()
        assert framework.due_send(services.BOT_TURNS) == 0  # it may still be on its way
        later = time_controls.now() + dt.timedelta(seconds=services.BOT_TURNS.resend_seconds + 1)
        assert framework.due_send(services.BOT_TURNS, at=later) == 1
    assert sent.call_args.args == (framework.DELIVER, ("bots", row.pk)) and sent.call_args.kwargs == {"queue": "bots"}


def test_a_failing_bot_turn_is_retried_with_backoff():
    with patch.object(dispatch, "send"):
        game = _bot_to_act()
        before = time_controls.now()
        with patch.object(bot_turns, "bot_seat_play", side_effect=RuntimeError("the search blew up")):
            framework.fan_out(services.BOT_TURNS, game.pk)
        after = time_controls.now()
    row = Message.objects.get(consumer="bots", game_id=game.pk)
    assert row.status == "pending" and row.retries == 1 and "the search blew up" in row.error
    _waits_its_first_wait(services.BOT_TURNS, row, before, after)
    assert Game.objects.get(pk=game.pk).seq == game.seq, "nothing played yet"
    with patch.object(dispatch, "send") as sent:
        assert framework.due_send(services.BOT_TURNS, at=row.next_attempt_at) == 1  # due again: the sweep sends it
    assert sent.call_args.args == (framework.DELIVER, ("bots", row.pk))
    assert framework.attempt(services.BOT_TURNS, row.pk, at=row.next_attempt_at).delivered
    assert Game.objects.get(pk=game.pk).seq > game.seq


# --- conditional lines ----------------------------------------------------------------------


def test_a_conditional_line_whose_message_was_lost_is_found_by_the_sweep_and_played():
    with patch.object(dispatch, "send") as sent:
        game_id, seq, seat = _line_waiting()
        _quiet_for_a_minute(game_id)
        sent.reset_mock()
        assert framework.sweep(force=True) >= 1
        assert ((framework.FAN_OUT, ("conditionals", game_id)), {"queue": "deadlines"}) in [
            (call.args, call.kwargs) for call in sent.call_args_list]
        framework.fan_out(services.CONDITIONAL_LINES, game_id)
    game = Game.objects.get(pk=game_id)
    assert game.seq == seq + 1 and game.events.get(seq=seq + 1).seat == seat
    assert Message.objects.get(consumer="conditionals", game_id=game_id, seq=seq).status == "done"


def test_a_failing_conditional_line_is_retried_with_backoff():
    with patch.object(dispatch, "send"):
        game_id, seq, seat = _line_waiting()
        before = time_controls.now()
        with patch.object(conditionals, "conditionals_play", side_effect=RuntimeError("a worker's error")):
            framework.fan_out(services.CONDITIONAL_LINES, game_id)
        after = time_controls.now()
    row = Message.objects.get(consumer="conditionals", game_id=game_id, seq=seq)
    assert row.status == "pending" and row.retries == 1
    _waits_its_first_wait(services.CONDITIONAL_LINES, row, before, after)
    assert framework.attempt(services.CONDITIONAL_LINES, row.pk) is None  # not due yet
    assert framework.attempt(services.CONDITIONAL_LINES, row.pk, at=row.next_attempt_at).delivered
    assert Game.objects.get(pk=game_id).events.get(seq=seq + 1).seat == seat


# --- no double delivery across two workers --------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["bots", "conditionals"])
def test_two_workers_attempting_one_row_at_once_deliver_it_once(name):
    """Two workers get the same row's message at the same moment (a resend crossing the first):
    the lease lets one deliver it; the other finds it taken and does nothing."""
    consumer = framework.get(name)
    with patch.object(dispatch, "send"):
        game_id = _bot_to_act().pk if name == "bots" else _line_waiting()[0]
    seq = Game.objects.get(pk=game_id).seq
    row = Message.objects.create(consumer=name, recipient=0, key=f"test:{name}:{game_id}", kind="test",
                                 game_id=game_id, seq=seq, next_attempt_at=time_controls.now())
    both_in, delivered, outcomes = threading.Barrier(2), [], []

    def slow_delivery(attempted):
        delivered.append(attempted.pk)
        return framework.Outcome(delivered=True)

    def worker():
        try:
            both_in.wait(5)
            outcomes.append(framework.attempt(consumer, row.pk))
        finally:
            connections.close_all()

    with patch.object(type(consumer), "deliver", lambda self, attempted: slow_delivery(attempted)):
        workers = [threading.Thread(target=worker) for _ in range(2)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join(15)
    assert delivered == [row.pk]
    assert sorted(outcome is None for outcome in outcomes) == [False, True]
    row.refresh_from_db()
    assert row.status == "done" and row.leased_until is None
