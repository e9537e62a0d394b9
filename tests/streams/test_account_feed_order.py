"""One account's feed rows commit in id order (`AccountFeed.rows_in_order`), with real
connections: a client resumes after the id it got, so a row that committed after a newer one was
skipped for ever (a bot's `your_turn` lost: a game that stalls). On PostgreSQL the accounts'
listener rows are locked; on SQLite writers queue anyway (the same tests, but those of the locks
themselves). Each thread has its own connection; every wait is bounded."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from consumers import framework
from consumers.models import Message
from streams import account_feed

pytestmark = [pytest.mark.django_db(transaction=True)]

FEED = account_feed.FEED_CONSUMER
WAIT = 10  # seconds: the longest any step may wait
STILL_WAITING = 1.0  # seconds a second insert is given to go past the first, had it not to wait


def _listening(name: str):
    user = get_user_model().objects.create_user(name, password="pw-long-enough")
    account_feed.listen(user.pk)
    return user


def _turn(account: int, game: int) -> dict:
    """A `your_turn` row of the account in a game (games are named by id only: none need exist)."""
    return account_feed._row(account, {"type": "your_turn", "game": game, "rules": "toy_race", "seat": 0, "seq": 1,
                                       "deadline": None})


class Held(threading.Thread):
    """Stores rows in a transaction it holds open until `release`, on its own connection."""

    def __init__(self, rows: list[dict]) -> None:
        super().__init__(daemon=True)
        self.rows, self.stored, self.release, self.error = rows, threading.Event(), threading.Event(), None

    def run(self) -> None:
        try:
            with transaction.atomic():
                framework.rows_make(FEED, self.rows)
                self.stored.set()
                self.release.wait(timeout=WAIT)
        except Exception as error:  # the result under test
            self.error = error
        finally:
            self.stored.set()
            connection.close()


class Storing(threading.Thread):
    """Stores rows and commits at once, on its own connection."""

    def __init__(self, rows: list[dict]) -> None:
        super().__init__(daemon=True)
        self.rows, self.done, self.error = rows, threading.Event(), None

    def run(self) -> None:
        try:
            framework.rows_make(FEED, self.rows)
        except Exception as error:  # the result under test
            self.error = error
        finally:
            self.done.set()
            connection.close()


def _joined(*threads: threading.Thread) -> None:
    for thread in threads:
        thread.join(timeout=WAIT)
    assert not [thread for thread in threads if thread.is_alive()], f"a thread still waits after {WAIT} s"
    errors = [thread.error for thread in threads if getattr(thread, "error", None)]
    assert not errors, errors


def _games(items: list[tuple[int, dict]]) -> list[int]:
    return [item["game"] for _, item in items]


def test_a_resume_after_a_newer_row_gets_the_older_row_that_committed_after_it():
    """Two fan-outs of a bot account's two games: the first's transaction still open while the
    second stores its row; the client's stream reads, the client drops and resumes after the id
    it got, then the first commits. The resumed stream gets the first game's row, once."""
    bot = _listening("bot")
    stream = account_feed.Reader(bot.pk)
    assert stream.open(user=bot, resume=None) == []
    first, second = Held([_turn(bot.pk, 1)]), Storing([_turn(bot.pk, 2)])
    first.start()
    assert first.stored.wait(timeout=WAIT) and first.error is None
    second.start()
    second.done.wait(timeout=STILL_WAITING)  # went past the first, or waits for its commit
    got = stream.next()
    last_id = got[-1][0] if got else stream.last  # what the client's Last-Event-ID says
    first.release.set()
    _joined(first, second)
    resumed = account_feed.Reader(bot.pk)
    assert resumed.open(user=bot, resume=last_id) == []
    then = resumed.next()
    assert sorted(_games(got) + _games(then)) == [1, 2], (got, then)  # each game's turn once, none lost
    ids = [row_id for row_id, _ in got + then]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_the_older_row_committed_late_reaches_the_live_stream_too():
    bot = _listening("bot")
    stream = account_feed.Reader(bot.pk)
    stream.open(user=bot, resume=None)
    first, second = Held([_turn(bot.pk, 1)]), Storing([_turn(bot.pk, 2)])
    first.start()
    assert first.stored.wait(timeout=WAIT) and first.error is None
    second.start()
    second.done.wait(timeout=STILL_WAITING)
    got = stream.next()
    first.release.set()
    _joined(first, second)
    got += stream.next()
    assert sorted(_games(got)) == [1, 2], got


@pytest.mark.postgres
def test_rows_of_another_account_do_not_wait_for_an_open_transaction():
    alice, bob = _listening("alice"), _listening("bob")
    held, other = Held([_turn(alice.pk, 1)]), Storing([_turn(bob.pk, 1)])
    held.start()
    try:
        assert held.stored.wait(timeout=WAIT) and held.error is None
        other.start()
        assert other.done.wait(timeout=WAIT), "bob's row waited for alice's transaction"
        assert other.error is None
        assert Message.objects.filter(consumer=account_feed.FEED, recipient=bob.pk).count() == 1
    finally:
        held.release.set()
        _joined(held, other)
    stream = account_feed.Reader(bob.pk)
    assert _games(stream.next()) == [1]


def _until_waiting_or_done(thread: Storing) -> None:
    """Until the thread's transaction waits for a row lock (seen in `pg_stat_activity`), or it is
    done; `WAIT` at most."""
    deadline = time.monotonic() + WAIT
    while not thread.done.wait(timeout=0.05) and time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                return


@pytest.mark.postgres
def test_rows_for_two_accounts_lock_them_in_account_order_whatever_the_rows_order():
    """One transaction holds the lower account and goes on to the higher; another stores rows for
    the higher, then the lower. Had the second locked the higher first, each would wait for the
    other (PostgreSQL ends one: deadlock detected); it locks the lower first, holding nothing
    while it waits, and both commit."""
    lower, higher = sorted([_listening("alice").pk, _listening("bob").pk])
    holding, go = threading.Event(), threading.Event()
    first_error: list[Exception] = []

    def first() -> None:
        try:
            with transaction.atomic():
                framework.rows_make(FEED, [_turn(lower, 1)])
                holding.set()
                go.wait(timeout=WAIT)
                framework.rows_make(FEED, [_turn(higher, 1)])
        except Exception as error:  # the result under test
            first_error.append(error)
        finally:
            holding.set()
            connection.close()

    one = threading.Thread(target=first, daemon=True)
    one.start()
    assert holding.wait(timeout=WAIT) and not first_error
    two = Storing([_turn(higher, 2), _turn(lower, 2)])
    two.start()
    _until_waiting_or_done(two)
    go.set()
    _joined(one, two)
    assert not first_error, first_error
    rows = Message.objects.filter(consumer=account_feed.FEED)
    assert sorted(rows.values_list("recipient", "game_id")) == [(lower, 1), (lower, 2), (higher, 1), (higher, 2)]


def test_a_row_for_an_account_that_never_listened_is_stored_in_order_too():
    user = get_user_model().objects.create_user("quiet", password="pw-long-enough")
    first, second = Held([_turn(user.pk, 1)]), Storing([_turn(user.pk, 2)])
    first.start()
    assert first.stored.wait(timeout=WAIT) and first.error is None
    second.start()
    went_past = second.done.wait(timeout=STILL_WAITING)
    first.release.set()
    _joined(first, second)
    assert not went_past, "the second row was stored while the first's transaction was open"
    assert not account_feed.listening_accounts([user.pk])  # still not listening
