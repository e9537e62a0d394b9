"""Deadlines enforced by real Celery workers with beat, on PostgreSQL and Redis: a 2 s step
deadline, racing sweeps, a worker killed mid-task, vacation, each policy, and a bots-only game."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from accounts import services as account_services
from games import deadlines, services, store, tasks, time_controls
from games.models import Deadline, Event, Game, Seat
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(90),
]
_names = iter(range(10**6))


def _game(control: dict | None = None, policy: str = "auto") -> tuple[Game, list]:
    User = get_user_model()
    users = [User.objects.create_user(username=f"w{next(_names)}", password="x") for _ in range(2)]
    game = services.game_create(
        creator=users[0], rules_id="scavenge", players=2, options={},
        time_control=control or {"type": "step", "seconds": 2}, timeout_policy=policy,
    )
    services.game_join(game_id=game.pk, user=users[1])
    return Game.objects.get(pk=game.pk), users


def _timeouts(game: Game) -> list[Event]:
    return list(Event.objects.filter(game=game, kind="timeout").order_by("seq"))


def _stop_clocks(*games: Game) -> None:
    Deadline.objects.filter(game__in=games).delete()


def _first_timeouts(game: Game, seconds: float) -> list[Event]:
    """Wait for the game's first timeout and stop its clocks the moment it is seen, so the next
    seat's step deadline (seconds later on a loaded machine) cannot add a second one."""

    def seen() -> list[Event]:
        found = _timeouts(game)
        if found:
            _stop_clocks(game)
        return found

    return wait_for(seen, seconds)


def test_a_two_second_step_deadline_is_enforced(start_worker):
    start_worker()
    game, _ = _game()
    seat, due_at = game.to_act[0], Deadline.objects.get(game=game).due_at
    first = wait_for(lambda: _timeouts(game), 10)[0]
    _stop_clocks(game)
    assert first.seat == seat and first.seq == game.seq + 1 and "move" in first.payload
    lateness = (first.created_at - due_at).total_seconds()
    assert 0 <= lateness < 2.0, lateness  # the bench measures lateness; this checks enforcement


def test_a_timeout_is_applied_once_when_sweeps_and_tasks_race(start_worker):
    start_worker("w1", concurrency=2)
    start_worker("w2", concurrency=2, beat=False)
    game, _ = _game({"type": "step", "seconds": 3})
    row = Deadline.objects.get(game=game)
    time.sleep(max(0.0, (row.due_at - time_controls.now()).total_seconds() - 1.2))

    def sweep() -> None:
        deadlines.sweep()
        connection.close()

    racers = [threading.Thread(target=sweep) for _ in range(3)]
    for racer in racers:
        racer.start()
    for _ in range(6):  # duplicates as a redelivery would make them
        tasks.apply_timeout.apply_async((game.pk, game.seq, row.seat), eta=row.due_at)
    for racer in racers:
        racer.join(timeout=60)
    assert not [racer for racer in racers if racer.is_alive()], "a sweep still runs after 60 s"
    _first_timeouts(game, 10)
    time.sleep(1.5)  # duplicates still in flight would land now
    assert [event.seq for event in _timeouts(game)] == [game.seq + 1]


def test_a_worker_killed_mid_task_still_gives_exactly_one_timeout(start_worker):
    doomed = start_worker("doomed", SCRAPYARD_CLOCKS_FAULT_PAUSE="30")
    game, _ = _game()
    wait_for(lambda: "fault injection" in doomed.text(), 15)
    doomed.kill()  # mid-transaction, inside the game lock, before the event is stored
    assert not _timeouts(game)
    start_worker("rescuer")  # its sweeper sends the lost timeout again after RESEND (3 s)
    _first_timeouts(game, 20)
    time.sleep(2)  # a second delivery of the killed task would land now
    assert [event.seq for event in _timeouts(game)] == [game.seq + 1]


