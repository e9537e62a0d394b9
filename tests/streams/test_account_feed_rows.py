"""The account feed on the consumer framework (issue 51, item 1; decision 0021, "Fifth step"):
each item is an outbox row with a lease, retried after its wait when its publish fails, found by
the sweep when its fan-out's message is lost, read again by a stream resuming with
Last-Event-ID; a game nobody's feed follows costs nothing; an item carries what it carried."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import redis
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient, override_settings

from consumers import framework
from consumers.models import Cursor, Message
from games import announce, time_controls
from streams import account_feed
from tests.api.conftest import register, start_game
from tests.streams.test_account_stream import _play_out
from tests.streams.test_game_stream import _read, _run

pytestmark = [pytest.mark.django_db(transaction=True)]

FEED = account_feed.FEED_CONSUMER
BRIEF = {"type", "game", "rules", "seat", "seq"}
FIELDS = {"game_started": BRIEF, "your_turn": BRIEF | {"deadline"}, "deadline_warning": BRIEF | {"deadline"},
          "game_adjourned": BRIEF | {"aborts_at"}, "game_over": BRIEF | {"result"}}


def _id(player) -> int:
    return get_user_model().objects.get(username=player.username).pk


def _notices(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _sse(text: str) -> list[tuple[int, dict]]:
    """(id, item) of each SSE item."""
    items = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "data" in lines:
            items.append((int(lines["id"]), json.loads(lines["data"])))
    return items


@pytest.fixture
def sent(monkeypatch):
    """Every framework message sent, as (consumer, task); `lost` drops the feed's fan-outs."""
    through = framework._send
    record = {"sent": [], "lost": False}

    def send(consumer, task, args):
        record["sent"].append((consumer.name, task))
        if record["lost"] and consumer.name == account_feed.FEED and task == framework.FAN_OUT:
            return None  # lost with the broker
        return through(consumer, task, args)

    monkeypatch.setattr(framework, "_send", send)
    return record


def test_a_game_whose_accounts_follow_no_feed_makes_no_row_no_cursor_and_no_fan_out(sent):
    game_id, players = start_game("toy_race", 2)
    _play_out(game_id, players)
    framework.sweep(force=True)
    assert (account_feed.FEED, framework.FAN_OUT) not in sent["sent"]
    assert not Message.objects.filter(consumer=account_feed.FEED).exists()
    assert not Cursor.objects.filter(consumer=account_feed.FEED).exists()


def test_a_feed_item_is_a_leased_row_whose_failed_publish_is_tried_again_after_its_wait(monkeypatch):
    alice, bob = register(), register()
    account_feed.listen(_id(alice))
    leases = []

    def away(user_id, row_id):
        leases.append(Message.objects.get(pk=row_id).leased_until)
        raise redis.ConnectionError("Redis away")

    monkeypatch.setattr(announce, "feed_item", away)
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    bob.post(f"/api/games/{game_id}/join/")
    row = Message.objects.get(consumer=account_feed.FEED, recipient=_id(alice), kind="game_started")
    assert leases and all(lease is not None for lease in leases)  # attempted under a lease
    assert (row.status, row.retries, row.leased_until) == ("pending", 1, None) and "Redis away" in row.error
    assert row.payload == {"type": "game_started", "game": game_id, "rules": "toy_race", "seat": 0, "seq": row.seq}
    assert framework.attempt(FEED, row.pk) is None  # not before its wait
    published = []
    monkeypatch.setattr(announce, "feed_item", lambda user_id, row_id: published.append((user_id, row_id)))
    later = time_controls.now() + dt.timedelta(seconds=FEED.retry_waits[0] * 1.1 + 0.1)
    assert framework.attempt(FEED, row.pk, at=later).delivered
    row.refresh_from_db()
    assert row.status == "done" and published == [(_id(alice), row.pk)]
    assert not Message.objects.filter(consumer=account_feed.FEED, recipient=_id(bob)).exists()  # bob follows no feed


