"""A consumer written here, against the framework alone (`consumers.framework`): it says whom a
game's news is for, what notice each event makes and how one is delivered, and gets the cursor,
the fan-out after each commit, the lease, the retries with their waits and the sweep with no code
of its own."""

from __future__ import annotations

import datetime as dt
from unittest.mock import patch

import pytest

from consumers import framework
from consumers.models import Cursor, Message
from games import dispatch, selectors, time_controls
from tests.api.conftest import register

pytestmark = pytest.mark.django_db


class Notes(framework.Consumer):
    """Each event a seated account sees, as a note; delivering a note fails as often as told."""

    name = "test_notes"
    retry_waits = (60, 600)

    def __init__(self) -> None:
        self.failures_left = 0
        self.delivered: list[tuple[int, int]] = []

    def recipients(self, game_id):
        return selectors.account_seats(game_id=game_id)

    def notices(self, recipient, seat, game, after):
        seen = selectors.events_seen_by(game_id=game["game"], seat=seat, after=after, upto=game["seq"])
        return [framework.message(recipient=recipient, kind=event["kind"], game_id=game["game"], seq=event["seq"])
                for event in seen]

    def deliver(self, row):
        if self.failures_left:
            self.failures_left -= 1
            return framework.Outcome(delivered=False, retry=True, note="busy")
        self.delivered.append((row.recipient, row.seq))
        return framework.Outcome(delivered=True)


@pytest.fixture
def eager_tasks():
    from project.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def notes():
    consumer = framework.register(Notes())
    yield consumer
    framework.unregister(consumer.name)


def _game(first, second) -> int:
    game_id = first.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id


def test_a_new_consumer_is_fanned_out_to_after_each_commit_once_per_event(notes, eager_tasks,
                                                                         django_capture_on_commit_callbacks):
    alice, bob = register(), register()
    with django_capture_on_commit_callbacks(execute=True):
        game_id = _game(alice, bob)
    rows = Message.objects.filter(consumer="test_notes", game_id=game_id)
    assert rows.count() > 0 and set(rows.values_list("status", flat=True)) == {"done"}
    assert sorted(notes.delivered) == sorted(rows.values_list("recipient", "seq"))
    made = rows.count()
    assert framework.fan_out(notes, game_id) == 0 and rows.count() == made  # the cursor: nothing twice
    assert set(Cursor.objects.filter(consumer="test_notes").values_list("seq", flat=True)) == {selectors.game_get(game_id=game_id).seq}


def test_a_new_consumer_gets_the_lease_and_the_retries(notes):
    alice, bob = register(), register()
    with patch.object(dispatch, "send"):  # the broker loses every message: the steps are driven here
        game_id = _game(alice, bob)
        framework.fan_out(notes, game_id)
    row = Message.objects.filter(consumer="test_notes").order_by("pk").first()

    Message.objects.filter(pk=row.pk).update(leased_until=time_controls.now() + dt.timedelta(seconds=30))
    assert framework.attempt(notes, row.pk) is None  # another worker holds it
    Message.objects.filter(pk=row.pk).update(leased_until=None)  # ... and let it go, recording nothing

    notes.failures_left = 1
    assert framework.attempt(notes, row.pk).retry
    row.refresh_from_db()
    assert row.status == "pending" and row.retries == 1 and row.leased_until is None
    assert 60 <= (row.next_attempt_at - time_controls.now()).total_seconds() <= 67  # the wait, with jitter
    assert framework.attempt(notes, row.pk) is None  # not due yet
    assert framework.attempt(notes, row.pk, at=row.next_attempt_at).delivered
    row.refresh_from_db()
    assert row.status == "done" and notes.delivered == [(row.recipient, row.seq)]

    other = Message.objects.filter(consumer="test_notes", status="pending").order_by("pk").first()
    notes.failures_left = 3  # more failures than waits: it fails for good
    for _ in range(3):
        framework.attempt(notes, other.pk, at=time_controls.now() + dt.timedelta(days=1))
    other.refresh_from_db()
    assert other.status == "failed" and other.retries == 2


