"""Clocks: time controls, deadlines, timeout policies and vacation, for every rules module alike.

Time controls (`Game.time_control`, chosen at creation, `{}` for none):
- `{"type": "step", "seconds": 90}`: a fixed limit for every step or turn a seat must act in.
- `{"type": "correspondence", "days": 3}`: days per move, one of `CORRESPONDENCE_DAYS`.
- `{"type": "bank", "initial_hours": 240, "increment_hours": 36, "cap_hours": 240}`: each seat
  keeps its remaining time (`Seat.bank_seconds`); a move adds the increment, never above the cap.
  Missing numbers default to these (Little Golem's).
- Correspondence and bank take `"pause_weekends": true`: Saturdays and Sundays (UTC) do not count.

Deadlines. A `Deadline` row exists for each seat that must act now and is played by a person
(bot seats and seats with a stand-in bot act at once through `games.play_bots`). `deadlines_sync`
writes the rows in the transaction of the event that changed `to_act`, under the game's row lock:
a seat that acted, or left `to_act`, loses its row (a bank seat is charged the time it used); a
seat newly due gets a row with its full budget; every other row moves on to the game's new `seq`
and keeps running (in a simultaneous step each seat keeps its own deadline from the step's
start). A row records `budget_seconds`, `spent_seconds` and `running_since`, so a stopped clock
(vacation) resumes with exactly the time it had: `due_at` is `running_since` plus what is left,
counted without weekends where they pause, and NULL while stopped. Step clocks never stop.

Enforcement. Nothing waits in the broker for days: beat runs `games.sweep_deadlines` every
second; `sweep` picks rows due within `SCRAPYARD_CLOCKS_LOOKAHEAD` seconds (skipping rows another
sweep holds, on PostgreSQL), stamps `enqueued_at` and, after commit, sends one
`games.apply_timeout(game_id, seq, seat)` per row with its ETA at `due_at` (seconds away, far
inside Redis' visibility timeout; the look-ahead absorbs a sweep delayed by a busy machine). A
row already sent is sent again only after `SCRAPYARD_CLOCKS_RESEND` seconds, which recovers a task
lost with a killed worker; a task that finds its deadline moved later hands the row back unsent.
`timeout_apply` is idempotent: inside the game lock it re-checks the seq, that the seat is still
due and that its deadline has passed, then applies the game's policy through
`services.seat_act(kind="timeout")`; a duplicate or late task finds the game moved on and does
nothing, and a task killed mid-way rolls back with its transaction.

Policies (`Game.timeout_policy`): `auto` plays the rules' `timeout_move`; `bot` seats a stand-in
(`SCRAPYARD_STAND_IN_BOT`) that makes the timeout move and every later move of that seat until its
owner returns (`seat_return`, `POST /api/games/<id>/return/`); `forfeit` forfeits the seat.
A person's move that arrives after its deadline, before the timeout, is refused with
`deadline_passed` (`check_in_time`) and stores nothing. After a bank timeout the seat has only
the increment left (at most the cap).

Vacation (`Account`): each account has `vacation_days_per_year` (default 30), counted per calendar
year (UTC) of the day the vacation ends. While on vacation, the correspondence and bank clocks of
the account's seats stop (a deadline already passed stays passed); they run again when it ends,
by `vacation_set(on=False)` or when the days run out (checked by every sweep). A person on
vacation may still move.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from games import errors
from games.models import Account, Deadline, EventKind, Game, GameStatus, Seat

log = logging.getLogger(__name__)

STEP, CORRESPONDENCE, BANK = "step", "correspondence", "bank"
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
BANK_DEFAULTS = {"initial_hours": 240, "increment_hours": 36, "cap_hours": 240}
POLICIES = ("auto", "bot", "forfeit")
STOPPING = (CORRESPONDENCE, BANK)  # the controls that vacation and weekends stop
DAY = 86_400.0


def now() -> dt.datetime:
    """The clocks' time; tests replace it."""
    return timezone.now()


# --- choosing a time control ---------------------------------------------------------------