def test_a_fan_out_lost_with_the_broker_is_found_by_the_sweep(sent):
    alice, bob = register(), register()
    account_feed.listen(_id(alice))  # her feed is followed; no stream of hers looks meanwhile
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    sent["lost"] = True
    bob.post(f"/api/games/{game_id}/join/")
    sent["lost"] = False
    assert not Message.objects.filter(consumer=account_feed.FEED, recipient=_id(alice)).exists()
    assert framework.fan_outs_missed(FEED) == 1
    row = Message.objects.get(consumer=account_feed.FEED, recipient=_id(alice), kind="game_started")
    assert row.payload == {"type": "game_started", "game": game_id, "rules": "toy_race", "seat": 0, "seq": row.seq}


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_news_no_fan_out_brought_reaches_the_open_stream_at_its_next_look(sent):
    """A fan-out lost with the broker, or skipped by a process that read "nobody listens" just
    before the stream opened: the stream's own look makes the rows owed, without waiting for beat
    (the example bot's game ended in under the 2 s a process trusts "nobody", and its `game_over`
    never came)."""
    alice, bob = register(), register()
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]

    def join_lost():
        sent["lost"] = True
        bob.post(f"/api/games/{game_id}/join/")
        sent["lost"] = False

    async def scenario():
        headers = {"Authorization": f"Token {alice.token}", "Accept": "application/x-ndjson"}
        feed = await AsyncClient().get("/api/stream/", headers=headers)
        before = await _read(feed, lambda t: False, limit=0.5)  # an open game: nothing to tell yet
        await sync_to_async(join_lost)()
        found = await _read(feed, lambda t: '"game_started"' in t, limit=5)
        return _notices(before), _notices(found)

    before, found = _run(scenario)
    assert before == [] and [item["type"] for item in found] == ["game_started"]
    assert found[0] == {**found[0], "game": game_id, "seat": 0}
    assert Message.objects.get(consumer=account_feed.FEED, recipient=_id(alice), kind="game_started").status == "done"


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_a_stream_resumed_with_last_event_id_gets_what_it_missed_and_nothing_twice():
    game_id, players = start_game("toy_race", 2)
    alice = players[0]

    async def scenario():
        headers = {"Authorization": f"Token {alice.token}", "Accept": "text/event-stream"}
        first = await AsyncClient().get("/api/stream/", headers=headers)
        opened = await _read(first, lambda t: '"game_started"' in t, limit=5)
        opened += await _read(first, lambda t: False, limit=0.5)
        told = _sse(opened)
        final = await sync_to_async(_play_out)(game_id, players)  # alice's client is away
        again = await AsyncClient().get("/api/stream/", headers={**headers, "Last-Event-ID": str(told[-1][0])})
        resumed = await _read(again, lambda t: '"game_over"' in t, limit=10)
        resumed += await _read(again, lambda t: False, limit=0.5)
        return told, _sse(resumed), final

    told, resumed, final = _run(scenario)
    assert told[0][1]["type"] == "game_started"
    kinds = [item["type"] for _, item in resumed]
    assert "game_started" not in kinds and kinds[-1] == "game_over" and resumed[-1][1]["result"] == final["result"]
    told_turns = {item["seq"] for _, item in told if item["type"] == "your_turn"}
    turns = [item["seq"] for _, item in resumed if item["type"] == "your_turn"]
    assert turns and len(turns) == len(set(turns)) and not told_turns & set(turns)  # none twice
    ids = [row_id for row_id, _ in resumed]
    assert ids == sorted(ids) and ids[0] > told[-1][0]
    rows = Message.objects.filter(consumer=account_feed.FEED, recipient=_id(alice), seq__gt=max(told_turns | {0}),
                                  kind="your_turn")
    assert sorted(rows.values_list("seq", flat=True)) == sorted(turns)  # every row made while away, once


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_feed_items_carry_only_what_the_account_feed_always_carried():
    alice, bob = register(), register()
    for player in (alice, bob):
        account_feed.listen(_id(player))
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    bob.post(f"/api/games/{game_id}/join/")
    _play_out(game_id, [alice, bob])
    rows = list(Message.objects.filter(consumer=account_feed.FEED).order_by("pk"))
    assert {row.kind for row in rows} >= {"game_started", "your_turn", "game_over"}
    for row in rows:
        assert set(row.payload) == FIELDS[row.kind], row.payload
        assert row.payload["seat"] == {_id(alice): 0, _id(bob): 1}[row.recipient]
        assert row.key == f"feed:{row.recipient}:{game_id}:{row.seq}:{row.kind}"
