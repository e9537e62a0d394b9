"""Several beats send the schedule once: the one holding the lease (project.beat)."""

from __future__ import annotations

import os
import time
from collections import Counter

import pytest

from project.beat import Lease, LeasedScheduler, lease_name
from project.celery import app

pytestmark = pytest.mark.redis


def test_one_holder_at_a_time_and_another_takes_over_when_it_stops_renewing():
    url = os.environ["REDIS_URL"]
    first, second = (Lease(url, "scrapyard-test:lease", 0.3, holder=name) for name in ("first", "second"))
    first.release()
    second.release()
    assert first.hold() and not second.hold()
    time.sleep(0.2)
    assert first.hold() and not second.hold()  # renewed: still the first's
    time.sleep(0.4)  # the first is gone (it renews no more)
    assert second.hold() and not first.hold()
    second.release()
    assert first.hold()
    first.release()


def _beat(tmp_path, name: str, sent: Counter) -> LeasedScheduler:
    scheduler = LeasedScheduler(app=app, schedule_filename=str(tmp_path / f"{name}-schedule"), lazy=False)
    scheduler.apply_async = lambda entry, *args, **kwargs: sent.update([entry.name])
    return scheduler


def test_two_beats_send_each_sweep_once_and_the_second_takes_over_when_the_first_dies(tmp_path, settings):
    settings.SCRAPYARD_BEAT_LEASE_SECONDS = 0.6
    Lease(settings.REDIS_URL, lease_name(), 1).client.delete(lease_name())
    sent_first, sent_second = Counter(), Counter()
    first, second = _beat(tmp_path, "first", sent_first), _beat(tmp_path, "second", sent_second)

    until = time.monotonic() + 3
    while time.monotonic() < until:
        first.tick()
        second.tick()
        time.sleep(0.05)
    assert 2 <= sent_first["sweep-deadlines"] <= 4  # once a second, from one beat only
    assert not sent_second

    # The first dies without a word (no close, no release): the second takes over within the lease.
    until = time.monotonic() + 3
    while time.monotonic() < until:
        second.tick()
        time.sleep(0.05)
    assert 1 <= sent_second["sweep-deadlines"] <= 3
    second.close()
    first.lease.client.close()


@pytest.mark.django_db(transaction=True)  # the backstop's thread has its own connection
def test_beats_backstop_applies_the_overdue_timeouts_in_a_thread_of_its_own_without_redis(tmp_path, settings):
    """Through a Redis outage no beat holds the lease and nothing can be sent: the deadlines,
    which live in PostgreSQL, are enforced by beat's backstop thread (started with beat)."""
    import datetime as dt
    import threading

    from celery import signals
    from django.contrib.auth import get_user_model

    from games import services, time_controls
    from games.models import Deadline, Event
    from project import beat

    settings.REDIS_URL = "redis://127.0.0.1:9/0"  # nothing listens there
    users = [get_user_model().objects.create_user(username=f"beat{n}", password="x") for n in range(2)]
    game = services.game_create(creator=users[0], rules_id="scavenge", players=2, options={},
                                time_control={"type": "step", "seconds": 60}, timeout_policy="forfeit")
    services.game_join(game_id=game.pk, user=users[1])
    Deadline.objects.filter(game_id=game.pk).update(due_at=time_controls.now() - dt.timedelta(seconds=10))
    assert beat._start_backstop in [receiver() for _, receiver in signals.beat_init.receivers]  # beat starts it
    stop = threading.Event()
    backstop = threading.Thread(target=beat.run_backstop, args=(stop,), daemon=True)
    backstop.start()
    try:
        until = time.monotonic() + 60
        while not Event.objects.filter(game_id=game.pk, kind="timeout").exists():
            assert time.monotonic() < until, "the backstop applied no timeout"
            time.sleep(0.2)
    finally:
        stop.set()
        backstop.join(30)
    assert Event.objects.filter(game_id=game.pk, kind="timeout").count() == 1
