"""Webhook deliveries, driven step by step in this process (the same steps the workers run):
the fan-out of a game's news, each signed POST, retries, giving up, the SSRF guard, the size of
what is kept, and what an endpoint's owner may see. Real workers: tests/workers/test_webhook_workers.py."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json

import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks import Webhook

from games import selectors
from games import services as game_services
from games import time_controls
from consumers import framework
from hooks import services, transport
from hooks.consumer import WEBHOOKS
from hooks.models import Delivery, Endpoint
from tests.api.conftest import register
from tests.api.test_secrets_api import _to_the_duel

pytestmark = pytest.mark.django_db


def _endpoint(player, url: str, **fields) -> dict:
    response = player.post("/api/webhooks/", {"url": url, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def _toy_game(first, second) -> int:
    game_id = first.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id


def _deliver_all(rounds: int = 1) -> None:
    """Attempt every pending delivery that is due, `rounds` times over (a worker's job)."""
    for _ in range(rounds):
        for delivery_id in Delivery.objects.filter(status="pending").order_by("pk").values_list("pk", flat=True):
            services.delivery_attempt(delivery_id=delivery_id)


def _log(player, webhook_id: int) -> list[dict]:
    response = player.get(f"/api/webhooks/{webhook_id}/deliveries/")
    assert response.status_code == 200, response.content
    return response.json()["deliveries"]


@pytest.fixture
def alice_and_bob(loopback_allowed):
    return register(), register()


def test_news_of_a_game_arrives_signed_the_standard_webhooks_way(receiver, alice_and_bob):
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url())
    assert hook["secret"].startswith("whsec_") and hook["events"] == sorted(
        ["event", "game_started", "your_turn", "deadline_warning", "game_over",
         "invitation_created", "invitation_declined", "invitation_cancelled", "invitation_accepted"]
    )
    game_id = _toy_game(alice, bob)
    assert services.fan_out(game_id=game_id) > 0
    _deliver_all()

    verifier = Webhook(hook["secret"])
    told = [verifier.verify(request["body"], request["headers"]) for request in receiver.received]
    types = [message["type"] for message in told]
    assert "game_started" in types and "your_turn" in types
    assert {message["data"]["game"] for message in told} == {game_id}
    assert all(message["data"]["seat"] == 0 for message in told)
    log = _log(alice, hook["id"])
    assert {entry["webhook_id"] for entry in log} == {request["headers"]["webhook-id"] for request in receiver.received}
    assert all(entry["status"] == "delivered" and entry["attempts"][0]["status_code"] == 200 for entry in log)

    tampered = dict(receiver.received[0]["headers"], **{"webhook-id": "msg_someone_else"})
    with pytest.raises(Exception, match="No matching signature"):
        verifier.verify(receiver.received[0]["body"], tampered)


def test_each_event_is_told_once_however_often_the_fan_out_runs(receiver, alice_and_bob):
    alice, bob = alice_and_bob
    _endpoint(alice, receiver.url(), events=["event", "your_turn"])
    game_id = _toy_game(alice, bob)
    alice.play_first_legal(game_id)
    made = services.fan_out(game_id=game_id)
    assert services.fan_out(game_id=game_id) == 0
    events = selectors.events_seen_by(game_id=game_id, seat=0, after=0, upto=10_000)
    told = list(Delivery.objects.filter(type="event").values_list("seq", flat=True).order_by("seq"))
    assert told == [event["seq"] for event in events] and made == len(told) + Delivery.objects.filter(type="your_turn").count()


def test_the_turn_is_told_only_to_the_seat_whose_turn_it_is(receiver, alice_and_bob):
    alice, bob = alice_and_bob
    _endpoint(alice, receiver.url(), events=["your_turn"])
    _endpoint(bob, receiver.url("/bob"), events=["your_turn"])
    game_id = _toy_game(alice, bob)
    services.fan_out(game_id=game_id)
    to_act = alice.get(f"/api/games/{game_id}/").json()["to_act"]
    told = Delivery.objects.get(type="your_turn")
    assert told.payload["data"]["seat"] == to_act[0] and told.endpoint.owner.username == [alice, bob][to_act[0]].username


