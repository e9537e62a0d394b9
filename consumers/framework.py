"""One way to consume the log. A consumer (mail, webhooks, ...) declares what it wants from a
game's news and for whom, and how it delivers one notice; this module does the rest, the same
way for every consumer:

1. A game's transaction commits; `games.signals.events_recorded` reaches `consumers.receivers`,
   which hands the news to the web process's after-commit thread (`consumers.after_commit`):
   there each consumer sends its own notice (`noticed`: the live streams'), and each the news
   concerns (told by the writer's hints, `wanted`, or a cached answer, `listening`) gets a
   fan-out on its own queue. Lost: the sweep (`fan_outs_missed`) finds games past a cursor.
2. `fan_out` walks the consumer's recipients under one `Cursor` lock each (a row lock inside
   the transaction, nothing held across transactions: safe behind PgBouncer's transaction
   pooling), asks the consumer for the notices of the events since the cursor, stores each as an
   outbox row (once per key; under the consumer's `rows_in_order` locks, with which a consumer
   whose readers go by id keeps each recipient's rows committing in id order), and sends the new
   rows to `consumers.deliver` after the commit. A recipient not `ready` (an address not
   confirmed) is held: its cursor stays where it is, and `recipient_ready` fans out what is
   still owed to it once it is.
3. `attempt` leases a row (one UPDATE: two workers never both get it), lets the consumer deliver
   it, and records the outcome: done, retried after the consumer's waits (with jitter), or failed.
4. The sweep (beat, `consumers.sweep`) sends again what is due and nobody took up within
   `resend_seconds` (a message lost with the broker, a worker that died holding a lease), finds
   the fan-outs that were lost, and runs each consumer's own periodic work.

A consumer where a person can cause the work (a mail answered, a ping) counts it against a
quota per account (`within_quota`).
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import models, transaction
from django.db.models import Case, F, Q, When

from consumers.models import Cursor, Message
from consumers.outbox import FAILED, PENDING, OutboxRow
from games import dispatch, selectors, time_controls
from project.celery import tasks_eager

log = logging.getLogger(__name__)

FAN_OUT, DELIVER, SWEEP = "consumers.fan_out", "consumers.deliver", "consumers.sweep"


class LeaseLost(Exception):
    """Another worker holds the row now: this attempt's lease ran out before it was renewed."""


@dataclass(frozen=True)
class Outcome:
    """What one attempt came to: `delivered`; else worth trying again (`retry`) or not. `status`
    names a final state other than done or failed (a mail dropped), `note` what went wrong."""

    delivered: bool
    retry: bool = False
    status: str = ""
    note: str = ""
    detail: Any = None  # the consumer's own record of the attempt, for its `settle`
    # Not a failure: the row waits its turn this many seconds (a quota's slot busy) and is
    # attempted again, with no retry counted.
    again_in: float | None = None