def normalize_time_control(raw: Any) -> dict[str, Any]:
    """The stored form of a requested time control; raises InvalidInput naming what is wrong."""
    if raw in (None, {}) or raw == {"type": "none"}:
        return {}
    if not isinstance(raw, dict):
        raise errors.InvalidInput("time_control must be an object with a type")
    kind = raw.get("type")
    allowed = {STEP: {"seconds"}, CORRESPONDENCE: {"days"}, BANK: set(BANK_DEFAULTS)}
    if kind not in allowed:
        raise errors.InvalidInput(f"time_control type must be step, correspondence, bank or none, not {kind!r}")
    unknown = set(raw) - allowed[kind] - {"type"} - ({"pause_weekends"} if kind in STOPPING else set())
    if unknown:
        raise errors.InvalidInput(f"time_control {kind} has no field {', '.join(sorted(unknown))}")
    chosen = {"type": kind, **_numbers_of(kind, raw)}
    if kind in STOPPING:
        pause = raw.get("pause_weekends", False)
        if not isinstance(pause, bool):
            raise errors.InvalidInput("time_control pause_weekends must be true or false")
        chosen["pause_weekends"] = pause
    return chosen


def _numbers_of(kind: str, raw: dict) -> dict[str, Any]:
    if kind == STEP:
        return {"seconds": _number(raw.get("seconds"), "seconds", 1, DAY, whole=True)}
    if kind == CORRESPONDENCE:
        days = raw.get("days")
        if isinstance(days, bool) or days not in CORRESPONDENCE_DAYS:
            raise errors.InvalidInput(f"time_control days must be one of {CORRESPONDENCE_DAYS}, not {days!r}")
        return {"days": days}
    numbers = {name: _number(raw.get(name, default), name, 0, 24 * 366) for name, default in BANK_DEFAULTS.items()}
    if not 0 < numbers["initial_hours"] <= numbers["cap_hours"]:
        raise errors.InvalidInput("time_control initial_hours must be above 0 and at most cap_hours")
    return numbers


def _number(value: Any, name: str, low: float, high: float, whole: bool = False) -> Any:
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        raise errors.InvalidInput(f"time_control {name} must be a number from {low} to {high:g}, not {value!r}")
    return value


def normalize_policy(raw: Any) -> str:
    if raw in (None, ""):
        return "auto"
    if raw not in POLICIES:
        raise errors.InvalidInput(f"timeout_policy must be one of {', '.join(POLICIES)}, not {raw!r}")
    return raw


# --- counted time: weekends may not count --------------------------------------------------


def _weekend(moment: dt.datetime) -> bool:
    return moment.weekday() >= 5


def _midnight_after(moment: dt.datetime, days_ahead: int) -> dt.datetime:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return day + dt.timedelta(days=days_ahead)


def _next_change(moment: dt.datetime) -> dt.datetime:
    """The next instant where weekend turns to weekday or back (UTC midnight)."""
    if _weekend(moment):
        return _midnight_after(moment, 7 - moment.weekday())  # Monday
    return _midnight_after(moment, 5 - moment.weekday())  # Saturday


def add_counted(start: dt.datetime, seconds: float, pause_weekends: bool) -> dt.datetime:
    """The instant when `seconds` of counted time have passed since `start`."""
    if not pause_weekends:
        return start + dt.timedelta(seconds=seconds)
    moment, left = start.astimezone(dt.timezone.utc), seconds
    while True:
        change = _next_change(moment)
        if not _weekend(moment):
            span = (change - moment).total_seconds()
            if left <= span:
                return moment + dt.timedelta(seconds=left)
            left -= span
        moment = change


def counted_between(start: dt.datetime, end: dt.datetime, pause_weekends: bool) -> float:
    """Counted seconds from `start` to `end` (0 if `end` is earlier)."""
    if end <= start:
        return 0.0
    if not pause_weekends:
        return (end - start).total_seconds()
    moment, total = start.astimezone(dt.timezone.utc), 0.0
    while moment < end:
        change = min(_next_change(moment), end)
        if not _weekend(moment):
            total += (change - moment).total_seconds()
        moment = change
    return total