def test_failures_are_retried_with_backoff_until_delivered(receiver, alice_and_bob, settings):
    settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS = [0, 0, 0]
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url(), events=["game_started"])
    receiver.answer((503, b"busy", 0), (500, b"oops", 0))
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all(rounds=3)
    (entry,) = _log(alice, hook["id"])
    assert entry["status"] == "delivered" and entry["retries"] == 2
    assert [attempt["status_code"] for attempt in entry["attempts"]] == [503, 500, 200]
    assert [attempt["error"] for attempt in entry["attempts"]] == ["http_503", "http_500", ""]
    assert {request["headers"]["webhook-id"] for request in receiver.received} == {entry["webhook_id"]}


def test_the_waits_between_retries_grow_to_about_a_day(settings):
    waits = settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS
    assert all(later >= earlier for earlier, later in zip(waits, waits[1:]))
    assert 20 * 3600 <= sum(waits) <= 26 * 3600


def test_a_retry_waits_its_turn(receiver, alice_and_bob, settings):
    settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS = [60]
    alice, bob = alice_and_bob
    _endpoint(alice, receiver.url(), events=["game_started"])
    receiver.answer((502, b"", 0))
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all(rounds=2)  # the second round finds it not yet due
    delivery = Delivery.objects.get()
    assert len(receiver.received) == 1 and delivery.status == "pending" and delivery.retries == 1
    assert 60 <= (delivery.next_attempt_at - timezone.now()).total_seconds() <= 67
    assert framework.due_send(WEBHOOKS) == 0
    assert framework.due_send(WEBHOOKS, at=delivery.next_attempt_at) == 1


def test_an_endpoint_failing_for_a_day_is_disabled_and_its_owner_mailed(
    receiver, loopback_allowed, settings, django_capture_on_commit_callbacks
):
    settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS = [0, 0]
    carol = register(email="carol@example.org")
    hook = _endpoint(carol, receiver.url(), events=["game_started"])
    receiver.answer(*[(503, b"down", 0)] * 3)
    services.fan_out(game_id=_toy_game(carol, register()))
    with django_capture_on_commit_callbacks(execute=True):  # the mail goes once the endpoint is disabled
        _deliver_all(rounds=3)
    endpoint = carol.get(f"/api/webhooks/{hook['id']}/").json()
    assert endpoint["active"] is False and "http_503" in endpoint["disabled_reason"]
    (entry,) = _log(carol, hook["id"])
    assert entry["status"] == "failed" and len(entry["attempts"]) == 3
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["carol@example.org"]
    assert f"webhook {hook['id']}" in mail.outbox[0].subject and mail.outbox[0].extra_headers["Content-Language"] == "en"

    replay = carol.post(f"/api/webhooks/{hook['id']}/deliveries/{entry['id']}/replay/")
    assert replay.status_code == 409 and replay.json()["code"] == "webhook_disabled"
    assert carol.client.patch(f"/api/webhooks/{hook['id']}/", {"active": True}, format="json").json()["active"]
    assert carol.post(f"/api/webhooks/{hook['id']}/deliveries/{entry['id']}/replay/").status_code == 202
    _deliver_all()
    assert _log(carol, hook["id"])[0]["status"] == "delivered"


def test_the_disabled_notice_is_in_the_owners_language(
    receiver, loopback_allowed, settings, django_capture_on_commit_callbacks
):
    """Whoever's game made the deliveries, the owner reads the notice in the language of its account."""
    settings.SCRAPYARD_WEBHOOK_RETRY_SECONDS = [0, 0]
    carol = register(email="carol@example.org")
    assert carol.client.patch("/api/accounts/me/", {"language": "nl"}, format="json").status_code == 200
    hook = _endpoint(carol, receiver.url(), events=["game_started"])
    receiver.answer(*[(503, b"down", 0)] * 3)
    services.fan_out(game_id=_toy_game(carol, register()))
    with django_capture_on_commit_callbacks(execute=True):
        _deliver_all(rounds=3)
    (told,) = mail.outbox
    assert told.extra_headers["Content-Language"] == "nl" and told.subject == f"Scrapyard: webhook {hook['id']} uitgeschakeld"
    body = " ".join(told.body.split())
    assert f"Je webhook {hook['id']} ({receiver.url()}) is uitgeschakeld" in body and "http_503" in body, body
    assert "0,0 uur" in body and "worden bewaard" in body and '{"active": true}' in body, body