class Consumer:
    """What a consumer declares. Only `name`, `recipients` and `notices` and `deliver` are its
    own; the rest has defaults."""

    name: str = ""
    queue: str = "default"
    row_model: type[OutboxRow] = Message
    done_status = "done"
    retry_waits: Sequence[float] = (5, 30, 120, 600, 1800)
    lease_seconds: float = 60  # a delivery longer than this renews it as it goes (`lease_renew`)
    time_limit: float | None = None  # the worker's hard limit on one delivery (None: the task's own)
    resend_seconds: float = 30  # a row sent to the queue and not attempted by then is sent again
    look_back = dt.timedelta(days=1)  # how far back the sweep looks for games with missed news
    sweep_seconds: float = 1.0  # due rows and `periodic`
    missed_sweep_seconds: float = 10.0  # fan-outs lost
    listening_seconds: float = 10.0  # how long the shared cache keeps `listens_to`'s answer
    quota: tuple[int, float] | None = None  # (rows, seconds) an account may cause
    quota_kinds: Sequence[str] = ()  # the kinds a person causes; none: every row counts
    # A consumer that must act at once (a bot's reply): the fan-out's worker attempts the rows
    # it made right after its commit, sparing a second trip through the queue.
    attempt_in_fan_out: bool = False
    makes_rows: bool = True  # False: only a notice (`noticed`), nothing for the sweep to look at
    # How long the plain outbox (`Message`) keeps a row once it is done or failed; the sweep
    # forgets older ones (a consumer with a table of its own prunes it itself).
    keep_done = dt.timedelta(days=2)

    # --- what it wants, and for whom ---

    def noticed(self, game_id: int, seq: int | None) -> None:
        """Its own notice of every news, sent from the after-commit thread before any fan-out
        (a live stream's wake-up, which needs no row: the stream reads the log itself)."""

    def together(self) -> AbstractContextManager[Any]:
        """What a burst of news runs inside (the stream notices of a burst sent in one round trip)."""
        return nullcontext()

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool | None:
        """Whether this news concerns it, from what the writer knew at the commit (`hints`:
        `bots`, a bot seat is to act; `lines_waiting`, a conditional line may wait), or None
        to ask `listens_to` (cached)."""
        return None

    def listens_to(self, game_id: int) -> bool:
        """Whether a game's news may concern it at all (asked of the database; cached)."""
        return True

    def listening_scope(self, game_id: int) -> str:
        """What `listens_to`'s answer depends on: the game (the default) or "" (all games alike)."""
        return str(game_id)

    def recipients(self, game_id: int) -> dict[int, int | None]:
        """Who follows the game: recipient id -> the seat it sees the game as (None: a spectator)."""
        raise NotImplementedError

    def game(self, game_id: int, seat: int | None) -> dict[str, Any]:
        """The game as `notices` reads it (at least `game` and `seq`): by default the account
        feed's view of it (`selectors.account_game_of`)."""
        return selectors.account_game_of(game_id=game_id, seat=seat)

    def ready(self, recipient: int) -> bool:
        """False holds the recipient's news (its cursor stays) until `recipient_ready`."""
        return True

    def held(self, recipient: int) -> None:
        """News came while the recipient was not ready (mail asks the address to confirm itself)."""

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]] | int:
        """The notices owed for the game's events after `after` up to `game["seq"]` (`game` is
        `selectors.account_game_of`): each a dict of the row's fields (with `key` unique); or
        how many rows it made itself (through `rows_make`, which a consumer making rows outside
        a fan-out uses too)."""
        raise NotImplementedError

    def rows_in_order(self, rows: Sequence[dict[str, Any]]) -> None:
        """Called inside the transaction that stores these new rows, before they are stored, with
        its locks held until that transaction ends. A consumer whose readers follow a recipient's
        rows by id (the account feed: a client resumes after the id it got) locks here something
        of each recipient, so that a second transaction storing rows for one of them waits for the
        first to commit and takes its ids after: one recipient's rows commit in id order. By
        default nothing: a row is attempted by its own id, whatever the order."""

    def followed(self, since: dt.datetime) -> list[dict[str, Any]]:
        """For the sweep: the games that may have news for a ready recipient, each
        `{"game", "seq", "recipients": [...]}`. By default worked out from its own declarations
        (`followed_by_declarations`); a consumer that knows a narrower or cheaper answer says it."""
        return followed_by_declarations(self, since)

    def games_of(self, recipient: int) -> list[int]:
        """The games whose held news `recipient_ready` fans out."""
        return []

    def games_past(self, recipient: int) -> dict[int, int]:
        """Games (id -> seq) whose held news is no longer worth telling (a finished game)."""
        return {}

    # --- how it delivers ---

    def deliverable(self, rows: models.QuerySet) -> models.QuerySet:
        """Narrow the rows the framework may attempt (an endpoint paused)."""
        return rows

    def deliver(self, row: OutboxRow) -> Outcome:
        raise NotImplementedError

    def settle(self, row: OutboxRow, outcome: Outcome, at: dt.datetime) -> None:
        """Record its own fields of the outcome on `row` (saved by the framework, under its lock);
        by default a plain outbox row's (`Message`) error and when it was done."""
        if isinstance(row, Message):
            row.error = outcome.note[:300]
            if row.status == self.done_status:
                row.done_at = at

    def periodic(self) -> int:
        """Its own work each sweep (digests, deadline warnings)."""
        return 0

    def account_field(self) -> str:
        """The row field naming the account a quota counts against."""
        return "recipient"


_consumers: dict[str, Consumer] = {}


def register(consumer: Consumer) -> Consumer:
    _consumers[consumer.name] = consumer
    return consumer


def unregister(name: str) -> None:
    _consumers.pop(name, None)


def get(name: str) -> Consumer:
    return _consumers[name]