def test_vacation_stops_a_correspondence_clock_and_it_runs_again_after(start_worker):
    start_worker()
    game, users = _game({"type": "correspondence", "days": 1})
    seat = game.to_act[0]
    account_services.vacation_set(user=users[seat], on=True)
    row = Deadline.objects.get(game=game)
    assert row.due_at is None
    Deadline.objects.filter(pk=row.pk).update(spent_seconds=row.budget_seconds - 2)  # 2 s left
    time.sleep(4)
    assert not _timeouts(game)
    account_services.vacation_set(user=users[seat], on=False)
    resumed = Deadline.objects.get(pk=row.pk).due_at
    timeout = wait_for(lambda: _timeouts(game), 10)[0]
    _stop_clocks(game)
    assert timeout.seat == seat and 0 <= (timeout.created_at - resumed).total_seconds() < 2.0


def test_each_policy_through_the_workers(start_worker):
    start_worker()
    auto, _ = _game(policy="auto")
    forfeit, _ = _game(policy="forfeit")
    bot, bot_users = _game(policy="bot")
    timed_out = bot.to_act[0]
    wait_for(lambda: all(_timeouts(game) for game in (auto, forfeit, bot)), 10)
    assert "move" in _timeouts(auto)[0].payload
    forfeit.refresh_from_db()
    assert _timeouts(forfeit)[0].payload == {"forfeit": True} and forfeit.status == "finished"
    assert Seat.objects.get(game=bot, index=timed_out).stand_in
    _stop_clocks(auto)
    bot.refresh_from_db()
    other = 1 - timed_out
    if bot.to_act == [other]:  # the person moves; the stand-in answers for the timed-out seat
        move = store.rules_of(bot).legal_moves(store.state_at(bot), other)[0]
        services.move_submit(game_id=bot.pk, user=bot_users[other], move=move, expected_seq=bot.seq)
    wait_for(lambda: Event.objects.filter(game=bot, kind="move", seat=timed_out).exists(), 10)
    services.seat_return(game_id=bot.pk, user=bot_users[timed_out])
    _stop_clocks(bot)
    assert not Seat.objects.get(game=bot, index=timed_out).stand_in


def test_a_game_of_bots_only_finishes_through_the_workers(start_worker):
    start_worker(concurrency=2)
    creator = get_user_model().objects.create_user(username="spectator", password="x")
    game = services.game_create(
        creator=creator, rules_id="terrafex", players=2, options={}, creator_plays=False,
        bot_seats=[{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}],
    )
    finished = wait_for(lambda: Game.objects.filter(pk=game.pk, status="finished").first(), 60, 0.5)
    assert finished.result["winners"] or "draw" in finished.result["reason"]  # random bots may tie
    assert not Event.objects.filter(game=game, kind="move").exclude(seat__in=(0, 1)).exists()


def test_a_deadline_is_not_held_up_by_a_saturated_bot_queue(start_worker):
    # One slow search after another on the only bot worker (level 3: up to 4 s a decision).
    deadlines = start_worker("deadlines", queues="deadlines,default", concurrency=1)
    searches = start_worker("bots", queues="bots", concurrency=1, beat=False, SCRAPYARD_BOT_DECISION_SECONDS="6")
    User = get_user_model()
    for n in range(4):
        creator = User.objects.create_user(username=f"busy{next(_names)}", password="x")
        services.game_create(
            creator=creator, rules_id="terrafex", players=2, options={}, creator_plays=False,
            bot_seats=[{"seat": 0, "bot": "mcts", "level": 3}, {"seat": 1, "bot": "mcts", "level": 3}],
        )
    time.sleep(1)
    game, _ = _game()
    due_at = Deadline.objects.get(game=game).due_at
    first = wait_for(lambda: _timeouts(game), 15)[0]
    _stop_clocks(game)
    Game.objects.filter(status="active").update(status="finished")  # the bots stop at their next turn
    lateness = (first.created_at - due_at).total_seconds()
    assert 0 <= lateness < 1.5, lateness  # the bench measures it; this checks the separation
    # bot turns are a consumer of the log: their fan-out runs the search, on the bots' queue
    assert _ran(searches, "consumers.fan_out") and not _ran(searches, "games.apply_timeout")
    assert _ran(deadlines, "games.apply_timeout")


def _ran(worker, task: str) -> bool:
    return f"Task {task}[" in worker.text()
