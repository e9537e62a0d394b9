"""Bot turns, conditional lines and mail's forced moves as consumers of the log
(`consumers.framework`): each keeps only its notice and its delivery, and gets from the framework
what mail and webhooks get: a message lost with the broker is found by the sweep, a failing
delivery is tried again after a wait (with jitter), and two workers never both deliver one row.
And nothing else consumes the log: no task, beat entry or receiver of its own."""

from __future__ import annotations

import datetime as dt
import threading
from unittest.mock import patch

import pytest
from django.db import connections

from consumers import framework
from consumers.models import Cursor, Message
from games import dispatch, selectors, services, time_controls
from games.models import Game, IdempotencyKey
from games.services import bot_turns, conditionals, lobby
from mail import services as mail_services
from mail.consumer import FORCED_MOVES
from mail.services import forced
from tests.api.conftest import register
from tests.games.test_conditionals import line_to_reply, terrafex_game
from tests.mail.players import mail_game

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


def _forced_to_play(monkeypatch, first_email: str = "seat0@players.example", first_plays_forced: bool = True) -> Game:
    """A Scavenge game between two accounts whose first roll is seat 0's 0: staying is its only
    move, and (by default) its account has an address and lets the server play forced moves. Its
    news never ran (a test's transaction never commits): the wake-up is lost."""
    monkeypatch.setattr(lobby, "new_seed", lambda: "forced-39")
    first, second = register(email=first_email), register(email="seat1@players.example")
    if not first_plays_forced:
        assert first.client.patch("/api/mail/settings/", {"play_forced": False}, format="json").status_code == 200
    game = Game.objects.get(pk=mail_game(first, second, "scavenge"))
    assert game.status == "active" and game.to_act == [0]
    assert len(first.get(f"/api/games/{game.pk}/legal-moves/").json()["moves"]) == 1
    return game


def _forced_played(game: Game) -> bool:
    """The server played seat 0's stay as its own move, at the seq it was due."""
    event = Game.objects.get(pk=game.pk).events.filter(seq=game.seq + 1).first()
    keyed = IdempotencyKey.objects.filter(event=event, key=f"{selectors.FORCED_KEY_PREFIX}{game.pk}-{game.seq}-0")
    return event is not None and event.seat == 0 and event.payload["move"] == {"type": "stay"} and keyed.exists()


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


# --- forced moves (mail) --------------------------------------------------------------------


def test_a_forced_move_whose_message_was_lost_is_found_by_the_sweep_and_played(monkeypatch):
    with patch.object(dispatch, "send") as sent:
        game = _forced_to_play(monkeypatch)
        assert not Message.objects.filter(consumer="forced", game_id=game.pk).exists()  # lost: never fanned out
        sent.reset_mock()
        assert framework.sweep(force=True) >= 1
        assert ((framework.FAN_OUT, ("forced", game.pk)), {"queue": "mail"}) in [
            (call.args, call.kwargs) for call in sent.call_args_list]
        framework.fan_out(FORCED_MOVES, game.pk)  # what that message runs, in a mail worker
    row = Message.objects.get(consumer="forced", game_id=game.pk)
    assert row.status == "done" and row.seq == game.seq and row.key == f"forced:{game.pk}:{game.seq}"
    assert _forced_played(game), "played in the fan-out's worker, at once"


def test_a_forced_moves_commit_brings_the_consumer_back_so_a_run_plays_out(monkeypatch,
                                                                          django_capture_on_commit_callbacks):
    with patch.object(dispatch, "send") as sent:
        game = _forced_to_play(monkeypatch)
        with django_capture_on_commit_callbacks(execute=True):  # the forced move's news runs
            framework.fan_out(FORCED_MOVES, game.pk)
    assert _forced_played(game)
    fan_outs = [call.args[1][0] for call in sent.call_args_list if call.args[0] == framework.FAN_OUT]
    assert fan_outs.index("forced") < fan_outs.index("mail"), "the next position is looked at, before its mail"


def test_a_forced_move_lost_after_its_row_was_made_is_sent_again_by_the_sweep(monkeypatch):
    with patch.object(dispatch, "send") as sent:
        game = _forced_to_play(monkeypatch)
        with patch.object(framework, "attempt"):  # the worker died right after the fan-out committed
            framework.fan_out(FORCED_MOVES, game.pk)
        row = Message.objects.get(consumer="forced", game_id=game.pk)
        sent.reset_mock()
        assert framework.due_send(FORCED_MOVES) == 0  # it may still be on its way
        later = time_controls.now() + dt.timedelta(seconds=FORCED_MOVES.resend_seconds + 1)
        assert framework.due_send(FORCED_MOVES, at=later) == 1
    assert sent.call_args.args == (framework.DELIVER, ("forced", row.pk)) and sent.call_args.kwargs == {"queue": "mail"}
    assert framework.attempt(FORCED_MOVES, row.pk, at=later).delivered
    assert _forced_played(game)