def _pauses_weekends(game: Game) -> bool:
    return bool(game.time_control.get("pause_weekends")) and game.time_control.get("type") in STOPPING


# --- deadlines ------------------------------------------------------------------------------


def deadlines_sync(game: Game, *, acted: int | None = None) -> None:
    """Make the game's deadline rows match its `to_act` after an event (see the module doc).
    Called under the game's row lock, in the event's transaction."""
    if not game.time_control:
        return
    at = now()
    seats = game.seats.select_related("user__account") if game.time_control["type"] in STOPPING else game.seats
    seats = {seat.index: seat for seat in seats.all()}
    rows = {row.seat: row for row in Deadline.objects.filter(game=game)}
    due = _person_played(game, seats)
    kept = {index for index in rows if index != acted and index in due}
    for index in set(rows) - kept:
        _settle(game, seats[index], rows[index], at, acted=index == acted)
    if len(kept) < len(rows):
        Deadline.objects.filter(pk__in=[rows[index].pk for index in set(rows) - kept]).delete()
    if kept:
        Deadline.objects.filter(game=game).update(seq=game.seq)
    Deadline.objects.bulk_create([_start(game, seats[index], at) for index in sorted(due - kept)])


def _person_played(game: Game, seats: dict[int, Seat]) -> set[int]:
    if game.status != GameStatus.ACTIVE:
        return set()
    return {index for index in game.to_act if not seats[index].bot and not seats[index].stand_in}


def _budget(game: Game, seat: Seat) -> float:
    control = game.time_control
    if control["type"] == STEP:
        return float(control["seconds"])
    if control["type"] == CORRESPONDENCE:
        return control["days"] * DAY
    return seat.bank_seconds if seat.bank_seconds is not None else control["initial_hours"] * 3600.0


def _start(game: Game, seat: Seat, at: dt.datetime) -> Deadline:
    row = Deadline(game=game, seat=seat.index, seq=game.seq, budget_seconds=_budget(game, seat))
    if game.time_control["type"] in STOPPING and _on_vacation(seat):
        return row  # stopped: no running_since, no due_at
    return _run(game, row, at)


def _run(game: Game, row: Deadline, at: dt.datetime) -> Deadline:
    row.running_since = at
    row.due_at = add_counted(at, max(0.0, row.budget_seconds - row.spent_seconds), _pauses_weekends(game))
    row.enqueued_at = None
    return row


def _stop(game: Game, row: Deadline, at: dt.datetime) -> Deadline:
    row.spent_seconds += counted_between(row.running_since, at, _pauses_weekends(game))
    row.running_since = row.due_at = None
    return row


def _spent(game: Game, row: Deadline, at: dt.datetime) -> float:
    running = counted_between(row.running_since, at, _pauses_weekends(game)) if row.running_since else 0.0
    return row.spent_seconds + running


def _settle(game: Game, seat: Seat, row: Deadline, at: dt.datetime, *, acted: bool) -> None:
    """A bank seat keeps what it did not use, plus the increment when it acted, up to the cap."""
    control = game.time_control
    if control["type"] != BANK:
        return
    left = max(0.0, row.budget_seconds - _spent(game, row, at))
    if acted:
        left = min(control["cap_hours"] * 3600.0, left + control["increment_hours"] * 3600.0)
    seat.bank_seconds = left
    seat.save(update_fields=["bank_seconds"])


def _on_vacation(seat: Seat) -> bool:
    account = getattr(seat.user, "account", None) if seat.user_id else None  # loaded with the seats
    return account is not None and account.vacation_since is not None


def check_in_time(game: Game, seat: int) -> None:
    """Refuse a person's move after the seat's deadline (the timeout is on its way)."""
    if game.time_control and Deadline.objects.filter(game=game, seat=seat, due_at__lte=now()).exists():
        raise errors.DeadlinePassed(f"seat {seat}'s deadline in game {game.pk} has passed; the timeout follows")


