"""Deadline rows and their enforcement, for every rules module alike (time controls themselves
are described in `games.time_controls`).

Rows. A `Deadline` row exists for each seat that must act now and is played by a person (bot
seats and seats with a stand-in bot act at once: bot turns, `games.services.bot_turns`). `deadlines_sync`
writes the rows in the transaction of the event that changed `to_act`, under the game's row lock:
a seat that acted, or left `to_act`, loses its row (a bank seat is charged the time it used); a
seat newly due gets a row with its full budget; every other row moves on to the game's new `seq`
and keeps running (in a simultaneous step each seat keeps its own deadline from the step's
start). A row records `budget_seconds`, `spent_seconds` and `running_since`, so a stopped clock
(vacation) resumes with exactly the time it had: `due_at` is `running_since` plus what is left,
counted without weekends where they pause, and NULL while stopped.

Enforcement. Nothing waits in the broker for days: beat runs `games.sweep_deadlines` every
second; `sweep` picks rows due within `SCRAPYARD_CLOCKS_LOOKAHEAD` seconds (skipping rows another
sweep holds, on PostgreSQL), stamps `enqueued_at` and, after commit, sends one
`games.apply_timeout(game_id, seq, seat)` per row with its ETA at `due_at` (seconds away, far
inside Redis' visibility timeout; the look-ahead absorbs a sweep delayed by a busy machine). A
row already sent is sent again after `SCRAPYARD_CLOCKS_RESEND` seconds, which recovers a task
lost with a killed worker, and once sooner, `SCRAPYARD_CLOCKS_OVERDUE_RESEND` seconds past its
deadline, when the message sent on time has plainly not been acted on (a broker outage lost it).
A row sent before Redis last started (`dispatch.broker_started_at`) is sent again at once: its
message went with the Redis that stopped. A send the broker refused hands its rows back to the
next sweep. A task that finds its deadline moved later hands the row back unsent
(`hand_back_if_moved`). What a timeout then does is `games.timeouts`.

A person's move that arrives after its deadline, before the timeout, is refused with
`deadline_passed` (`check_in_time`) and stores nothing.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q

from accounts import selectors as account_selectors
from games import dispatch, stores, time_controls
from games.errors import DeadlinePassed
from games.models import Deadline, Game, GameStatus, Seat
from rules.words import msg


def deadlines_sync(game: Game, *, writes: stores.UnitOfWork, acted: int | None = None) -> None:
    """Make the game's deadline rows match its `to_act` after an event (see the module doc).
    Called under the game's row lock, in the event's transaction; `acted` is the seat whose
    event this was. The changes join `writes`, the change's unit of work. A seat due again
    keeps its row, rewritten: one row per seat, so the writes never delete and insert the same
    (game, seat) in one statement."""
    if not game.time_control:
        return
    at = time_controls.now()
    seats = {seat.index: seat for seat in _seats_with_owners(game)}
    rows = {row.seat: row for row in game.deadline_rows()}
    due = _person_played(game, seats)
    kept = {index for index in rows if index != acted and index in due}
    for index in set(rows) - kept:
        _settle_bank(game, seats[index], rows[index], at, acted=index == acted, writes=writes)
    writes.delete(Deadline, [rows[index].pk for index in sorted(set(rows) - kept - due)])
    final = []
    for index in sorted(kept):
        row = rows[index]
        if row.seq != game.seq:
            row.seq = game.seq
            writes.update(Deadline, row.pk, {"seq": game.seq})
        final.append(row)
    new_rows = []
    for index in sorted(due - kept):
        row = _start(game, seats[index], at)
        if index in rows:  # due again: its row takes the new clock
            row.pk = rows[index].pk
            writes.update(Deadline, row.pk, _clock_fields(row))
        else:
            new_rows.append(row)
        final.append(row)
    writes.insert(Deadline, [{"game_id": game.pk, "seat": row.seat, **_clock_fields(row)} for row in new_rows])
    if "deadlines" in getattr(game, "_prefetched_objects_cache", {}):
        game._prefetched_objects_cache["deadlines"] = sorted(final, key=lambda row: row.seat)


def _clock_fields(row: Deadline) -> dict[str, Any]:
    return {name: getattr(row, name) for name in
            ("seq", "due_at", "budget_seconds", "spent_seconds", "running_since", "enqueued_at")}


def _seats_with_owners(game: Game) -> list[Seat]:
    """The game's seats, each with `vacation_since` of its owner (loaded with the game on a
    move's path, `games.stores`; read here otherwise)."""
    seats = list(game.seat_rows())
    if seats and not hasattr(seats[0], "vacation_since"):
        owners = (account_selectors.vacations_since(user_ids=[seat.user_id for seat in seats if seat.user_id])
                  if time_controls.stops(game.time_control) else {})
        for seat in seats:
            seat.vacation_since = owners.get(seat.user_id)
    return seats