def test_a_refusal_is_not_retried(receiver, alice_and_bob):
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url(), events=["game_started"])
    receiver.answer((410, b"gone", 0))
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all(rounds=2)
    (entry,) = _log(alice, hook["id"])
    assert entry["status"] == "failed" and len(receiver.received) == 1
    assert alice.get(f"/api/webhooks/{hook['id']}/").json()["active"] is True


def test_a_slow_endpoint_times_out_and_is_retried(receiver, alice_and_bob, settings):
    settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS = 0.3
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url(), events=["game_started"])
    receiver.answer((200, b"late", 1.5))
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all()
    (entry,) = _log(alice, hook["id"])
    assert entry["status"] == "pending" and entry["retries"] == 1
    assert entry["attempts"][0]["error"].startswith("timeout") and entry["attempts"][0]["duration_ms"] < 1200


def test_only_a_kilobyte_of_an_answer_is_kept(receiver, alice_and_bob):
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url(), events=["game_started"])
    receiver.answer((200, b"x" * 5000, 0))
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all()
    assert len(_log(alice, hook["id"])[0]["attempts"][0]["response_body"]) == 1024


def test_a_ping_tries_the_endpoint_and_a_replay_sends_the_same_message_again(receiver, alice_and_bob):
    alice, _ = alice_and_bob
    hook = _endpoint(alice, receiver.url())
    ping = alice.post(f"/api/webhooks/{hook['id']}/ping/")
    assert ping.status_code == 202 and ping.json()["type"] == "ping" and ping.json()["status"] == "pending"
    _deliver_all()
    again = alice.post(f"/api/webhooks/{hook['id']}/deliveries/{ping.json()['id']}/replay/")
    assert again.status_code == 202 and again.json()["status"] == "pending"
    _deliver_all()
    first, second = receiver.received
    assert first["body"] == second["body"] and first["headers"]["webhook-id"] == second["headers"]["webhook-id"]
    Webhook(hook["secret"]).verify(second["body"], second["headers"])
    assert len(_log(alice, hook["id"])[0]["attempts"]) == 2


# --- the SSRF guard ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address, allowed",
    [
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
        ("127.0.0.1", False),
        ("::1", False),
        ("10.1.2.3", False),
        ("172.16.0.9", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),  # cloud metadata
        ("fd00:ec2::254", False),  # cloud metadata, IPv6
        ("100.100.100.200", False),  # shared address space (a metadata service lives here too)
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("fe80::1", False),
        ("::10.0.0.1", False),  # IPv4-compatible
        ("::127.0.0.1", False),
        ("::169.254.169.254", False),
        ("64:ff9b::10.0.0.1", False),  # NAT64
        ("64:ff9b::169.254.169.254", False),
        ("64:ff9b::127.0.0.1", False),
        ("64:ff9b:1::a00:1", False),  # local-use NAT64
        ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::", False),  # 6to4 of 169.254.169.254
        ("64:ff9b::93.184.216.34", True),  # NAT64 of a public address is public
        ("2002:5db8:d822::1", True),  # 6to4 of a public address
    ],
)
def test_only_public_addresses_may_be_reached(address, allowed):
    assert transport.address_allowed(ipaddress.ip_address(address), allow_loopback=False) is allowed


def test_loopback_is_allowed_only_when_the_setting_says_so():
    assert transport.address_allowed(ipaddress.ip_address("127.0.0.1"), allow_loopback=True)
    assert not transport.address_allowed(ipaddress.ip_address("::10.0.0.1"), allow_loopback=True)
    assert not transport.address_allowed(ipaddress.ip_address("10.0.0.1"), allow_loopback=True)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a00:1::]/",
        "http://[::10.0.0.1]/",
        "http://10.0.0.1/",
        # inet_aton's shorthands, which the resolver reads as these addresses
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://0/",
        "http://10.1/",
        "http://169.254.43518/",
        "ftp://example.org/",
        "https://user:pw@example.org/",
        "not a url",
        "http://example.org:99999/",
    ],
)
def test_an_endpoint_that_can_never_be_reached_is_refused_when_registered(url):
    response = register().post("/api/webhooks/", {"url": url})
    assert response.status_code == 400 and response.json()["code"] == "url_not_allowed", response.content
    assert not Endpoint.objects.exists()