def test_a_failing_forced_move_is_retried_with_backoff(monkeypatch):
    with patch.object(dispatch, "send"):
        game = _forced_to_play(monkeypatch)
        before = time_controls.now()
        with patch.object(forced, "forced_moves_play", side_effect=RuntimeError("the database went away")):
            framework.fan_out(FORCED_MOVES, game.pk)
        after = time_controls.now()
    row = Message.objects.get(consumer="forced", game_id=game.pk)
    assert row.status == "pending" and row.retries == 1 and "the database went away" in row.error
    _waits_its_first_wait(FORCED_MOVES, row, before, after)
    assert Game.objects.get(pk=game.pk).seq == game.seq, "nothing played yet"
    assert framework.attempt(FORCED_MOVES, row.pk) is None  # not due yet
    with patch.object(dispatch, "send") as sent:
        assert framework.due_send(FORCED_MOVES, at=row.next_attempt_at) == 1  # due again: the sweep sends it
    assert sent.call_args.args == (framework.DELIVER, ("forced", row.pk))
    with patch.object(dispatch, "send"):
        assert framework.attempt(FORCED_MOVES, row.pk, at=row.next_attempt_at).delivered
    assert _forced_played(game)
    assert forced.forced_moves_play(game_id=game.pk, seq=game.seq) == 0, "asked again: nothing more is played"


def _news_of(game: Game) -> list:
    """What the game's news sends (its last move's, with the writer's hints), and nothing cached
    of who listens."""
    framework.forget_remembered()
    framework.listeners_changed(FORCED_MOVES, str(game.pk))
    with patch.object(dispatch, "send") as sent:
        framework.news(game.pk, game.seq, {"bots": False, "lines_waiting": False})
    return [(call.args, call.kwargs) for call in sent.call_args_list]


@pytest.mark.parametrize("first", ["no address", "forced moves turned off"])
def test_a_game_with_no_forced_move_account_pays_nothing_for_its_moves(monkeypatch, first):
    """Seat 0's only move is forced, but its account has no address, or turned forced moves off
    (and seat 1's turned them off too): no message, no row, no cursor; and a delivery all the same
    (a row made while it still wanted them) plays nothing for it."""
    with patch.object(dispatch, "send"):
        game = _forced_to_play(monkeypatch, first_email="" if first == "no address" else "seat0@players.example",
                               first_plays_forced=first == "no address")
    second = game.seats.get(index=1).user
    mail_services.settings_update(user=second, play_forced=False)
    sent = _news_of(game)
    assert sent and not [args for args, _ in sent if args[1][0] == "forced"]  # mail's own fan-out goes on
    assert {args[0] for args, _ in sent} == {framework.FAN_OUT}, "no task of its own either"
    assert not Message.objects.filter(consumer="forced").exists()
    assert not Cursor.objects.filter(consumer="forced").exists()
    assert not [entry for entry in FORCED_MOVES.followed(time_controls.now()) if entry["game"] == game.pk]
    assert forced.forced_moves_play(game_id=game.pk, seq=game.seq) == 0
    assert Game.objects.get(pk=game.pk).seq == game.seq
    # The account chooses them again: the next news is this consumer's, ahead of mail's.
    mail_services.settings_update(user=second, play_forced=True)
    sent = _news_of(game)
    fan_outs = [args[1][0] for args, _ in sent if args[0] == framework.FAN_OUT]
    assert fan_outs.index("forced") < fan_outs.index("mail")


# --- nothing consumes the log outside the framework -----------------------------------------


def test_every_consumer_of_the_log_is_the_frameworks_with_no_task_sweep_or_receiver_of_its_own():
    """The log's news has one receiver (the framework's), and no app keeps a task, a beat entry
    or a look-back of its own to follow it: the tasks are the framework's, the games' deadlines,
    a reply by mail (a player's move) and competition's (ratings are left outside: decision
    0021). Mail's forced moves, the last kept outside, are a consumer on mail's queue."""
    from django.conf import settings

    from consumers import receivers
    from games import signals
    from project.celery import app

    assert [receiver() for _, receiver, *_ in signals.events_recorded.receivers] == [receivers.events_recorded]
    app.loader.import_default_modules()
    tasks = sorted(name for name in app.tasks if not name.startswith("celery."))
    assert tasks == ["competition.game_finished", "competition.pair", "competition.sweep", framework.DELIVER,
                     framework.FAN_OUT, framework.SWEEP, "games.apply_timeout", "games.sweep_abandoned",
                     "games.sweep_deadlines", "mail.handle_inbound"]
    assert sorted(entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()) == [
        "competition.sweep", framework.SWEEP, "games.sweep_abandoned", "games.sweep_deadlines"]
    assert not hasattr(framework.Consumer, "wakes"), "no task of its own sent beside a consumer's fan-out"
    names = [consumer.name for consumer in framework.registered()]
    assert {"bots", "conditionals", "forced", "mail", "hooks", "analysis"} <= set(names)
    assert names.index("forced") < names.index("mail")  # a forced move played spares a mail
    assert not hasattr(forced, "forced_moves_missed") and not hasattr(forced, "FORCED_LOOK_BACK")


# --- no double delivery across two workers --------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["bots", "conditionals", "forced"])
def test_two_workers_attempting_one_row_at_once_deliver_it_once(name, monkeypatch):
    """Two workers get the same row's message at the same moment (a resend crossing the first):
    the lease lets one deliver it; the other finds it taken and does nothing."""
    consumer = framework.get(name)
    made = {"bots": lambda: _bot_to_act().pk, "conditionals": lambda: _line_waiting()[0],
            "forced": lambda: _forced_to_play(monkeypatch).pk}
    with patch.object(dispatch, "send"):
        game_id = made[name]()
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