def registered() -> list[Consumer]:
    return list(_consumers.values())


# --- is anyone listening? -------------------------------------------------------------------

# Each process remembers the answer for a moment, sparing every move a round trip to the shared
# cache; what a stale answer left out, the sweep fans out.
REMEMBERED_SECONDS = 2.0
_remembered: dict[tuple[str, str], tuple[float, bool]] = {}


def listening(consumer: Consumer, game_id: int) -> bool:
    scope = (consumer.name, consumer.listening_scope(game_id))
    remembered = _remembered.get(scope)
    if remembered is not None and remembered[0] > time.monotonic():
        return remembered[1]
    if len(_remembered) > 10_000:
        _remembered.clear()
    known = _listening_shared(consumer, game_id, scope[1])
    _remembered[scope] = (time.monotonic() + REMEMBERED_SECONDS, known)
    return known


def _listening_key(consumer: Consumer, scope: str) -> str:
    return f"consumers:listening:{consumer.name}:{scope}"


def _listening_shared(consumer: Consumer, game_id: int, scope: str) -> bool:
    key = _listening_key(consumer, scope)
    try:
        known = cache.get(key)
    except Exception as error:  # the cache away: ask the database
        log.warning("%s listener cache unreadable (%s)", consumer.name, error)
        known = None
    if known is None:
        known = consumer.listens_to(game_id)
        try:
            cache.set(key, known, consumer.listening_seconds)
        except Exception:  # only a cache
            pass
    return bool(known)


def listeners_changed(consumer: Consumer, scope: str = "") -> None:
    """Who listens changed (an endpoint made): this process and the shared cache ask again;
    other processes within `REMEMBERED_SECONDS`, and the sweep catches what they miss."""
    for remembered in [key for key in _remembered if key[0] == consumer.name]:
        _remembered.pop(remembered, None)
    try:
        cache.delete(_listening_key(consumer, scope))
    except Exception as error:
        log.warning("%s listener cache not cleared (%s); the sweep fans out meanwhile", consumer.name, error)


def forget_remembered() -> None:
    _remembered.clear()


def news(game_id: int, seq: int | None = None, hints: dict[str, Any] | None = None) -> None:
    """A game's news committed (in the after-commit thread, `consumers.after_commit`): each
    consumer's own notice (`Consumer.noticed`), and each consumer it concerns
    (`Consumer.wanted`, else `listening`) gets its fan-out, on its queue."""
    hints = hints or {}
    consumers = registered()
    for consumer in consumers:
        if type(consumer).noticed is Consumer.noticed:
            continue  # none of its own: spared the call on every move
        try:
            consumer.noticed(game_id, seq)
        except Exception:  # Redis away: a stream re-checks the log by itself
            log.exception("%s's notice of game %s seq %s not sent", consumer.name, game_id, seq)
    for consumer in consumers:
        try:
            wanted = consumer.wanted(game_id, hints)
            if not (listening(consumer, game_id) if wanted is None else wanted):
                continue
            _send(consumer, FAN_OUT, (consumer.name, game_id))
        except Exception:  # the broker away: the next consumer is still told, and the sweep finds this one
            log.exception("%s not told of game %s's news; its sweep finds it", consumer.name, game_id)


@contextmanager
def together() -> Iterator[None]:
    """Inside every consumer's `together()`: the after-commit thread runs a burst of news so."""
    with ExitStack() as stack:
        for consumer in registered():
            if type(consumer).together is not Consumer.together:  # none of its own: no empty context a burst
                stack.enter_context(consumer.together())
        yield


def _send(consumer: Consumer, task: str, args: tuple) -> None:
    limits = {"time_limit": consumer.time_limit} if task == DELIVER and consumer.time_limit else {}
    dispatch.send(task, args, queue=consumer.queue, **limits)


# --- the fan-out ----------------------------------------------------------------------------


def fan_out(consumer: Consumer, game_id: int) -> int:
    """The rows owed to each of the game's recipients for its events since their cursors."""
    made = 0
    for recipient, seat in consumer.recipients(game_id).items():
        if consumer.ready(recipient):
            made += _fan_out_to(consumer, recipient, seat, game_id)
        else:
            consumer.held(recipient)
    return made