def test_a_name_resolving_to_a_forbidden_address_is_refused_at_delivery(receiver, alice_and_bob, settings):
    """Registered while allowed (or while its name resolved elsewhere); refused when it is sent."""
    alice, bob = alice_and_bob
    hook = _endpoint(alice, receiver.url().replace("127.0.0.1", "localhost"), events=["game_started"])
    settings.SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK = False
    services.fan_out(game_id=_toy_game(alice, bob))
    _deliver_all()
    (entry,) = _log(alice, hook["id"])
    assert entry["status"] == "failed" and entry["attempts"][0]["error"].startswith("address_not_allowed")
    assert receiver.received == []


def test_the_connection_goes_to_the_address_that_was_checked(receiver, monkeypatch):
    """DNS rebinding: the name is resolved once, checked, and that address is the one connected
    to (here a made-up name the test resolves itself), with the name kept for the Host header."""
    port = receiver.server.server_address[1]
    answers = iter([["127.0.0.1"]])
    monkeypatch.setattr(transport, "lookup", lambda host, port: next(answers))
    outcome = transport.post(f"http://hooks.example.test:{port}/x", b"{}", {}, timeout=2, allow_loopback=True)
    assert outcome.delivered and receiver.received[0]["headers"]["Host"] == f"hooks.example.test:{port}"

    # An IPv6 literal keeps its brackets in the Host header (RFC 3986 host; unbracketed, a
    # receiver's server answers 400 and the delivery fails for good).
    monkeypatch.setattr(transport, "lookup", lambda host, port: ["127.0.0.1"])
    literal = transport.post(f"http://[2001:db8::7]:{port}/x", b"{}", {}, timeout=2, allow_loopback=True)
    assert literal.delivered and receiver.received[1]["headers"]["Host"] == f"[2001:db8::7]:{port}"

    monkeypatch.setattr(transport, "lookup", lambda host, port: ["93.184.216.34", "10.0.0.7"])
    refused = transport.post("http://rebound.example.test/x", b"{}", {}, timeout=2, allow_loopback=True)
    assert not refused.retry and refused.error.startswith("address_not_allowed") and len(receiver.received) == 2


# --- what the owner may see -------------------------------------------------------------------


def test_an_endpoint_is_told_only_what_its_owner_may_see(receiver, loopback_allowed, django_user_model, monkeypatch):
    """At a Terrain Vague duel both seats choose in secret: the watcher's endpoint is told the
    chooser's move exactly as `/events/` shows it to the watcher, never the choice itself."""
    monkeypatch.setattr(game_services.lobby, "new_seed", lambda: "same-seed-for-both-games")
    users = [django_user_model.objects.create_user(f"duelist{i}", password="x") for i in range(2)]
    game = _to_the_duel(users)
    chooser, watcher = game.to_act
    Endpoint.objects.create(owner=users[watcher], url=receiver.url(), events=["event"], secret="whsec_" + "A" * 32)
    listed = selectors.legal_moves_for(game=game, user=users[chooser])
    game_services.move_submit(game_id=game.pk, user=users[chooser], move=listed["moves"][0], expected_seq=listed["seq"])
    services.fan_out(game_id=game.pk)

    game.refresh_from_db()
    (told,) = [json.loads(json.dumps(d.payload["data"]["event"])) for d in Delivery.objects.all()]
    as_watcher = json.loads(json.dumps(selectors.events_visible(game=game, user=users[watcher])[-1], default=str))
    as_chooser = selectors.events_visible(game=game, user=users[chooser])[-1]
    assert told["seq"] == as_watcher["seq"] == game.seq and told["seat"] == chooser
    assert told["payload"] == as_watcher["payload"] != as_chooser["payload"]
    assert json.dumps(as_chooser["payload"], sort_keys=True) not in json.dumps(told, sort_keys=True)