def test_a_new_consumer_counts_a_worker_that_died_holding_a_row_and_renews_a_long_lease(notes):
    alice, bob = register(), register()
    with patch.object(dispatch, "send"):
        framework.fan_out(notes, _game(alice, bob))
    row = Message.objects.filter(consumer="test_notes").order_by("pk").first()
    for died in (1, 2):  # a worker died holding it (its lease ran out, nothing recorded); so does this one
        Message.objects.filter(pk=row.pk).update(leased_until=time_controls.now() - dt.timedelta(seconds=1))
        with patch.object(notes, "deliver", side_effect=SystemExit):
            with pytest.raises(SystemExit):
                framework.attempt(notes, row.pk)
        row.refresh_from_db()
        assert row.retries == died  # the lapsed lease it was claimed with: the worker before died
    Message.objects.filter(pk=row.pk).update(leased_until=time_controls.now() - dt.timedelta(seconds=1))
    outcome = framework.attempt(notes, row.pk)  # every wait used by deaths: failed, not tried again
    row.refresh_from_db()
    assert not outcome.delivered and row.status == "failed" and "died" in row.error and notes.delivered == []

    other = Message.objects.filter(consumer="test_notes", status="pending").order_by("pk").first()
    renewals = []

    def long_delivery(claimed):
        framework.lease_renew(notes, claimed)
        renewals.append(claimed.leased_until)
        Message.objects.filter(pk=claimed.pk).update(leased_until=time_controls.now())  # another worker's lease now
        framework.lease_renew(notes, claimed)

    with patch.object(notes, "deliver", side_effect=long_delivery):
        assert framework.attempt(notes, other.pk) is None  # the lease lost: nothing recorded by this one
    other.refresh_from_db()
    assert renewals and other.status == "pending" and other.retries == 0


def test_a_new_consumer_gets_the_sweep(notes):
    alice, bob = register(), register()
    with patch.object(dispatch, "send") as sent:
        game_id = _game(alice, bob)
        framework.fan_out(notes, game_id)  # a first fan-out: the sweep knows the game from its cursor
        pending = Message.objects.filter(consumer="test_notes", status="pending").count()
        sent.reset_mock()
        assert framework.due_send(notes) == 0  # just sent: its message may still be on the way
        later = time_controls.now() + dt.timedelta(seconds=notes.resend_seconds + 1)
        assert framework.due_send(notes, at=later) == pending  # lost with the broker: sent again
        mover = alice if alice.get(f"/api/games/{game_id}/legal-moves/").json().get("moves") else bob
        listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
        assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
        sent.reset_mock()
        assert framework.sweep(force=True) >= 1  # the move's fan-out was lost too: found again
    asked = [call.args for call in sent.call_args_list]
    assert (framework.FAN_OUT, ("test_notes", game_id)) in asked
    assert all(call.kwargs["queue"] == notes.queue for call in sent.call_args_list if call.args[1][0] == "test_notes")


def test_a_new_consumer_whose_first_fan_out_was_lost_is_found_by_the_sweep(notes):
    alice, bob = register(), register()
    with patch.object(dispatch, "send") as sent:
        game_id = _game(alice, bob)  # every fan-out lost: the consumer holds no cursor on the game
        assert not Cursor.objects.filter(consumer="test_notes", game_id=game_id).exists()
        sent.reset_mock()
        assert framework.fan_outs_missed(notes) >= 1
    assert (framework.FAN_OUT, ("test_notes", game_id)) in [call.args for call in sent.call_args_list]
    framework.fan_out(notes, game_id)
    with patch.object(dispatch, "send") as sent:
        framework.fan_outs_missed(notes)  # caught up: not asked again
    assert (framework.FAN_OUT, ("test_notes", game_id)) not in [call.args for call in sent.call_args_list]


class Prompt(Notes):
    """A new consumer that must act at once, told by the writer's hints alone, and that sometimes
    has to wait its turn: what bot turns need, with no code of its own for any of it."""

    name = "test_prompt"
    attempt_in_fan_out = True

    def __init__(self) -> None:
        super().__init__()
        self.busy = False

    def wanted(self, game_id, hints):
        return bool(hints.get("test_prompt"))  # only the writer's word: never asks the database

    def deliver(self, row):
        if self.busy:
            return framework.Outcome(delivered=False, again_in=0.5)
        return super().deliver(row)