def _fan_out_to(consumer: Consumer, recipient: int, seat: int | None, game_id: int) -> int:
    at_once: list[int] = []
    with transaction.atomic():
        Cursor.objects.bulk_create([Cursor(consumer=consumer.name, recipient=recipient, game_id=game_id)],
                                   ignore_conflicts=True)
        cursor = Cursor.objects.select_for_update().get(consumer=consumer.name, recipient=recipient, game_id=game_id)
        game = consumer.game(game_id, seat)
        if game["seq"] <= cursor.seq:
            return 0
        owed = consumer.notices(recipient, seat, game, cursor.seq)
        if isinstance(owed, int):
            made = owed
        elif consumer.attempt_in_fan_out:
            at_once = rows_store(consumer, owed)
            made = len(at_once)
        else:
            made = rows_make(consumer, owed)
        cursor.seq = game["seq"]
        cursor.save(update_fields=["seq"])
    for row_id in at_once:  # committed: this worker attempts them now (lost: the sweep sends them)
        attempt(consumer, row_id)
    return made


def fan_out_owed(consumer: Consumer, recipient: int, games: Iterable[dict[str, Any]]) -> int:
    """The rows owed to one recipient for these games (`{"game", "seq", "seat"}` each) whose
    cursor is behind: what a fan-out decided before the recipient was listened to left out, found
    by the recipient's own side instead of the sweep."""
    games = list(games)
    cursors = dict(Cursor.objects.filter(consumer=consumer.name, recipient=recipient,
                                         game_id__in=[game["game"] for game in games]).values_list("game_id", "seq"))
    return sum(_fan_out_to(consumer, recipient, game["seat"], game["game"])
               for game in games if cursors.get(game["game"], -1) < game["seq"])


def recipient_ready(consumer: Consumer, recipient: int) -> int:
    """The recipient is ready now (its address confirmed): its held news is fanned out, which
    gives what is still relevant (each game as it is now: one notice per kind, never one per
    event missed); the games it no longer needs news of (`games_past`) are caught up silently."""
    for game_id, seq in consumer.games_past(recipient).items():
        catch_up(consumer, recipient, game_id, seq)
    games = consumer.games_of(recipient)
    for game_id in games:
        transaction.on_commit(lambda game_id=game_id: _send(consumer, FAN_OUT, (consumer.name, game_id)), robust=True)
    return len(games)


def catch_up(consumer: Consumer, recipient: int, game_id: int, seq: int) -> None:
    """The cursor moves to `seq` with no notice made (news nobody needs any more)."""
    Cursor.objects.bulk_create([Cursor(consumer=consumer.name, recipient=recipient, game_id=game_id)],
                               ignore_conflicts=True)
    Cursor.objects.filter(consumer=consumer.name, recipient=recipient, game_id=game_id, seq__lt=seq).update(seq=seq)


def rows_make(consumer: Consumer, rows: Iterable[dict[str, Any]]) -> int:
    """Store rows (dicts of fields with a unique `key`), each once however often it is made, and
    send the new ones after the commit. Returns how many are new."""
    made = _rows_insert(consumer, rows)
    send_after_commit(consumer, [pk for pk, status in made if status == PENDING])  # not one held (a digest's)
    return len(made)


def rows_store(consumer: Consumer, rows: Iterable[dict[str, Any]]) -> list[int]:
    """Store rows as `rows_make` does, sending none: the ids of the new ones pending. Whoever
    stores them attempts them (or the sweep sends them, `resend_seconds` on)."""
    return [pk for pk, status in _rows_insert(consumer, rows) if status == PENDING]


def _rows_insert(consumer: Consumer, rows: Iterable[dict[str, Any]]) -> list[tuple[int, str]]:
    at = time_controls.now()
    wanted = {row["key"]: row for row in rows}
    if not wanted:
        return []
    model = consumer.row_model
    key = _key_field(model)
    known = set(model.objects.filter(**{f"{key}__in": list(wanted)}).values_list(key, flat=True))
    fresh = [name for name in wanted if name not in known]
    if not fresh:
        return []  # nothing to store: no lock taken
    with transaction.atomic(savepoint=False):  # the consumer's locks last until the rows commit
        consumer.rows_in_order([wanted[name] for name in fresh])
        model.objects.bulk_create([model(**{"next_attempt_at": at, "enqueued_at": at,
                                            **_fields(consumer, wanted[name])}) for name in fresh],
                                  ignore_conflicts=True)
        return list(model.objects.filter(**{f"{key}__in": fresh}).values_list("pk", "status"))


