"""The account feed (`GET /api/stream/`) as a consumer of the log (`consumers.framework`).

What it wants: the items of an account's games (`game_started`, `your_turn`, `deadline_warning`,
`game_adjourned`, `game_over`) and of the invitations to or from it (`invitation_*`), for the
game's seated accounts that follow their feed now (`FeedListener`: an account stream open, or
closed less than `LIVE_SECONDS` ago, so a client reconnecting finds what it missed). Each item is
a plain outbox row (`consumers.models.Message`: its `payload` is the item as the stream sends it),
keyed once per (account, game, seq, type). The cursor, the fan-out, the lease, the retries, the
sweep and the pruning are the framework's; its queue is `feed`.

How it delivers: a publish of the row's id on the account's channel (`games.announce.feed_item`),
which wakes the account's streams (`streams.hub`), each of which reads its account's rows after
the last it sent (`Reader`) and sends them in order, the row's id as the SSE `id:`. A publish that
fails (Redis away) is tried again after the framework's waits; a stream meanwhile reads its rows at
each re-check, so an item is never lost, only later.

Reading by id needs one account's rows to commit in id order: a client that got row 101 resumes
after 101, and a row 100 whose transaction (another game's fan-out, a deadline warning, an
invitation) committed after 101's would never reach it. So every transaction storing feed rows
first locks the `FeedListener` rows of their accounts (`rows_in_order`, called by the framework
just before it stores them; in account order, so two transactions never wait for each other in a
circle): a second transaction for the same account waits for the first to commit and takes its
ids after. The lock is a row lock inside the transaction (nothing held across transactions: safe
behind PgBouncer's transaction pooling), taken only when there is a row to store and held only for
the insert and the commit; rows for other accounts never wait. SQLite has no row locks, and needs
none: one writer at a time, each transaction's ids taken after the one before committed.

Nobody listening costs nothing per move: `listens_to` (cached by the framework's `listening`)
answers no without a look at the game when no account follows its feed at all, and no fan-out,
row or cursor is made for a game none of whose accounts does. Deadline warnings come with no
event: the sweep's `periodic` makes those due for the accounts listening, and each stream makes
its own account's at its re-check (the same rows, keyed once), so a warning is never later than
the stream's re-check.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis
from django.core.cache import cache
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from consumers import framework
from games import announce, selectors
from streams.models import FeedListener

FEED = "feed"
OPEN, ACTIVE, FINISHED = "open", "active", "finished"
LIVE_SECONDS = 60  # an account's feed is followed this long after its stream last said so
REFRESH_SECONDS = 20  # a stream says so this often
# Rows are read by id, and one account's rows commit in id order (`listeners_lock`). A stream
# still reads the rows made this recently that it has not sent: a belt, for rows stored without the
# lock (a node still running the code before it, during a rolling upgrade).
RECENT = dt.timedelta(seconds=30)
OWED_LOOK_BACK = dt.timedelta(minutes=1)  # games finished this lately may still owe the stream their end
SNAPSHOT_OVERLAP = dt.timedelta(seconds=5)  # rows made this long before a stream opened may tell what it told
INVITATION_TYPES = {"pending": "invitation_created", "created": "invitation_created",
                    "declined": "invitation_declined", "cancelled": "invitation_cancelled",
                    "accepted": "invitation_accepted"}


# --- the items --------------------------------------------------------------------------------


def _brief(game: dict[str, Any]) -> dict[str, Any]:
    return {key: game[key] for key in ("game", "rules", "seat", "seq")}


def changes(before: dict[str, Any] | None, now: dict[str, Any]) -> list[dict[str, Any]]:
    """What the account should hear about one game, from how it was (None: unknown, as on a
    stream's opening) to how it is (`selectors.account_game`)."""
    game = _brief(now)
    items = []
    playing = now["status"] == ACTIVE
    if playing and (before is None or before["status"] == OPEN):
        items.append({"type": "game_started", **game})
    to_move = playing and now["seat"] in now["to_act"]
    moved_on = before is None or before["seq"] != now["seq"] or before["status"] != now["status"]
    if to_move and moved_on:
        items.append({"type": "your_turn", **game, "deadline": now["deadline"]})
    warned_already = before is not None and before["deadline_warning"] and before["seq"] == now["seq"]
    if to_move and now["deadline_warning"] and not warned_already:
        items.append({"type": "deadline_warning", **game, "deadline": now["deadline"]})
    if playing and now["aborts_at"] and (before is None or before["aborts_at"] != now["aborts_at"]):
        items.append({"type": "game_adjourned", **game, "aborts_at": now["aborts_at"]})
    if now["status"] == FINISHED and before is not None:
        items.append({"type": "game_over", **game, "result": now["result"]})
    return items


def owed(now: dict[str, Any], *, started: bool) -> list[dict[str, Any]]:
    """The items a game's events after a cursor owe the account, the game being as it is now
    (`changes` from a `before` one event older: the newest relevant items, never one per event
    missed); `started`: the game's start is among those events."""
    before = {**now, "seq": -1, "status": OPEN if started else now["status"], "deadline_warning": False,
              "aborts_at": None}
    if now["status"] == FINISHED:
        before["status"] = ACTIVE
    return changes(before, now)


def _row(account: int, item: dict[str, Any]) -> dict[str, Any]:
    """The item's row, its payload as the stream writes it (times as the API writes them)."""
    item = json.loads(json.dumps(item, cls=JSONEncoder))
    kind = item["type"]
    if kind.startswith("invitation_"):
        key = f"feed:{account}:invitation:{item['invitation']}:{kind}"
        return framework.message(recipient=account, kind=kind, game_id=item["game"], payload=item, key=key)
    key = f"feed:{account}:{item['game']}:{item['seq']}:{kind}"
    return framework.message(recipient=account, kind=kind, game_id=item["game"], seq=item["seq"], payload=item, key=key)


# --- who listens ------------------------------------------------------------------------------


def listening_accounts(account_ids: list[int] | None = None) -> list[int]:
    """Of these accounts (None: all), those following their feed now."""
    listeners = FeedListener.objects.filter(until__gt=timezone.now())
    if account_ids is not None:
        listeners = listeners.filter(account_id__in=list(account_ids))
    return list(listeners.values_list("account_id", flat=True))


def listeners_lock(account_ids: list[int]) -> None:
    """Lock these accounts' listener rows until the transaction ends, in account order (two
    transactions wanting some of the same accounts queue, never wait for each other in a
    circle). Rows are made only for accounts that listen, whose row `listen` made and nothing
    deletes; one missing all the same (an account that never listened) is made, as not
    listening, so that it is locked too. A stream's `listen` (an UPDATE of the same row) waits
    meanwhile: for an insert and a commit."""
    accounts = sorted(set(account_ids))
    locked = set(_locked_listeners(accounts))
    missing = [account for account in accounts if account not in locked]
    if missing:
        FeedListener.objects.bulk_create([FeedListener(account_id=account, until=timezone.now()) for account in missing],
                                         ignore_conflicts=True)
        _locked_listeners(missing)


def _locked_listeners(accounts: list[int]) -> list[int]:
    return list(FeedListener.objects.select_for_update().filter(account_id__in=accounts).order_by("account_id")
                .values_list("account_id", flat=True))


# Whether any account follows its feed at all: a key in the shared cache that every stream sets
# for `LIVE_SECONDS` as it says its account listens, and each process remembers what it read for
# `ANYONE_SECONDS` (monotonic time it is good until, the answer). With nobody listening anywhere, a
# move's news costs a dict lookup, and a cache read a process every `ANYONE_SECONDS`; no look per game.
ANYONE_KEY = "streams:feed:anyone"
ANYONE_SECONDS = 2.0
_anyone: list = [0.0, False]


def anyone_listening() -> bool:
    now = time.monotonic()
    if _anyone[0] <= now:
        try:
            known = cache.get(ANYONE_KEY) is not None
        except Exception:  # noqa: BLE001 - the cache away: ask per game (`listens_to`, through the framework's `listening`)
            known = True
        _anyone[:] = [now + ANYONE_SECONDS, known]
    return _anyone[1]


def forget_remembered() -> None:
    _anyone[:] = [0.0, False]


def listen(account_id: int) -> bool:
    """The account follows its feed for `LIVE_SECONDS` more; whether it already did (then its
    rows were made all along: a stream resuming may trust them)."""
    now = timezone.now()
    was = FeedListener.objects.filter(account_id=account_id, until__gt=now).exists()
    FeedListener.objects.bulk_create([FeedListener(account_id=account_id, until=now)], ignore_conflicts=True)
    FeedListener.objects.filter(account_id=account_id).update(until=now + dt.timedelta(seconds=LIVE_SECONDS))
    try:
        cache.set(ANYONE_KEY, 1, LIVE_SECONDS)
    except Exception:  # noqa: BLE001, S110 - the cache away: `anyone_listening` says yes meanwhile
        pass
    _anyone[:] = [0.0, False]  # this process looks again (the others within `ANYONE_SECONDS`: the sweep covers them)
    return was


# --- the consumer -----------------------------------------------------------------------------


class AccountFeed(framework.Consumer):
    name = FEED
    queue = FEED  # its own pair of workers: a stream's items wait behind no mail, hook or bot
    retry_waits = (1, 3, 10, 30, 120)  # a publish: Redis back within seconds, or the re-check reads it
    lease_seconds = 10
    resend_seconds = 5
    sweep_seconds = 1.0
    missed_sweep_seconds = 2.0
    listening_seconds = 2.0
    look_back = dt.timedelta(hours=1)
    keep_done = dt.timedelta(hours=6)

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool | None:
        return None if anyone_listening() else False  # nobody follows a feed: no look at the game

    def listens_to(self, game_id: int) -> bool:
        return bool(listening_accounts(list(selectors.account_seats(game_id=game_id))))

    def recipients(self, game_id: int) -> dict[int, int | None]:
        return selectors.account_seats(game_id=game_id)

    def ready(self, recipient: int) -> bool:
        return bool(listening_accounts([recipient]))

    def game(self, game_id: int, seat: int | None) -> dict[str, Any]:
        return selectors.account_game_of(game_id=game_id, seat=seat, adjourned=True)

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        started = game["status"] == ACTIVE and selectors.game_started_between(
            game_id=game["game"], after=after, upto=game["seq"])
        return [_row(recipient, item) for item in owed(game, started=started)]

    def rows_in_order(self, rows: Sequence[dict[str, Any]]) -> None:
        # A client resumes after the id it got: a row of its account that committed after a
        # newer one would be skipped. Locked, a second transaction's rows for the account wait
        # for the first's commit, and take their ids after it.
        listeners_lock([row["recipient"] for row in rows])

    def followed(self, since: dt.datetime) -> list[dict[str, Any]]:
        listening = set(listening_accounts())
        if not listening:
            return []
        moved = selectors.games_moved_since(user_ids=sorted(listening), game_ids=[], since=since)
        return [{"game": game["game"], "seq": game["seq"],
                 "recipients": [account for account in game["accounts"] if account in listening]} for game in moved]

    def deliver(self, row: Any) -> framework.Outcome:
        try:
            announce.feed_item(row.recipient, row.pk)
        except redis.RedisError as error:  # Redis away: the framework tries again after its wait
            return framework.Outcome(delivered=False, retry=True, note=f"publish failed: {error}")
        return framework.Outcome(delivered=True)

    def periodic(self) -> int:
        listening = listening_accounts()
        return warnings_make(listening) if listening else 0


FEED_CONSUMER = framework.register(AccountFeed())


def warnings_make(account_ids: list[int]) -> int:
    """The deadline warnings due to these accounts, made once each."""
    rows = [_row(warning["account"], {"type": "deadline_warning", "game": warning["game"], "rules": warning["rules"],
                                      "seat": warning["seat"], "seq": warning["seq"], "deadline": warning["deadline"]})
            for warning in selectors.deadline_warnings(user_ids=account_ids)]
    return framework.rows_make(FEED_CONSUMER, rows) if rows else 0


def invitation_changed(sender: Any, *, game_id: int, invitee_id: int, inviter_id: int | None, status: str,
                       **kwargs: Any) -> int:
    """`games.signals.invitation_changed` receiver: an item for the invitee and the inviter, if
    they follow their feed (as webhooks get theirs: `hooks.consumer.invitation_changed`)."""
    kind = INVITATION_TYPES.get(status)
    accounts = listening_accounts(sorted({invitee_id, inviter_id} - {None}))
    notice = selectors.invitation_notice_get(game_id=game_id, invitee_id=invitee_id) if kind and accounts else None
    if notice is None:
        return 0
    item = {"type": kind, **notice, "status": "pending" if kind == "invitation_created" else status}
    return framework.rows_make(FEED_CONSUMER, [_row(account, item) for account in accounts])


# --- a stream's reading -----------------------------------------------------------------------


def _rows_of(account_id: int) -> QuerySet:
    """The account's feed rows (the framework's plain outbox, `consumers.models.Message`)."""
    return AccountFeed.row_model.objects.filter(consumer=FEED, recipient=account_id)


def _newest_row(account_id: int) -> int:
    return _rows_of(account_id).aggregate(newest=Max("pk"))["newest"] or 0


@dataclass
class Reader:
    """What one account stream has sent: the rows after `last`, and those made lately it has not
    sent (`sent`), minus what its opening told (`told`)."""

    account: int
    last: int = 0
    opened_at: dt.datetime = field(default_factory=timezone.now)
    recent_from: dt.datetime = field(default_factory=timezone.now)
    told: set[tuple] = field(default_factory=set)
    sent: set[int] = field(default_factory=set)
    said_at: dt.datetime = field(default_factory=timezone.now)
    owed_at: float = 0.0  # when this stream last looked for rows no fan-out made (monotonic)

    def open(self, *, user: Any, resume: int | None) -> list[dict[str, Any]]:
        """Start following the feed: after `resume` (a row id) if the account followed it all
        along, else from now, with what is current first (each game being played, with
        `your_turn` where it is, and each pending invitation); those items are returned."""
        followed = listen(self.account)
        self.said_at = timezone.now()
        newest = _newest_row(self.account)
        if resume is not None and followed:
            self.last = min(resume, newest)
            return []
        self.last, self.recent_from = newest, self.opened_at - SNAPSHOT_OVERLAP
        games = selectors.account_games(user=user)
        items = [item for game in games for item in changes(None, game)]
        items += [{"type": "invitation_created", **notice} for notice in selectors.invitation_notices_of(user=user)
                  if notice["status"] == "pending"]
        self.told = {_told(item) for item in items}
        for game in games:  # told up to here: the sweep need not fan these out for this account
            framework.catch_up(FEED_CONSUMER, self.account, game["game"], game["seq"])
            framework.listeners_changed(FEED_CONSUMER, str(game["game"]))
        return items

    def next(self) -> list[tuple[int, dict[str, Any]]]:
        """The rows not sent yet, in order (SSE id, item); the account still follows its feed, and the
        deadline warnings due to it are made."""
        now = timezone.now()
        if (now - self.said_at).total_seconds() >= REFRESH_SECONDS:
            listen(self.account)
            self.said_at = now
        warnings_make([self.account])
        self._owed_made(now)
        recent = Q(created_at__gte=max(self.recent_from, now - RECENT))
        rows = (_rows_of(self.account).filter(Q(pk__gt=self.last) | recent)
                .order_by("pk").values_list("pk", "payload"))
        fresh = []
        for row_id, item in rows:
            if row_id in self.sent:
                continue
            self.sent.add(row_id)
            self.last = max(self.last, row_id)
            if _told(item) not in self.told:  # its id: the newest sent, so Last-Event-ID never goes back
                fresh.append((self.last, item))
        if len(self.sent) > 2000:
            self.sent = set(sorted(self.sent)[-1000:])
        return fresh


    def _owed_made(self, now: dt.datetime) -> None:
        """The rows owed to this account that no fan-out made: a process that read "nobody
        listens" (`anyone_listening`) just before this stream opened skips the account's games
        for up to `ANYONE_SECONDS`; the sweep finds them too, but a stream need not wait for beat.
        Once per `ANYONE_SECONDS` at most: a stream wakes for each of its rows, which a fan-out made."""
        if time.monotonic() - self.owed_at < ANYONE_SECONDS:
            return
        self.owed_at = time.monotonic()
        moved = selectors.games_moved_since(user_ids=[self.account], game_ids=[], since=now - OWED_LOOK_BACK)
        framework.fan_out_owed(FEED_CONSUMER, self.account,
                               [{"game": game["game"], "seq": game["seq"], "seat": game["accounts"].get(self.account)}
                                for game in moved])


def _told(item: dict[str, Any]) -> tuple:
    """What makes an item the same news as another: a game's start is told once; an invitation's
    turn once; every other item once per seq."""
    kind = item.get("type", "")
    if kind == "game_started":
        return (kind, item.get("game"))
    if kind.startswith("invitation_"):
        return (kind, item.get("invitation"))
    return (kind, item.get("game"), item.get("seq"))