def _person_played(game: Game, seats: dict[int, Seat]) -> set[int]:
    if game.status != GameStatus.ACTIVE:
        return set()
    return {index for index in game.to_act if not seats[index].bot and not seats[index].stand_in}


def _start(game: Game, seat: Seat, at: dt.datetime) -> Deadline:
    budget = time_controls.budget_seconds(game.time_control, seat.bank_seconds)
    row = stores.current().new_instance(Deadline, game=game, seat=seat.index, seq=game.seq, budget_seconds=budget)
    if time_controls.stops(game.time_control) and _on_vacation(seat):
        return row  # stopped: no running_since, no due_at
    return _run(game, row, at)


def _run(game: Game, row: Deadline, at: dt.datetime) -> Deadline:
    row.running_since = at
    left = max(0.0, row.budget_seconds - row.spent_seconds)
    row.due_at = time_controls.add_counted(at, left, time_controls.pauses_weekends(game.time_control))
    row.enqueued_at = None
    return row


def _stop(game: Game, row: Deadline, at: dt.datetime) -> Deadline:
    row.spent_seconds += time_controls.counted_between(
        row.running_since, at, time_controls.pauses_weekends(game.time_control)
    )
    row.running_since = row.due_at = None
    return row


def _spent(game: Game, row: Deadline, at: dt.datetime) -> float:
    if row.running_since is None:
        return row.spent_seconds
    pause = time_controls.pauses_weekends(game.time_control)
    return row.spent_seconds + time_controls.counted_between(row.running_since, at, pause)


def _settle_bank(game: Game, seat: Seat, row: Deadline, at: dt.datetime, *, acted: bool,
                 writes: stores.UnitOfWork) -> None:
    if game.time_control["type"] != time_controls.BANK:
        return
    left = max(0.0, row.budget_seconds - _spent(game, row, at))
    seat.bank_seconds = time_controls.bank_after(game.time_control, left, acted=acted)
    writes.update(Seat, seat.pk, {"bank_seconds": seat.bank_seconds})


def _on_vacation(seat: Seat) -> bool:
    return getattr(seat, "vacation_since", None) is not None  # `_seats_with_owners` set it


def clock_set(game: Game, seat: int, at: dt.datetime, *, running: bool) -> None:
    """Stop (a vacation starts) or restart (it ends) a seat's correspondence or bank clock; the
    caller has the game open for writing (`games.services.clocks`). A deadline already passed
    stays passed."""
    if not time_controls.stops(game.time_control):
        return
    row = Deadline.objects.filter(game=game, seat=seat).first()
    if row is None:
        return
    if not running and row.running_since is not None and row.due_at > at:
        _stop(game, row, at).save()
    elif running and row.running_since is None:
        _run(game, row, at).save()


def check_in_time(game: Game, seat: int) -> None:
    """Refuse a person's move after the seat's deadline (the timeout is on its way)."""
    at = time_controls.now()
    if game.time_control and any(row.seat == seat and row.due_at is not None and row.due_at <= at
                                 for row in game.deadline_rows()):
        raise DeadlinePassed(msg("seat {seat}'s deadline in game {pk} has passed; the timeout follows", seat=seat, pk=game.pk))


def deadlines_of(game: Game, at: dt.datetime | None = None) -> list[dict[str, Any]]:
    """The game resource's view of its clocks (at `at`, default now): one entry per seat that
    must act."""
    if not game.time_control:
        return []
    pause = time_controls.pauses_weekends(game.time_control)
    at = at or time_controls.now()
    return [
        {
            "seat": row.seat,
            "due_at": row.due_at,
            "stopped": row.running_since is None,
            "seconds_left": round(max(0.0, row.budget_seconds - _spent(game, row, at)), 3),
            "weekends_paused": pause,
        }
        for row in sorted(game.deadline_rows(), key=lambda row: row.seat)
    ]