def test_a_seat_past_four_fifths_of_its_time_is_warned_once(receiver, alice_and_bob, monkeypatch):
    alice, bob = alice_and_bob
    _endpoint(alice, receiver.url(), events=["deadline_warning"])
    _endpoint(bob, receiver.url("/bob"), events=["deadline_warning"])
    created = alice.post("/api/games/", {"rules": "toy_race", "players": 2, "time_control": {"type": "step", "seconds": 100}})
    game_id = created.json()["id"]
    bob.post(f"/api/games/{game_id}/join/")
    assert services.deadline_warnings_note() == 0
    later = time_controls.now() + dt.timedelta(seconds=85)
    monkeypatch.setattr(time_controls, "now", lambda: later)
    assert services.deadline_warnings_note() == 1
    assert services.deadline_warnings_note() == 0
    (warning,) = Delivery.objects.all()
    to_act = alice.get(f"/api/games/{game_id}/").json()["to_act"]
    assert warning.type == "deadline_warning" and warning.payload["data"]["seat"] == to_act[0]
    assert warning.endpoint.owner.username == [alice, bob][to_act[0]].username


# --- deleting an endpoint while a delivery is attempted (issue 30, point 16) ------------------


@pytest.mark.django_db(transaction=True)
def test_deleting_an_endpoint_while_an_attempt_is_recorded_is_a_204_not_a_500(loopback_allowed, monkeypatch):
    """The worker records its attempt at the worst moment: after the delete's cascade has read
    the attempts and before it deletes the deliveries (a foreign-key violation, once). Now the
    worker waits for the delete and finds nothing left to record on."""
    import threading

    from django.db import connection
    from django.db.models.sql.subqueries import DeleteQuery

    owner = register()
    hook = _endpoint(owner, "http://127.0.0.1:9/hook")
    delivery_id = owner.post(f"/api/webhooks/{hook['id']}/ping/").json()["id"]
    delivery = Delivery.objects.select_related("endpoint").get(pk=delivery_id)
    outcome = transport.Outcome(200, "", False, 5, "ok")
    recorded = []

    def record():
        try:
            framework.record(WEBHOOKS, delivery, framework.Outcome(delivered=True, detail=(outcome, timezone.now())), timezone.now())
            recorded.append("done")
        except Exception as error:  # reported below
            recorded.append(error)
        finally:
            connection.close()

    real_delete_batch = DeleteQuery.delete_batch
    workers = []

    def delete_while_a_worker_records(query, pk_list, using):
        if query.model is Delivery and not workers:  # the attempts are deleted; the deliveries next
            workers.append(threading.Thread(target=record))
            workers[0].start()
            workers[0].join(timeout=1.0)  # with the fix it waits on the delivery's lock until we commit
        return real_delete_batch(query, pk_list, using)

    monkeypatch.setattr(DeleteQuery, "delete_batch", delete_while_a_worker_records)
    client = owner.client
    client.raise_request_exception = False
    answer = client.delete(f"/api/webhooks/{hook['id']}/")
    workers[0].join(timeout=10)
    assert answer.status_code == 204, answer.content
    assert recorded == ["done"]
    assert not Endpoint.objects.filter(pk=hook["id"]).exists() and not Delivery.objects.filter(pk=delivery_id).exists()


# --- one deadline per delivery, on a queue of its own (issue 30, point 9) ---------------------


