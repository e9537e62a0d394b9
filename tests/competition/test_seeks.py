"""Seeks: the API, compatibility (rules, options, clock, rating range), expiry, and pairing under
races on PostgreSQL (64 seeks at once: every seek paired once, nobody in two games)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection
from django.utils import timezone

from competition import pairing
from competition.models import Rating, Seek
from games.models import Game, Seat
from tests.api.conftest import register
from tests.competition.conftest import make_users

pytestmark = pytest.mark.django_db(transaction=True)

STEP = {"type": "step", "seconds": 30}


def _seek(user, **more):
    wanted = {"rules_id": "toy_race", "players": 2, "options": {}, "time_control": STEP, "rated": True, **more}
    return pairing.seek_create(user=user, **wanted)


def test_two_compatible_seeks_make_a_game_seen_on_both_seeks_through_the_api():
    one, two = register(), register()
    body = {"rules": "toy_race", "players": 2, "time_control": STEP}
    first = one.post("/api/seeks/", body)
    assert first.status_code == 201, first.content
    assert first.json()["status"] == "open" and first.json()["rating"] == 1500
    assert [s["id"] for s in two.get("/api/seeks/").json()] == [first.json()["id"]]
    second = two.post("/api/seeks/", body)
    assert second.status_code == 201
    mine = one.get(f"/api/seeks/{first.json()['id']}/").json()
    theirs = two.get(f"/api/seeks/{second.json()['id']}/").json()
    assert mine["status"] == theirs["status"] == "paired" and mine["game"] == theirs["game"]
    game = one.get(f"/api/games/{mine['game']}/").json()
    assert game["status"] == "active" and game["rated"] is True
    assert sorted(seat["username"] for seat in game["seats"]) == sorted([one.username, two.username])
    assert two.get("/api/seeks/").json() == []


def test_seeks_for_different_games_or_clocks_stay_apart():
    one, two, three = make_users(3)
    _seek(one)
    _seek(two, time_control={"type": "step", "seconds": 60})
    _seek(three, rated=False)
    assert Seek.objects.filter(status="open").count() == 3 and not Game.objects.exists()


def test_a_rating_range_is_honoured_both_ways():
    strong, weak, middle = make_users(3)
    now = timezone.now()
    for user, value in ((strong, 1900.0), (weak, 1300.0)):
        Rating.objects.create(player=f"u{user.pk}", user=user, name=user.username, rules="toy_race",
                              time_class="step", system="glicko2", mu=value, sigma=80, volatility=0.06, rating=value,
                              deviation=80, last_played_at=now)
    picky = _seek(strong, rating_min=1700)
    _seek(weak)
    assert Seek.objects.get(pk=picky.pk).status == "open"  # 1300 is below the strong player's range
    later = _seek(middle, rating_max=1400)  # 1300 is within it, and weak accepts anyone
    assert Seek.objects.get(pk=later.pk).status == "paired"
    assert Seek.objects.get(pk=picky.pk).status == "open"


def test_nobody_is_paired_with_themselves_and_seeks_expire():
    (alone,) = make_users(1)
    first = _seek(alone)
    _seek(alone)
    assert Seek.objects.filter(status="open").count() == 2
    Seek.objects.filter(pk=first.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert pairing.seeks_expire() == 1
    assert Seek.objects.get(pk=first.pk).status == "expired"


def test_bad_seeks_are_refused_with_codes_and_store_nothing():
    player = register()
    for body, code in (
        ({"rules": "nope", "players": 2, "time_control": STEP}, "unknown_rules"),
        ({"rules": "toy_race", "players": 2}, "invalid_input"),
        ({"rules": "toy_race", "players": 2, "time_control": STEP, "rating_range": {"min": 1600, "max": 1400}},
         "invalid_input"),
        ({"rules": "toy_race", "players": 2, "time_control": STEP, "expires_in": 1}, "invalid_input"),
    ):
        answer = player.post("/api/seeks/", body)
        assert answer.status_code == 400 and answer.json()["code"] == code, answer.content
    assert not Seek.objects.exists()
    assert player.get("/api/seeks/99999/").json()["code"] == "seek_not_found"


def test_a_seek_cancelled_is_not_paired():
    one, two = register(), register()
    body = {"rules": "toy_race", "players": 2, "time_control": STEP}
    seek = one.post("/api/seeks/", body).json()
    cancelled = one.client.delete(f"/api/seeks/{seek['id']}/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    two.post("/api/seeks/", body)
    assert not Game.objects.exists()


@pytest.mark.postgres
def test_sixty_four_seeks_at_once_pair_everyone_exactly_once():
    users = make_users(64, prefix="race")
    barrier = threading.Barrier(8)
    failures = []

    def seek_all(mine):
        try:
            barrier.wait()
            for user in mine:
                _seek(user)  # each seek asks for a pairing at once, racing the other threads'
        except Exception as error:  # reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=seek_all, args=(users[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not [thread for thread in threads if thread.is_alive()], "a seeking thread still waits after 120 s"
    assert not failures
    pairing.buckets_pair()  # the sweep: what a pairing skipped while another held it
    seeks = list(Seek.objects.all())
    assert len(seeks) == 64 and all(seek.status == "paired" for seek in seeks)
    assert Game.objects.count() == 32
    seated = list(Seat.objects.values_list("user_id", flat=True))
    assert sorted(seated) == sorted(user.pk for user in users)  # each once: nobody in two games
    for game in Game.objects.all():
        paired_to_it = {seek.user_id for seek in seeks if seek.game_id == game.pk}
        assert paired_to_it == set(game.seats.values_list("user_id", flat=True)) and len(paired_to_it) == 2


@pytest.mark.redis
def test_the_account_stream_tells_a_seeker_its_game_has_started_at_once():
    """With a re-check every 60 s, only the account's channel can bring the news in time."""
    import json

    from asgiref.sync import sync_to_async
    from django.test import AsyncClient, override_settings

    from tests.streams.test_game_stream import _read, _run

    one, two = register(), register()
    body = {"rules": "toy_race", "players": 2, "time_control": STEP}

    async def scenario():
        headers = {"Authorization": f"Token {one.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        await sync_to_async(one.post)("/api/seeks/", body)
        await _read(feed, lambda t: False, limit=0.3)  # seeking alone: nothing to tell
        await sync_to_async(two.post)("/api/seeks/", body)
        return await _read(feed, lambda t: '"game_started"' in t, limit=5)

    with override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60):
        text = _run(scenario)
    started = [json.loads(line) for line in text.splitlines() if line.strip()]
    game = Seek.objects.get(user__username=one.username).game_id
    assert started[0] == {**started[0], "type": "game_started", "game": game}