def _key_field(model: type[OutboxRow]) -> str:
    return getattr(model, "KEY_FIELD", "key")


def _fields(consumer: Consumer, row: dict[str, Any]) -> dict[str, Any]:
    fields = dict(row)
    key = _key_field(consumer.row_model)
    if key != "key":
        fields[key] = fields.pop("key")
    if consumer.row_model is Message:
        fields.setdefault("consumer", consumer.name)
    return fields


def message(*, recipient: int, kind: str, game_id: int | None = None, seq: int | None = None,
            payload: dict[str, Any] | None = None, key: str = "") -> dict[str, Any]:
    """A row of the plain outbox (`Message`), keyed once per (recipient, game, seq, kind)."""
    return {"recipient": recipient, "kind": kind, "game_id": game_id, "seq": seq, "payload": payload or {},
            "key": key or f"{recipient}:{game_id}:{seq}:{kind}"}


def send_after_commit(consumer: Consumer, row_ids: Iterable[int]) -> None:
    # robust: the rows are stored whatever the broker says; the sweep sends them again.
    for row_id in row_ids:
        transaction.on_commit(lambda row_id=row_id: _send(consumer, DELIVER, (consumer.name, row_id)), robust=True)


# --- delivering -----------------------------------------------------------------------------


def _due(consumer: Consumer, at: dt.datetime) -> models.QuerySet:
    rows = consumer.row_model.objects.filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=at), status=PENDING, next_attempt_at__lte=at,
    )
    if consumer.row_model is Message:
        rows = rows.filter(consumer=consumer.name)
    return consumer.deliverable(rows)


def attempt(consumer: Consumer, row_id: int, at: dt.datetime | None = None) -> Outcome | None:
    """One attempt at a row, if it is due and nobody else holds it (None if not)."""
    at = at or time_controls.now()
    row = _claim(consumer, row_id, at)
    if row is None:
        return None
    if row.retries > len(consumer.retry_waits):  # its last worker died too: no attempt left
        outcome = Outcome(delivered=False, note="every attempt's worker died (out of memory or time?)")
        record(consumer, row, outcome, time_controls.now())
        return outcome
    try:
        outcome = consumer.deliver(row)
    except LeaseLost:  # the worker now holding it records its own attempt
        log.warning("%s row %s: lease lost during its delivery", consumer.name, row_id)
        return None
    except Exception as error:  # a defect of the consumer: retried like any failure, and logged
        log.exception("%s could not deliver row %s", consumer.name, row_id)
        outcome = Outcome(delivered=False, retry=True, note=f"{type(error).__name__}: {error}"[:300])
    record(consumer, row, outcome, time_controls.now())
    return outcome


def _claim(consumer: Consumer, row_id: int, at: dt.datetime) -> OutboxRow | None:
    """Lease the row for one attempt: a single UPDATE, so two workers never both get it. A lease
    still on the row ran out with no outcome recorded: the worker holding it died (a delivery that
    kills its worker, out of memory, would otherwise be tried for ever), so it counts as a failed
    attempt."""
    lease = at + dt.timedelta(seconds=consumer.lease_seconds)
    died = Case(When(leased_until__isnull=False, then=F("retries") + 1), default=F("retries"),
                output_field=models.PositiveSmallIntegerField())
    claimed = _due(consumer, at).filter(pk=row_id).update(leased_until=lease, retries=died)
    return consumer.row_model.objects.filter(pk=row_id).first() if claimed else None


def lease_renew(consumer: Consumer, row: OutboxRow) -> None:
    """A long delivery keeps its row (call it between its steps): the lease runs `lease_seconds`
    from now, so a worker that dies is found that soon, however long a delivery may take. Raises
    `LeaseLost` once the lease ran out and another worker took the row: the lease's own time is
    the holder's mark."""
    lease = time_controls.now() + dt.timedelta(seconds=consumer.lease_seconds)
    if not consumer.row_model.objects.filter(pk=row.pk, leased_until=row.leased_until).update(leased_until=lease):
        raise LeaseLost(f"{consumer.name} row {row.pk} was taken over")
    row.leased_until = lease