def deadlines_of(game: Game) -> list[dict[str, Any]]:
    """The game resource's view of its clocks: one entry per seat that must act."""
    if not game.time_control:
        return []
    pause = _pauses_weekends(game)
    at = now()
    return [
        {
            "seat": row.seat,
            "due_at": row.due_at,
            "stopped": row.running_since is None,
            "seconds_left": round(max(0.0, row.budget_seconds - _spent(game, row, at)), 3),
            "weekends_paused": pause,
        }
        for row in sorted(game.deadlines.all(), key=lambda row: row.seat)
    ]


# --- enforcement ----------------------------------------------------------------------------


def sweep(*, at: dt.datetime | None = None, limit: int = 5000) -> int:
    """Send `apply_timeout` for every deadline due within the look-ahead; returns how many."""
    at = at or now()
    horizon = at + dt.timedelta(seconds=settings.SCRAPYARD_CLOCKS_LOOKAHEAD)
    resend_before = at - dt.timedelta(seconds=settings.SCRAPYARD_CLOCKS_RESEND)
    with transaction.atomic():
        due = Deadline.objects.filter(due_at__lte=horizon).filter(
            Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=resend_before)
        )
        if connection.features.has_select_for_update_skip_locked:
            due = due.select_for_update(skip_locked=True)
        rows = list(due.order_by("due_at").values_list("pk", "game_id", "seq", "seat", "due_at")[:limit])
        Deadline.objects.filter(pk__in=[row[0] for row in rows]).update(enqueued_at=at)
        transaction.on_commit(lambda: _send(rows))
    vacations_expire(at=at)
    return len(rows)


def _send(rows: list[tuple]) -> None:
    from games import tasks  # tasks import clocks: resolve at call time

    for _, game_id, seq, seat, due_at in rows:
        eta = due_at if due_at > now() else None
        tasks.apply_timeout.apply_async((game_id, seq, seat), eta=eta)


def timeout_apply(*, game_id: int, seq: int, seat: int) -> Any:
    """The timeout of (game, seq, seat) if it is still due; None when the game moved on."""
    _wait_until_due(game_id, seat)
    from games import services  # services import clocks: resolve at call time

    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or not _still_due(game, seq, seat):
            return None
        _fault_injection_pause()
        policy_move = _policy_move(game, seat)
        return services.seat_act(
            game_id=game_id, seat=seat, expected_seq=seq, kind=EventKind.TIMEOUT,
            move=policy_move, forfeit=policy_move is None,
        )


def _wait_until_due(game_id: int, seat: int) -> None:
    """A task sent with an ETA may start a hair early: wait (unlocked) up to a second. A deadline
    moved later since it was sent (a vacation) is handed back to the sweeper, unsent."""
    due_at = Deadline.objects.filter(game_id=game_id, seat=seat).values_list("due_at", flat=True).first()
    if due_at is None:
        return
    early = (due_at - now()).total_seconds()
    if 0 < early <= 1:
        time.sleep(early)
    elif early > 1:
        Deadline.objects.filter(game_id=game_id, seat=seat, due_at=due_at).update(enqueued_at=None)


def _still_due(game: Game, seq: int, seat: int) -> bool:
    if game.seq != seq or game.status != GameStatus.ACTIVE or seat not in game.to_act:
        return False
    return Deadline.objects.filter(game=game, seat=seat, seq=seq, due_at__lte=now()).exists()


def _policy_move(game: Game, seat: int) -> Any:
    """The move the policy makes for a timed-out seat; None for a forfeit."""
    import bots
    from games import services, store

    if game.timeout_policy == "forfeit":
        return None
    game_rules = store.rules_of(game)
    state = store.state_at(game)
    if game.timeout_policy == "auto":
        return game_rules.timeout_move(state, seat)
    spec = bots.get(settings.SCRAPYARD_STAND_IN_BOT)
    Seat.objects.filter(game=game, index=seat).update(stand_in=spec.name)
    return bots.choose_move(
        game_rules, game_rules.view(state, seat), seat, bot=spec.name, level=spec.default_level,
        seed=services.bot_seed(game, game.seq),
    )


def _fault_injection_pause() -> None:
    """Tests kill a worker here (SCRAPYARD_CLOCKS_FAULT_PAUSE seconds, 0 in production)."""
    pause = settings.SCRAPYARD_CLOCKS_FAULT_PAUSE
    if pause:
        log.warning("apply_timeout: pausing %.1f s inside the game lock (fault injection)", pause)
        time.sleep(pause)


