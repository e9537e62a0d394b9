"""Clocks without a worker: time controls, deadline rows, late moves, the policies, bank clocks,
weekends, vacation and the sweeper, with the clocks' time set by the test."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model

from accounts import selectors as account_selectors
from accounts import services as account_services
from games import deadlines, dispatch, errors, selectors, services, store, time_controls, timeouts
from games.models import Deadline, Event, Game, Seat

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)  # a Wednesday


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        at = T0

        def advance(self, seconds: float) -> None:
            self.at += dt.timedelta(seconds=seconds)

    fake = Clock()
    monkeypatch.setattr(time_controls, "now", lambda: fake.at)
    return fake


def _users(n: int) -> list:
    User = get_user_model()
    start = User.objects.count()
    return [User.objects.create_user(username=f"c{start + i}", password="x") for i in range(n)]


def _game(control: dict, policy: str = "auto", players: int = 2) -> tuple[Game, list]:
    users = _users(players)
    game = services.game_create(
        creator=users[0], rules_id="scavenge", players=players, options={}, time_control=control,
        timeout_policy=policy,
    )
    for user in users[1:]:
        services.game_join(game_id=game.pk, user=user)
    return Game.objects.get(pk=game.pk), users


def _row(game: Game, seat: int | None = None) -> Deadline:
    seat = game.to_act[0] if seat is None else seat
    return Deadline.objects.get(game=game, seat=seat)


def _move(game: Game, users: list) -> Event:
    game.refresh_from_db()
    seat = game.to_act[0]
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]
    return services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq).event


# --- choosing -------------------------------------------------------------------------------


def test_time_controls_are_checked_and_filled_in():
    assert time_controls.normalize_time_control(None) == {}
    assert time_controls.normalize_time_control({"type": "step", "seconds": 90}) == {"type": "step", "seconds": 90}
    assert time_controls.normalize_time_control({"type": "bank"}) == {
        "type": "bank", "initial_hours": 240, "increment_hours": 36, "cap_hours": 240, "pause_weekends": False,
    }
    bad = [
        {"type": "hourglass"}, {"type": "step"}, {"type": "step", "seconds": 0}, {"type": "step", "seconds": True},
        {"type": "correspondence", "days": 4}, {"type": "step", "seconds": 60, "pause_weekends": True},
        {"type": "bank", "initial_hours": 300, "cap_hours": 240}, "fast",
    ]
    for control in bad:
        with pytest.raises(errors.InvalidInput):
            time_controls.normalize_time_control(control)
    with pytest.raises(errors.InvalidInput):
        time_controls.normalize_policy("pray")


def test_counted_time_skips_weekends():
    friday_noon = dt.datetime(2026, 11, 20, 12, tzinfo=dt.timezone.utc)
    assert time_controls.add_counted(friday_noon, 86_400, True) == friday_noon + dt.timedelta(days=3)
    assert time_controls.add_counted(friday_noon, 86_400, False) == friday_noon + dt.timedelta(days=1)
    saturday = dt.datetime(2026, 11, 21, 9, tzinfo=dt.timezone.utc)
    assert time_controls.add_counted(saturday, 3600, True) == dt.datetime(2026, 11, 23, 1, tzinfo=dt.timezone.utc)
    assert time_controls.counted_between(friday_noon, friday_noon + dt.timedelta(days=3), True) == 86_400
    assert time_controls.counted_between(saturday, saturday + dt.timedelta(hours=5), True) == 0


# --- deadlines and late moves ---------------------------------------------------------------


def test_a_step_deadline_follows_the_turn_and_a_late_move_is_refused(clock):
    game, users = _game({"type": "step", "seconds": 90})
    first = _row(game)
    assert first.due_at == T0 + dt.timedelta(seconds=90) and first.seq == game.seq
    clock.advance(30)
    _move(game, users)
    game.refresh_from_db()
    assert list(Deadline.objects.filter(game=game).values_list("seat", flat=True)) == game.to_act
    assert _row(game).due_at == clock.at + dt.timedelta(seconds=90)
    clock.advance(91)
    seq = game.seq
    with pytest.raises(errors.DeadlinePassed):
        _move(game, users)
    assert Game.objects.get(pk=game.pk).seq == seq  # nothing stored


def test_a_private_game_may_have_no_clock_and_any_other_gets_fourteen_days_a_move():
    users = _users(2)
    untimed = services.game_create(creator=users[0], rules_id="scavenge", players=2, options={},
                                   time_control={"type": "none"}, private=True)
    services.game_join(game_id=untimed.pk, user=users[1], invitation=untimed.invitation_key)
    assert not Deadline.objects.filter(game=untimed).exists()
    game, _ = _game({})
    [deadline] = Deadline.objects.filter(game=game)
    assert game.time_control == {"type": "correspondence", "days": 14, "pause_weekends": False}
    assert deadline.budget_seconds == 14 * 86_400


def test_auto_timeout_is_applied_once_through_the_service(clock):
    game, _ = _game({"type": "step", "seconds": 60})
    seat, seq = game.to_act[0], game.seq
    assert timeouts.timeout_apply(game_id=game.pk, seq=seq, seat=seat) is None  # not due yet
    clock.advance(61)
    event = timeouts.timeout_apply(game_id=game.pk, seq=seq, seat=seat)
    assert event.kind == "timeout" and event.seat == seat and "move" in event.payload
    assert timeouts.timeout_apply(game_id=game.pk, seq=seq, seat=seat) is None
    assert Event.objects.filter(game=game, kind="timeout").count() == 1
    game.refresh_from_db()
    assert _row(game).due_at == clock.at + dt.timedelta(seconds=60)


def test_forfeit_policy_lets_the_rules_end_the_game(clock):
    game, _ = _game({"type": "step", "seconds": 60}, policy="forfeit")
    seat = game.to_act[0]
    clock.advance(60)
    event = timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=seat)
    assert event.payload == {"forfeit": True}
    game.refresh_from_db()
    assert game.status == "finished" and game.result["winners"] == [1 - seat]
    assert not Deadline.objects.filter(game=game).exists()


def test_bot_policy_seats_a_stand_in_until_the_owner_returns(clock, django_capture_on_commit_callbacks):
    game, users = _game({"type": "step", "seconds": 60}, policy="bot")
    seat = game.to_act[0]
    clock.advance(60)
    with django_capture_on_commit_callbacks() as wakeups:
        event = timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=seat)
    assert event.kind == "timeout" and "move" in event.payload
    assert Seat.objects.get(game=game, index=seat).stand_in == "mcts"
    game.refresh_from_db()
    if seat in game.to_act:  # the stand-in plays at once: no deadline, a bot task
        assert wakeups and not Deadline.objects.filter(game=game, seat=seat).exists()
    services.seat_return(game_id=game.pk, user=users[seat])
    assert Seat.objects.get(game=game, index=seat).stand_in == ""
    game.refresh_from_db()
    assert set(Deadline.objects.filter(game=game).values_list("seat", flat=True)) == set(game.to_act)


def test_bank_clock_keeps_time_adds_the_increment_up_to_the_cap(clock):
    control = {"type": "bank", "initial_hours": 10, "increment_hours": 3, "cap_hours": 12}
    game, users = _game(control)
    seat = game.to_act[0]
    clock.advance(3600)
    _move(game, users)
    assert Seat.objects.get(game=game, index=seat).bank_seconds == 12 * 3600  # 9 h + 3 h, the cap
    game.refresh_from_db()
    other = game.to_act[0]
    clock.advance(4 * 3600)
    _move(game, users)
    assert Seat.objects.get(game=game, index=other).bank_seconds == 9 * 3600  # 10 - 4 + 3
    game.refresh_from_db()
    if game.to_act[0] == seat:
        assert _row(game).due_at == clock.at + dt.timedelta(hours=12)


def test_weekends_pause_a_correspondence_clock(clock):
    clock.at = dt.datetime(2026, 11, 20, 12, tzinfo=dt.timezone.utc)  # Friday noon
    game, _ = _game({"type": "correspondence", "days": 1, "pause_weekends": True})
    assert _row(game).due_at == dt.datetime(2026, 11, 23, 12, tzinfo=dt.timezone.utc)


# --- vacation -------------------------------------------------------------------------------


def test_vacation_stops_correspondence_clocks_and_restarts_them_where_they_were(clock):
    game, users = _game({"type": "correspondence", "days": 3})
    seat = game.to_act[0]
    clock.advance(86_400)
    account_services.vacation_set(user=users[seat], on=True)
    row = _row(game)
    assert row.due_at is None and row.spent_seconds == 86_400
    clock.advance(5 * 86_400)
    assert deadlines.sweep() == 0
    account_services.vacation_set(user=users[seat], on=False)
    assert _row(game).due_at == clock.at + dt.timedelta(days=2)
    info = account_selectors.vacation_info(account_services.account_of(users[seat]))
    assert info["days_used"] == 5 and info["days_left"] == 25 and not info["on_vacation"]


def test_step_clocks_never_stop_and_vacation_runs_out(clock):
    game, users = _game({"type": "step", "seconds": 60})
    seat = game.to_act[0]
    account_services.vacation_set(user=users[seat], on=True)
    assert _row(game).due_at == T0 + dt.timedelta(seconds=60)
    clock.advance(31 * 86_400)
    assert account_services.vacations_expire() == 1
    assert account_selectors.vacation_info(account_services.account_of(users[seat]))["days_left"] == 0
    with pytest.raises(errors.NoVacationLeft):
        account_services.vacation_set(user=users[seat], on=True)


def test_a_seat_due_while_on_vacation_starts_stopped(clock):
    users = _users(2)
    account_services.vacation_set(user=users[1], on=True)
    game = services.game_create(
        creator=users[0], rules_id="scavenge", players=2, options={}, time_control={"type": "bank"}
    )
    services.game_join(game_id=game.pk, user=users[1])
    game.refresh_from_db()
    for _ in range(10):  # play seat 0 (not on vacation, so its clock runs) until seat 1 is due
        if 1 in game.to_act:
            break
        assert _row(game, 0).due_at is not None
        _move(game, users)
        game.refresh_from_db()
    on_vacation = _row(game, 1)
    assert on_vacation.due_at is None and on_vacation.running_since is None
    clock.advance(3600)
    account_services.vacation_set(user=users[1], on=False)
    assert _row(game, 1).due_at == clock.at + dt.timedelta(hours=240)


# --- the sweeper ----------------------------------------------------------------------------


def test_sweep_sends_each_due_deadline_once_until_resend(clock, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, eta=None: sent.append((name, args, eta)))
    game, _ = _game({"type": "step", "seconds": 10})
    due = _row(game)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 0
    clock.advance(9)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # within the look-ahead, with its ETA
        assert deadlines.sweep() == 0
    assert sent == [("games.apply_timeout", (game.pk, game.seq, due.seat), due.due_at)]
    clock.advance(60)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # still due long after: its task was lost, send again
    assert sent[-1] == ("games.apply_timeout", (game.pk, game.seq, due.seat), None)


def test_a_timeout_sent_on_time_and_lost_is_sent_again_seconds_past_its_deadline(
    clock, monkeypatch, django_capture_on_commit_callbacks, settings
):
    """A broker that came back empty lost the message sent on time: the sweep sends it again
    OVERDUE_RESEND seconds past the deadline, once, not RESEND seconds after it was sent."""
    settings.SCRAPYARD_CLOCKS_RESEND, settings.SCRAPYARD_CLOCKS_OVERDUE_RESEND = 30, 3
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, eta=None: sent.append((name, args, eta)))
    game, _ = _game({"type": "step", "seconds": 3})
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # within the look-ahead: sent with its ETA (then lost)
    clock.advance(3 + 2)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 0  # two seconds late: its worker may just be busy
    clock.advance(2)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # four seconds late: lost, sent again now
    for _ in range(10):  # then the usual wait before any further resend
        clock.advance(2)
        with django_capture_on_commit_callbacks(execute=True):
            assert deadlines.sweep() == 0
    clock.advance(12)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1
    assert len(sent) == 3


def test_a_timeout_sent_before_redis_last_started_is_sent_again_at_once(
    clock, monkeypatch, django_capture_on_commit_callbacks, settings
):
    """Its message went with the Redis that stopped (it keeps nothing): no waiting for the
    overdue resend, let alone RESEND."""
    settings.SCRAPYARD_CLOCKS_RESEND, settings.SCRAPYARD_CLOCKS_OVERDUE_RESEND = 30, 3
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, eta=None: sent.append((name, args, eta)))
    started = {"at": T0 - dt.timedelta(hours=1)}
    monkeypatch.setattr(dispatch, "broker_started_at", lambda now: started["at"])
    game, _ = _game({"type": "step", "seconds": 3})
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # sent with its ETA
    clock.advance(1)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 0  # the same Redis: its message is there
    started["at"] = clock.at  # Redis restarted, empty
    clock.advance(1)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 1  # before its deadline even: sent again, with its ETA
        assert deadlines.sweep() == 0
    assert len(sent) == 2 and sent[1][2] == _row(game).due_at


def test_rows_the_broker_refused_go_back_to_the_next_sweep(clock, monkeypatch, django_capture_on_commit_callbacks):
    def refuse(name, args, eta=None):
        raise ConnectionError("Redis away")

    monkeypatch.setattr(dispatch, "send", refuse)
    games = [_game({"type": "step", "seconds": 3})[0] for _ in range(2)]
    with pytest.raises(ConnectionError), django_capture_on_commit_callbacks(execute=True):
        deadlines.sweep()
    assert [_row(game).enqueued_at for game in games] == [None, None]  # not stamped as sent
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, eta=None: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.sweep() == 2
    assert sorted(game_id for game_id, _, _ in sent) == sorted(game.pk for game in games)


def test_a_timeout_sent_before_its_deadline_moved_later_is_handed_back(clock):
    game, _ = _game({"type": "step", "seconds": 60})
    Deadline.objects.filter(game=game).update(enqueued_at=clock.at)
    assert timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=game.to_act[0]) is None
    assert _row(game).enqueued_at is None  # the sweeper sends it again when it falls due


def test_each_seat_of_a_simultaneous_step_has_its_own_deadline(clock, monkeypatch):
    import random

    monkeypatch.setattr(services.lobby, "new_seed", lambda: "x")  # a seed whose game reaches a duel soon
    users = _users(3)
    game = services.game_create(
        creator=users[0], rules_id="terrain_vague", players=3, options={},
        time_control={"type": "step", "seconds": 90},
    )
    for user in users[1:]:
        services.game_join(game_id=game.pk, user=user)
    game_rules = store.rules_of(game)
    for k in range(400):
        game.refresh_from_db()
        if len(game.to_act) > 1:
            break
        clock.advance(1)
        seat = game.to_act[0]
        move = random.Random(k).choice(game_rules.legal_moves(store.state_at(game), seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)
    first, second = game.to_act[:2]
    assert {row.seat: row.due_at for row in Deadline.objects.filter(game=game)} == {
        first: clock.at + dt.timedelta(seconds=90), second: clock.at + dt.timedelta(seconds=90),
    }
    started = clock.at
    clock.advance(30)
    _move_as(game, users, first)
    game.refresh_from_db()
    kept = _row(game, second)
    assert first not in game.to_act and kept.seq == game.seq
    assert kept.due_at == started + dt.timedelta(seconds=90)  # the step's clock runs on


def _move_as(game: Game, users: list, seat: int) -> Event:
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]
    return services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq).event


def test_a_seat_that_times_out_three_turns_in_a_row_is_resigned_for(clock):
    game, users = _game({"type": "step", "seconds": 60})
    for _ in range(6):
        game.refresh_from_db()
        if game.status != "active":
            break
        seat, seq = game.to_act[0], game.seq
        clock.advance(61)
        assert timeouts.timeout_apply(game_id=game.pk, seq=seq, seat=seat) is not None
    game.refresh_from_db()
    resigned = Event.objects.filter(game=game, payload__timeouts_in_a_row=3)
    assert resigned.count() == 1 and game.status == "finished"
    assert game.result["winners"] == [1 - resigned.get().seat]
    # The log tells it in words naming the seat's player, its timeouts beside theirs.
    told = selectors.events_visible(game=game, user=users[0], notation=True)
    timed_out = [line for line in told if line["kind"] == "timeout"]
    assert timed_out and all(line["by"]["username"] == users[line["seat"]].username for line in timed_out)
    assert told[-1]["text"] == f"{users[resigned.get().seat].username} resigns after 3 timeouts in a row"


def test_a_move_between_timeouts_starts_the_count_again(clock):
    game, users = _game({"type": "step", "seconds": 60})
    game.timeouts_to_resign = 2
    game.save(update_fields=["timeouts_to_resign"])
    seat = game.to_act[0]
    clock.advance(61)
    timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=seat)
    assert services.resign_after_timeouts(game_id=game.pk, seat=seat) is None  # one is not two
    assert not Event.objects.filter(game=game, payload__type="resign").exists()


def test_a_game_nobody_moves_in_is_adjourned_then_aborted_as_abandoned():
    from django.utils import timezone

    game, users = _game({"type": "correspondence", "days": 14}, policy="auto")
    idle, grace = dt.timedelta(days=60), dt.timedelta(days=7)
    start = timezone.now()  # when the game and its events were stored
    assert services.abandoned_end(game_id=game.pk, at=start + dt.timedelta(days=59), idle=idle, grace=grace) is None
    adjourned = services.abandoned_end(game_id=game.pk, at=start + dt.timedelta(days=61), idle=idle, grace=grace)
    assert adjourned.payload["type"] == "adjourned"
    assert services.abandoned_end(game_id=game.pk, at=start + dt.timedelta(days=62), idle=idle, grace=grace) is None
    ended = services.abandoned_end(game_id=game.pk, at=start + dt.timedelta(days=69), idle=idle, grace=grace)
    game.refresh_from_db()
    assert ended is not None and game.status == "finished" and game.result["reason"] == "abandoned"


def test_the_backstop_applies_a_timeout_overdue_past_its_grace_once_without_the_broker(clock, monkeypatch):
    """Beat's backstop (project.beat) through a broker outage: nothing may be sent, yet the
    timeout comes, once, and not before the grace has passed."""
    def refuse(name, args, eta=None, **options):
        raise ConnectionError("Redis away")

    monkeypatch.setattr(dispatch, "send", refuse)
    game, _ = _game({"type": "step", "seconds": 3}, policy="forfeit")
    clock.advance(4)  # 1 s overdue: the broker's path may still be on time
    assert timeouts.apply_overdue(grace_seconds=2) == 0
    clock.advance(2)
    assert timeouts.apply_overdue(grace_seconds=2) == 1
    assert timeouts.apply_overdue(grace_seconds=2) == 0
    assert Event.objects.filter(game=game, kind="timeout").count() == 1
    game.refresh_from_db()
    assert game.status == "finished"