@pytest.fixture
def prompt():
    consumer = framework.register(Prompt())
    yield consumer
    framework.unregister(consumer.name)


def test_a_new_consumer_is_told_by_hints_attempts_in_its_fan_out_and_waits_its_turn(prompt):
    alice, bob = register(), register()
    with patch.object(dispatch, "send") as sent:
        game_id = _game(alice, bob)
        framework.news(game_id, 1, {})  # not its hint: no fan-out
        framework.news(game_id, 1, {"test_prompt": True})
    asked = [call.args for call in sent.call_args_list if call.args[1][0] == "test_prompt"]
    assert asked == [(framework.FAN_OUT, ("test_prompt", game_id))]

    prompt.busy = True
    with patch.object(dispatch, "send") as sent:
        framework.fan_out(prompt, game_id)  # as the worker runs it: it attempts what it made, at once
    rows = Message.objects.filter(consumer="test_prompt")
    assert rows.exists() and not prompt.delivered
    assert set(rows.values_list("status", "retries")) == {("pending", 0)}  # waiting is no failure
    for row in rows:
        assert row.enqueued_at == row.next_attempt_at > row.created_at  # sent for then, not left to the sweep
    assert framework.due_send(prompt) == 0  # sent already: the sweep does not send it twice

    prompt.busy = False
    for row in rows:
        assert framework.attempt(prompt, row.pk, at=row.next_attempt_at).delivered
    assert set(rows.values_list("status", flat=True)) == {"done"} and all(rows.values_list("done_at", flat=True))


def test_a_new_consumers_done_rows_are_forgotten_after_their_keep(notes, eager_tasks,
                                                                  django_capture_on_commit_callbacks):
    alice, bob = register(), register()
    with django_capture_on_commit_callbacks(execute=True):
        _game(alice, bob)
    rows = Message.objects.filter(consumer="test_notes")
    made = rows.count()
    assert made and framework.prune(notes) == 0  # kept for `keep_done`
    Message.objects.filter(pk=rows.first().pk).update(status="pending")
    later = time_controls.now() + notes.keep_done + dt.timedelta(seconds=1)
    assert framework.prune(notes, at=later) == made - 1  # the one still pending is kept
    assert list(rows.values_list("status", flat=True)) == ["pending"]


def test_a_consumers_own_notice_goes_first_and_one_failing_stops_no_other(notes):
    told = []

    class Loud(Notes):
        name = "test_loud"

        def noticed(self, game_id, seq):
            raise ConnectionError("redis is away")

    loud = framework.register(Loud())
    try:
        with patch("games.announce.event_recorded", lambda game_id, seq: told.append((game_id, seq))), \
                patch.object(dispatch, "send") as sent:
            framework.news(7, 3, {})
    finally:
        framework.unregister(loud.name)
    assert told == [(7, 3)]  # the live streams' notice (`streams.consumer`)
    assert (framework.FAN_OUT, ("test_notes", 7)) in [call.args for call in sent.call_args_list]


def test_a_consumer_keeping_rows_in_order_is_asked_before_its_new_rows_are_stored_and_only_then():
    asked = []

    class Ordered(Notes):
        name = "test_ordered"

        def rows_in_order(self, rows):
            stored = Message.objects.filter(key__in=[row["key"] for row in rows]).exists()
            asked.append(([row["key"] for row in rows], stored))

    ordered = Ordered()
    first = framework.message(recipient=1, kind="note", game_id=7, seq=1)
    second = framework.message(recipient=2, kind="note", game_id=7, seq=1)
    assert framework.rows_make(ordered, [first]) == 1
    assert framework.rows_make(ordered, [first, second]) == 1
    assert framework.rows_make(ordered, [first, second]) == 0  # nothing new: nothing to lock
    assert framework.rows_make(ordered, []) == 0
    assert asked == [([first["key"]], False), ([second["key"]], False)]  # the new rows only, before they are there
