"""Webhooks delivered by real Celery workers with beat, on PostgreSQL and Redis: every notice of a
whole game signed and delivered once, a 503 retried, the sweeps delivering what lost messages
missed, and an endpoint disabled (its owner mailed) once every retry failed."""

from __future__ import annotations

import datetime as dt

import pytest
from standardwebhooks import Webhook

from games import signals
from consumers import receivers
from hooks.models import Delivery, Endpoint
from tests.api.conftest import register
from tests.streams.test_account_stream import _play_out
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(120),
]

WORKER_ENV = {"SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK": "1", "SCRAPYARD_WEBHOOK_RETRY_SECONDS": "0.5,0.5"}


def _endpoint(player, url: str, **fields) -> dict:
    response = player.post("/api/webhooks/", {"url": url, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def _told(receiver, secret: str) -> list[dict]:
    """Every message received, its signature checked, with its webhook-id."""
    verifier = Webhook(secret)
    return [
        {**verifier.verify(request["body"], request["headers"]), "id": request["headers"]["webhook-id"]}
        for request in list(receiver.received)
    ]


def _game(first, second) -> int:
    game_id = first.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id


def test_workers_tell_an_endpoint_of_a_whole_game_signed_and_retry_a_failure(start_worker, receiver, loopback_allowed):
    start_worker(**WORKER_ENV)
    alice, bob = register(), register()
    hook = _endpoint(alice, receiver.url())
    receiver.answer((503, b"busy", 0))  # the first POST fails; its retry must come
    game_id = _game(alice, bob)
    final = _play_out(game_id, [alice, bob])

    wait_for(lambda: any(message["type"] == "game_over" for message in _told(receiver, hook["secret"])), 30)
    wait_for(lambda: not Delivery.objects.filter(status="pending").exists(), 15)
    told = _told(receiver, hook["secret"])
    ids = [message["id"] for message in told]
    assert len(ids) == len(set(ids)) + 1, "one message retried, none doubled"
    events = alice.get(f"/api/games/{game_id}/events/").json()["events"]
    seqs = sorted({message["data"]["seq"] for message in told if message["type"] == "event"})
    assert seqs == [event["seq"] for event in events]
    (over,) = [message for message in told if message["type"] == "game_over"]
    assert over["data"]["result"] == final["result"] and all(message["data"]["seat"] == 0 for message in told)
    assert Delivery.objects.filter(status="delivered").count() == len(set(ids))
    retried = Delivery.objects.get(retries=1)
    assert [attempt.status_code for attempt in retried.attempts.order_by("at")] == [503, 200]


@pytest.fixture
def fan_out_requests_lost():
    """The web process's fan-out requests never leave (as if it died after each commit)."""
    assert signals.events_recorded.disconnect(dispatch_uid="consumers.events_recorded")
    yield
    signals.events_recorded.connect(receivers.events_recorded, dispatch_uid="consumers.events_recorded")


def test_the_sweeps_deliver_what_lost_messages_missed(start_worker, receiver, loopback_allowed, fan_out_requests_lost):
    start_worker(SCRAPYARD_WEBHOOK_MISSED_SWEEP_SECONDS="1", **WORKER_ENV)
    alice, bob = register(), register()
    hook = _endpoint(alice, receiver.url(), events=["game_started", "your_turn"])
    game_id = _game(alice, bob)
    wait_for(lambda: {message["type"] for message in _told(receiver, hook["secret"])} >= {"game_started"}, 20)

    # A delivery whose message to the workers was lost, half a minute ago.
    long_ago = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=60)
    Delivery.objects.create(
        endpoint=Endpoint.objects.get(pk=hook["id"]), webhook_id="msg_lost_on_the_way", type="ping",
        payload={"type": "ping", "timestamp": long_ago.isoformat(), "data": {"webhook": hook["id"]}},
        next_attempt_at=long_ago, enqueued_at=long_ago,
    )
    wait_for(lambda: "msg_lost_on_the_way" in [message["id"] for message in _told(receiver, hook["secret"])], 20)
    # The receiver hears the POST before the worker has read its answer and marked the delivery.
    wait_for(lambda: Delivery.objects.get(webhook_id="msg_lost_on_the_way").status == "delivered", 10)
    assert all(message["data"].get("game", game_id) == game_id for message in _told(receiver, hook["secret"]))


def test_an_endpoint_failing_every_retry_is_disabled_and_its_owner_mailed(start_worker, receiver, loopback_allowed):
    worker = start_worker(**WORKER_ENV)
    carol = register(email="carol@example.org")
    hook = _endpoint(carol, receiver.url())
    receiver.answer(*[(500, b"down", 0)] * 3)
    assert carol.post(f"/api/webhooks/{hook['id']}/ping/").status_code == 202
    wait_for(lambda: not Endpoint.objects.get(pk=hook["id"]).active, 30)
    assert len(receiver.received) == 3
    mails = wait_for(lambda: list((worker.log.parent / "mail").glob("*.eml")), 10)
    text = mails[0].read_text()
    assert "carol@example.org" in text and f"webhook {hook['id']} disabled" in text


def test_a_worker_refuses_to_post_to_this_machine_by_default(start_worker, receiver, loopback_allowed):
    """Registered where loopback is allowed (this process); sent by a worker with the default
    guard: resolved, refused, logged, and nothing reaches the receiver."""
    start_worker()
    dana = register()
    hook = _endpoint(dana, receiver.url().replace("127.0.0.1", "localhost"))
    assert dana.post(f"/api/webhooks/{hook['id']}/ping/").status_code == 202
    failed = wait_for(lambda: Delivery.objects.filter(endpoint_id=hook["id"], status="failed").first(), 20)
    (attempt,) = failed.attempts.all()
    assert attempt.error.startswith("address_not_allowed") and attempt.status_code is None
    assert receiver.received == [] and Endpoint.objects.get(pk=hook["id"]).active
