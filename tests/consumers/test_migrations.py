"""Moving mail and webhooks onto the framework keeps what they had: every cursor (no notice told
twice, none owed lost) and every stored mail and delivery, a pending mail's failures carried
into the framework's count of retries."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("hooks", "0001_initial"), ("mail", "0002_inbound_once_verified_forced"), ("consumers", None)]


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _leaves() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return [node for node in executor.loader.graph.leaf_nodes() if node[0] in ("hooks", "mail", "consumers")]


def test_the_cursors_and_the_outboxes_survive_the_move():
    leaves = _leaves()
    old = _migrate(BEFORE).loader.project_state(BEFORE[:2]).apps
    User = old.get_model("auth", "User")
    ann = User.objects.create(username="ann_before", email="ann@players.example")
    endpoint = old.get_model("hooks", "Endpoint").objects.create(
        owner_id=ann.pk, url="https://example.org/hook", events=["event"], secret="whsec_x")
    old.get_model("hooks", "Cursor").objects.create(endpoint_id=endpoint.pk, game_id=7, seq=12)
    old.get_model("hooks", "Delivery").objects.create(
        endpoint_id=endpoint.pk, webhook_id="msg_kept", type="event", game_id=7, seq=12, payload={}, retries=2)
    old.get_model("mail", "Cursor").objects.create(user_id=ann.pk, game_id=7, seq=11)
    Outgoing = old.get_model("mail", "Outgoing")
    at = dt.datetime(2026, 11, 28, tzinfo=dt.timezone.utc)
    common = {"user_id": ann.pk, "kind": "your_turn", "game_id": 7, "to": "ann@players.example", "subject": "s",
              "text": "t", "next_attempt_at": at}
    Outgoing.objects.create(key="waiting", seq=10, message_id="<a@x>", status="pending", attempts=2, **common)
    Outgoing.objects.create(key="sent", seq=11, message_id="<b@x>", status="sent", attempts=1, **common)

    new = _migrate(leaves).loader.project_state(leaves).apps
    cursors = set(new.get_model("consumers", "Cursor").objects.values_list("consumer", "recipient", "game_id", "seq"))
    assert cursors == {("hooks", endpoint.pk, 7, 12), ("mail", ann.pk, 7, 11)}
    assert new.get_model("hooks", "Delivery").objects.get(webhook_id="msg_kept").retries == 2
    kept = dict(new.get_model("mail", "Outgoing").objects.values_list("key", "retries"))
    assert kept == {"waiting": 2, "sent": 0}  # two failures waiting for their retry; one attempt, done