def _held_by(consumer: Consumer, row: OutboxRow) -> bool:
    """Locks the row; whether it is still there and still under this attempt's lease."""
    held = consumer.row_model.objects.select_for_update().filter(pk=row.pk).values_list("leased_until", flat=True)
    return list(held) == [row.leased_until]


def row_again(consumer: Consumer, key: str) -> bool:
    """The row pending again, with a fresh set of retries, and sent after the commit (asked for
    anew); False if there is no such row, or a worker holds it now."""
    at = time_controls.now()
    rows = consumer.row_model.objects.filter(Q(leased_until__isnull=True) | Q(leased_until__lt=at),
                                             **{_key_field(consumer.row_model): key})
    row_id = rows.values_list("pk", flat=True).first()
    if row_id is None:
        return False
    rows.filter(pk=row_id).update(status=PENDING, retries=0, next_attempt_at=at, enqueued_at=at, leased_until=None)
    send_after_commit(consumer, [row_id])
    return True


def record(consumer: Consumer, row: OutboxRow, outcome: Outcome, at: dt.datetime) -> None:
    """The one retry policy: done; or again after the consumer's next wait (plus up to 10%
    jitter, so the retries of one outage spread out); or failed once every wait is used."""
    waits = consumer.retry_waits
    with transaction.atomic():
        if not _held_by(consumer, row):
            return  # deleted while the attempt ran (its endpoint, its account), or another worker's now
        row.leased_until = None
        if outcome.delivered:
            row.status, row.next_attempt_at = consumer.done_status, None
        elif outcome.again_in is not None:
            _again_soon(consumer, row, at + dt.timedelta(seconds=outcome.again_in * random.uniform(1.0, 2.0)))
        elif outcome.retry and row.retries < len(waits):
            wait = waits[row.retries] * random.uniform(1.0, 1.1)
            row.retries += 1
            row.next_attempt_at = at + dt.timedelta(seconds=wait)
        else:
            row.status, row.next_attempt_at = outcome.status or FAILED, None
        consumer.settle(row, outcome, at)
        row.save()


def _again_soon(consumer: Consumer, row: OutboxRow, due: dt.datetime) -> None:
    """The row waits its turn until `due` (jittered, so the waiting rows of one account do not all
    come back at once) and is sent for then, not left for the sweep's next pass: a short wait
    stays short. `enqueued_at` says so, so the sweep sends it again only if that message is lost."""
    row.next_attempt_at = row.enqueued_at = due
    if tasks_eager():
        return  # run now, it would only wait again: the sweep sends it
    row_id = row.pk
    transaction.on_commit(lambda: dispatch.send(DELIVER, (consumer.name, row_id), eta=due, queue=consumer.queue,
                                                expires=consumer.resend_seconds + (due - time_controls.now()).total_seconds()),
                          robust=True)


# --- the sweep ------------------------------------------------------------------------------


def sweep(*, at: dt.datetime | None = None, force: bool = False) -> int:
    """Beat's one sweep over every consumer, each at its own pace (an atomic `cache.add` per
    period, so two beats or a slow sweep do not double the work)."""
    done = 0
    for consumer in registered():
        if not consumer.makes_rows:
            continue
        if force or _turn(consumer, "due", consumer.sweep_seconds):
            done += due_send(consumer, at=at) + consumer.periodic()
        if force or _turn(consumer, "missed", consumer.missed_sweep_seconds):
            done += fan_outs_missed(consumer, at=at)
            prune(consumer, at=at)
    return done


def prune(consumer: Consumer, *, at: dt.datetime | None = None, batch: int = 1000) -> int:
    """Forget the consumer's plain outbox rows done or failed more than `keep_done` ago, a batch
    at a time (its cursors keep what was made from being made again)."""
    if consumer.row_model is not Message or consumer.keep_done is None:
        return 0
    before = (at or time_controls.now()) - consumer.keep_done
    old = list(Message.objects.filter(consumer=consumer.name, created_at__lt=before).exclude(status=PENDING)
               .values_list("pk", flat=True)[:batch])
    if old:
        Message.objects.filter(pk__in=old).delete()
    return len(old)


def _turn(consumer: Consumer, part: str, seconds: float) -> bool:
    try:
        return bool(cache.add(f"consumers:swept:{consumer.name}:{part}", 1, max(seconds - 0.5, 0.5)))
    except Exception:  # the cache away: sweep anyway, the work is idempotent
        return True