class _Dripping:
    """An endpoint that answers one byte at a time, each well within a per-read timeout."""

    def __init__(self, every: float, answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"):
        import socket
        import threading

        self.listener = socket.create_server(("127.0.0.1", 0))
        self.every, self.answer = every, answer
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"

    def _serve(self) -> None:
        import time

        conn, _ = self.listener.accept()
        with conn:
            conn.recv(65536)
            try:
                for byte in self.answer:
                    conn.sendall(bytes([byte]))
                    time.sleep(self.every)
            except OSError:  # the sender hung up: what the deadline is for
                pass

    def close(self) -> None:
        self.listener.close()


def test_an_endpoint_dripping_its_answer_is_cut_off_at_the_deliverys_deadline():
    import time

    endpoint = _Dripping(every=0.25)  # 42 bytes: over 10 s in all, yet never 0.25 s without a byte
    try:
        started = time.monotonic()
        outcome = transport.post(endpoint.url(), b"{}", {}, timeout=1.0, allow_loopback=True)
        took = time.monotonic() - started
    finally:
        endpoint.close()
    assert outcome.status_code is None and outcome.retry and outcome.error.startswith("timeout"), outcome
    assert took < 2.0, took


def test_a_prompt_answer_is_delivered_within_the_deadline(receiver):
    receiver.answer((204, b"", 0.0))
    outcome = transport.post(receiver.url(), b"{}", {}, timeout=1.0, allow_loopback=True)
    assert outcome.delivered and outcome.status_code == 204


def test_webhook_tasks_have_a_queue_and_workers_of_their_own(monkeypatch):
    import configparser
    from pathlib import Path

    from games import dispatch

    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args, options)))
    framework.send_after_commit(WEBHOOKS, [1])
    framework.fan_outs_missed(WEBHOOKS)  # nothing followed: nothing sent
    framework._send(WEBHOOKS, framework.FAN_OUT, (WEBHOOKS.name, 1))
    assert sent and all(options["queue"] == "webhooks" for _, _, options in sent)
    assert all(consumer.queue != "webhooks" for consumer in framework.registered() if consumer is not WEBHOOKS)
    config = configparser.RawConfigParser()
    config.read(Path(__file__).resolve().parents[2] / "deploy" / "supervisord.conf")
    assert "--queues=webhooks" in config.get("program:webhooks", "command")
    assert all("webhooks" not in config.get(section, "command").split("--queues=")[-1].split()[0]
               for section in config.sections() if section != "program:webhooks" and "--queues=" in config.get(section, "command", fallback=""))


def test_pings_keep_to_the_consumers_quota_per_account(alice_and_bob, settings):
    """A ping is the one message a person makes at will: the framework's quota counts them per
    account, all its endpoints together."""
    settings.SCRAPYARD_WEBHOOK_PINGS_PER_HOUR = 2
    alice, bob = alice_and_bob
    first, second = (_endpoint(alice, f"http://127.0.0.1:9/{name}") for name in ("a", "b"))
    assert alice.post(f"/api/webhooks/{first['id']}/ping/").status_code == 202
    assert alice.post(f"/api/webhooks/{second['id']}/ping/").status_code == 202
    refused = alice.post(f"/api/webhooks/{first['id']}/ping/")
    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_pings")
    hook = _endpoint(bob, "http://127.0.0.1:9/c")
    assert bob.post(f"/api/webhooks/{hook['id']}/ping/").status_code == 202  # another account's own count


def test_replays_keep_to_the_same_quota_per_account_as_pings(alice_and_bob, settings):
    """A replay is a POST a person sends at will, as a ping is: each counts against the account's
    quota, the same delivery replayed again and again too, and past it the answer is a 429 with a
    stable code and Retry-After, like the API's other quotas."""
    settings.SCRAPYARD_WEBHOOK_PINGS_PER_HOUR = 3
    alice, bob = alice_and_bob
    hook = _endpoint(alice, "http://127.0.0.1:9/a")
    ping = alice.post(f"/api/webhooks/{hook['id']}/ping/").json()
    replay = f"/api/webhooks/{hook['id']}/deliveries/{ping['id']}/replay/"
    assert alice.post(replay).status_code == 202
    assert alice.post(replay).status_code == 202

    refused = alice.post(replay)

    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_replays"), refused.content
    assert int(refused["Retry-After"]) > 0
    pinged = alice.post(f"/api/webhooks/{hook['id']}/ping/")  # one quota for both
    assert (pinged.status_code, pinged.json()["code"]) == (429, "too_many_pings") and int(pinged["Retry-After"]) > 0
    own = _endpoint(bob, "http://127.0.0.1:9/b")
    bobs = bob.post(f"/api/webhooks/{own['id']}/ping/").json()
    assert bob.post(f"/api/webhooks/{own['id']}/deliveries/{bobs['id']}/replay/").status_code == 202  # his own count