WARN_WHEN_USED = 0.8  # the share of a move's time after which its seat is warned


def deadline_warning_due(game: Game, seat: int | None) -> bool:
    """Whether the seat has used 80% of its time for this move (its clock running or not)."""
    if not game.time_control or seat is None:
        return False
    at = time_controls.now()
    return any(
        row.budget_seconds - _spent(game, row, at) <= (1 - WARN_WHEN_USED) * row.budget_seconds
        for row in game.deadline_rows()
        if row.seat == seat and row.budget_seconds > 0
    )


# --- enforcement ----------------------------------------------------------------------------


def sweep(*, at: dt.datetime | None = None, limit: int = 5000) -> int:
    """Send `apply_timeout` for every deadline due within the look-ahead; returns how many."""
    at = at or time_controls.now()
    horizon = at + dt.timedelta(seconds=settings.SCRAPYARD_CLOCKS_LOOKAHEAD)
    resend_before = at - dt.timedelta(seconds=settings.SCRAPYARD_CLOCKS_RESEND)
    overdue = dt.timedelta(seconds=settings.SCRAPYARD_CLOCKS_OVERDUE_RESEND)
    lost = Q(enqueued_at__lt=resend_before)
    broker_started = dispatch.broker_started_at(at)
    if broker_started is not None:
        lost |= Q(enqueued_at__lt=broker_started)  # sent to a Redis that has since restarted empty
    with transaction.atomic():
        due = Deadline.objects.filter(due_at__lte=horizon).filter(
            Q(enqueued_at__isnull=True)
            | lost
            # Sent on time, yet still here well past its deadline: its message was lost (a worker
            # that held it lost its connection). Sent again once, at once; later resends wait RESEND seconds.
            | (Q(due_at__lt=at - overdue, enqueued_at__lt=at - overdue) & Q(enqueued_at__lt=F("due_at") + overdue))
        )
        if connection.features.has_select_for_update_skip_locked:
            due = due.select_for_update(skip_locked=True)
        rows = list(due.order_by("due_at").values_list("pk", "game_id", "seq", "seat", "due_at")[:limit])
        Deadline.objects.filter(pk__in=[row[0] for row in rows]).update(enqueued_at=at)
        transaction.on_commit(lambda: _send(rows, at))
    return len(rows)


def _send(rows: list[tuple], at: dt.datetime) -> None:
    for index, (_, game_id, seq, seat, due_at) in enumerate(rows):
        eta = due_at if due_at > time_controls.now() else None
        try:
            dispatch.send(dispatch.APPLY_TIMEOUT, (game_id, seq, seat), eta=eta)
        except Exception:
            # The broker is away: the rows not sent go back to the next sweep, unstamped, rather
            # than wait out RESEND as if their messages were somewhere.
            Deadline.objects.filter(pk__in=[row[0] for row in rows[index:]], enqueued_at=at).update(enqueued_at=None)
            raise


def hand_back_if_moved(game_id: int, seat: int) -> bool:
    """Before a timeout: a task sent with an ETA may start a hair early, so wait (unlocked) up to
    a second. A deadline moved later since it was sent (a vacation) is handed back to the
    sweeper, unsent, and this answers True: nothing to do now."""
    due_at = Deadline.objects.filter(game_id=game_id, seat=seat).values_list("due_at", flat=True).first()
    if due_at is None:
        return False
    early = (due_at - time_controls.now()).total_seconds()
    if 0 < early <= 1:
        time.sleep(early)
    elif early > 1:
        Deadline.objects.filter(game_id=game_id, seat=seat, due_at=due_at).update(enqueued_at=None)
        return True
    return False


def is_due(game: Game, seq: int, seat: int) -> bool:
    """Whether (game, seq, seat) is still to act and past its deadline."""
    if game.seq != seq or game.status != GameStatus.ACTIVE or seat not in game.to_act:
        return False
    return Deadline.objects.filter(game=game, seat=seat, seq=seq, due_at__lte=time_controls.now()).exists()