def due_send(consumer: Consumer, *, at: dt.datetime | None = None, limit: int = 1000) -> int:
    """Send every due row nobody is attempting: retries whose wait is over (due again since they
    were last sent), and rows no worker took up within `resend_seconds` (lost with a broker)."""
    at = at or time_controls.now()
    resend_before = at - dt.timedelta(seconds=consumer.resend_seconds)
    due = list(
        _due(consumer, at)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=resend_before) | Q(next_attempt_at__gt=F("enqueued_at")))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    if due:
        consumer.row_model.objects.filter(pk__in=due).update(enqueued_at=at)  # committed: the sweep is no transaction
        for row_id in due:
            _send(consumer, DELIVER, (consumer.name, row_id))
    return len(due)


def followed_by_declarations(consumer: Consumer, since: dt.datetime) -> list[dict[str, Any]]:
    """What any consumer follows, from what it declared: of the games with news since `since`,
    those it holds cursors on (their holders: a lost fan-out left every cursor of the game behind)
    and those it has none on yet that it listens to (their `recipients`: the game's first fan-out
    was lost); ready recipients only. It asks `recipients` of each such game, every missed-news
    sweep: a consumer following many games declares a cheaper `followed`."""
    news = selectors.games_with_news_since(since=since)
    holders: dict[int, list[int]] = {}
    for recipient, game_id in Cursor.objects.filter(consumer=consumer.name, game_id__in=list(news)).values_list(
            "recipient", "game_id"):
        holders.setdefault(game_id, []).append(recipient)
    followed = []
    for game_id, seq in news.items():
        recipients = holders.get(game_id) or _recipients_if_listening(consumer, game_id)
        ready = [recipient for recipient in recipients if consumer.ready(recipient)]
        if ready:
            followed.append({"game": game_id, "seq": seq, "recipients": ready})
    return followed


def _recipients_if_listening(consumer: Consumer, game_id: int) -> list[int]:
    return list(consumer.recipients(game_id)) if listening(consumer, game_id) else []


def fan_outs_missed(consumer: Consumer, *, at: dt.datetime | None = None) -> int:
    """Ask again for the fan-out of every game past a ready recipient's cursor (its first
    request was lost); returns how many games."""
    at = at or time_controls.now()
    moved = consumer.followed(at - consumer.look_back)
    if not moved:
        return 0
    cursors = {
        (recipient, game): seq
        for recipient, game, seq in Cursor.objects.filter(
            consumer=consumer.name, game_id__in=[game["game"] for game in moved]
        ).values_list("recipient", "game_id", "seq")
    }
    behind = [game["game"] for game in moved
              if any(cursors.get((recipient, game["game"]), 0) < game["seq"] for recipient in game["recipients"])]
    for game_id in behind:
        _send(consumer, FAN_OUT, (consumer.name, game_id))
    return len(behind)


# --- quotas ---------------------------------------------------------------------------------


def within_quota(consumer: Consumer, account_id: int | None = None, where: Q | None = None, *,
                 also_caused: models.QuerySet | None = None, **also: Any) -> bool:
    """Whether the account (or the rows matching `also`, an address; and `where`, when the
    consumer counts kinds of row apart) has made fewer than the consumer's quota of the rows a
    person causes within its window. `also_caused`: the account's rows of another table (with a
    `created_at`) counted in the same quota, for work a person causes without a row of its own
    (a webhook delivery replayed)."""
    if consumer.quota is None:
        return True
    limit, seconds = consumer.quota
    since = time_controls.now() - dt.timedelta(seconds=seconds)
    caused = 0 if also_caused is None else also_caused.filter(created_at__gte=since).count()
    return _rows_caused(consumer, since, account_id, where, **also) + caused < limit


def _rows_caused(consumer: Consumer, since: dt.datetime, account_id: int | None, where: Q | None, **also: Any) -> int:
    rows = consumer.row_model.objects.filter(created_at__gte=since, **also)
    if where is not None:
        rows = rows.filter(where)
    if consumer.row_model is Message:
        rows = rows.filter(consumer=consumer.name)
    if consumer.quota_kinds:
        rows = rows.filter(**{f"{getattr(consumer.row_model, 'KIND_FIELD', 'kind')}__in": list(consumer.quota_kinds)})
    if account_id is not None:
        rows = rows.filter(**{consumer.account_field(): account_id})
    return rows.count()
