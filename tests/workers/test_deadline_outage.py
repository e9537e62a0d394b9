"""Deadlines through a 20 s Redis outage: a deadlines worker (with beat) against a redis-server of
the test's own, which the test kills outright (it keeps nothing on disk: every message in it is
lost) while deadlines fall due, and starts again empty. Every deadline that fell due meanwhile is
enforced within 5 s of Redis's return (the issue: a 3 s step clock fired no timeout for 92 s, 72 s
after Redis was back), every later one on time, and none twice."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from games import time_controls
from games.models import Event, Game
from tests.workers.conftest import _point_celery_at, wait_for
from tests.workers.test_broker_outages import RedisServer, _forfeit_game

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(180),
]

DOWN_SECONDS = 20.0
BACK_WITHIN_SECONDS = 5.0  # the bound, from Redis's return


@pytest.fixture
def own_redis(start_worker, tmp_path):
    """A redis-server on a spare port, which this process's Celery app sends to as well."""
    from project.celery import app

    server = RedisServer(tmp_path)
    server.start()
    before = app.conf.broker_url
    _point_celery_at(app, server.url)
    yield server
    _point_celery_at(app, before)
    if server.process.poll() is None:
        server.kill()


def test_deadlines_due_during_a_redis_outage_fire_within_seconds_of_its_return_and_once(start_worker, own_redis):
    worker = start_worker("clock", concurrency=2, queues="deadlines", REDIS_URL=own_redis.url,
                 SCRAPYARD_CLOCKS_RESEND="30")  # the deployment's resend, not the tests' quick one
    time.sleep(2)  # beat's first sweeps: the worker is consuming
    # Deadlines before the outage, all through it, and after it.
    games = [_forfeit_game(seconds) for seconds in range(3, 3 + int(DOWN_SECONDS) + 9, 2)]
    time.sleep(1.5)
    own_redis.kill()
    down_at = time_controls.now()
    time.sleep(DOWN_SECONDS)
    own_redis.start()
    back_at = time_controls.now()

    def every_game_timed_out() -> bool:
        """every game has its timeout"""
        return not Game.objects.filter(pk__in=[game.pk for game, _ in games]).exclude(status="finished").exists()

    try:
        wait_for(every_game_timed_out, 90, 0.5)
    except BaseException:
        print(worker.text()[-20000:])  # what the worker and its beat did, beside the failure
        raise
    late = []
    for game, due_at in games:
        timeouts = list(Event.objects.filter(game=game, kind="timeout"))
        assert len(timeouts) == 1, (game.pk, [event.seq for event in timeouts])
        assert timeouts[0].created_at >= due_at, "a deadline was enforced early"
        fired = timeouts[0].created_at
        late.append((fired - (due_at if fired < down_at else max(due_at, back_at))).total_seconds())
    connection.close()
    assert max(late) <= BACK_WITHIN_SECONDS, sorted(late)