@transaction.atomic
def seat_return(*, game_id: int, user: Any) -> Seat:
    """The owner takes back a seat a stand-in bot played; its clock starts if it must act."""
    from games import services

    game = services._locked_game(game_id)
    seat = Seat.objects.get(game=game, index=services._seat_of(game, user))
    if seat.stand_in:
        seat.stand_in = ""
        seat.save(update_fields=["stand_in"])
        deadlines_sync(game)
    return seat


# --- vacation -------------------------------------------------------------------------------


def account_of(user: Any) -> Account:
    account, _ = Account.objects.get_or_create(user=user)
    return account


def vacation_info(account: Account, at: dt.datetime | None = None) -> dict[str, Any]:
    at = at or now()
    used = _used_this_year(account, at)
    allowed = account.vacation_days_per_year * DAY
    return {
        "on_vacation": account.vacation_since is not None,
        "since": account.vacation_since,
        "year": at.year,
        "days_per_year": account.vacation_days_per_year,
        "days_used": round(used / DAY, 4),
        "days_left": round(max(0.0, allowed - used) / DAY, 4),
        "ends_at": _vacation_end(account, at),
    }


def _used_this_year(account: Account, at: dt.datetime) -> float:
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    running = (at - account.vacation_since).total_seconds() if account.vacation_since else 0.0
    return earlier + running


def _vacation_end(account: Account, at: dt.datetime) -> dt.datetime | None:
    """When the days left run out, for an account on vacation."""
    if account.vacation_since is None:
        return None
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    left = max(0.0, account.vacation_days_per_year * DAY - earlier)
    return account.vacation_since + dt.timedelta(seconds=left)


@transaction.atomic
def vacation_set(*, user: Any, on: bool, at: dt.datetime | None = None) -> Account:
    """Start or end the user's vacation; starting with no days left raises NoVacationLeft."""
    at = at or now()
    account_of(user)
    account = Account.objects.select_for_update().get(user=user)
    if on == (account.vacation_since is not None):
        return account
    if on:
        if vacation_info(account, at)["days_left"] <= 0:
            raise errors.NoVacationLeft(f"no vacation days left in {at.year}")
        account.vacation_since = at
        account.save(update_fields=["vacation_since"])
        _clocks_of(user, at, stop=True)
    else:
        _vacation_close(account, at)
        _clocks_of(user, at, stop=False)
    return account


def _vacation_close(account: Account, at: dt.datetime) -> None:
    if account.vacation_year != at.year:
        account.vacation_year, account.vacation_used_seconds = at.year, 0.0
    account.vacation_used_seconds += (at - account.vacation_since).total_seconds()
    account.vacation_since = None
    account.save(update_fields=["vacation_year", "vacation_used_seconds", "vacation_since"])


def _clocks_of(user: Any, at: dt.datetime, *, stop: bool) -> None:
    """Stop or restart the user's correspondence and bank clocks, each under its game's lock."""
    seated = Seat.objects.filter(user=user, game__status=GameStatus.ACTIVE).values_list("game_id", "index")
    for game_id, index in sorted(seated):
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.time_control.get("type") not in STOPPING:
            continue
        row = Deadline.objects.filter(game=game, seat=index).first()
        if row is None:
            continue
        if stop and row.running_since is not None and row.due_at > at:
            _stop(game, row, at).save()
        elif not stop and row.running_since is None:
            _run(game, row, at).save()


def vacations_expire(*, at: dt.datetime | None = None) -> int:
    """End every vacation whose days ran out, restarting clocks from that moment."""
    at = at or now()
    ended = 0
    for account in Account.objects.filter(vacation_since__isnull=False).select_related("user"):
        end = _vacation_end(account, at)
        if end is not None and end <= at:
            with transaction.atomic():
                locked = Account.objects.select_for_update().get(pk=account.pk)
                if locked.vacation_since is not None:
                    _vacation_close(locked, end)
                    _clocks_of(locked.user, end, stop=False)
                    ended += 1
    return ended
