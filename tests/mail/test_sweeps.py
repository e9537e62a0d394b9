"""Beat's mail sweep: what a lost message left behind is found again (a game's fan-out, a mail's
send, a stored reply's reading), and nothing is found twice once done."""

from __future__ import annotations

import datetime as dt
from unittest.mock import patch

import pytest

from games import dispatch, time_controls
from mail import services
from consumers import framework
from consumers.models import Cursor
from mail.models import Outgoing
from tests.api.conftest import register

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent():
    """Every task sent, none run: the broker loses them all."""
    with patch.object(dispatch, "send") as send:
        yield send


def _names(send) -> list[str]:
    return [call.args[0] for call in send.call_args_list]


def _mail_fan_outs_missed() -> int:
    return framework.fan_outs_missed(framework.get("mail"))


def test_the_sweep_finds_a_lost_fan_out_then_leaves_it_alone(sent):
    alice, bob = register(email="a@players.example"), register(email="b@players.example")
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    sent.reset_mock()
    assert _mail_fan_outs_missed() == 1 and _names(sent) == [framework.FAN_OUT]
    services.fan_out(game_id=game_id)  # what the worker does with it
    assert Cursor.objects.filter(consumer="mail", game_id=game_id).count() == 2
    sent.reset_mock()
    assert _mail_fan_outs_missed() == 0
    assert Outgoing.objects.filter(status="pending").exists()


def test_the_sweep_sends_a_mail_whose_send_was_lost_and_reads_a_reply_left_unread(sent):
    alice, bob = register(email="c@players.example"), register(email="d@players.example")
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    services.fan_out(game_id=game_id)
    pending = Outgoing.objects.filter(status="pending").count()
    assert pending > 0
    sent.reset_mock()
    assert services.due_send() == 0  # just made: its own send request may still be on the way
    later = time_controls.now() + dt.timedelta(minutes=2)
    assert services.due_send(at=later) == pending and set(_names(sent)) == {framework.DELIVER}
    for outgoing_id in Outgoing.objects.values_list("pk", flat=True):
        services.outgoing_send(outgoing_id=outgoing_id, at=later)
    assert services.due_send(at=later) == 0 and not Outgoing.objects.exclude(status="sent").exists()

    from django.contrib.auth import get_user_model

    address = services.reply_address(get_user_model().objects.get(username=alice.username).pk, game_id, 0)
    [inbound] = services.inbound_store(via="smtp", envelope_sender="c@players.example", recipients=[address],
                                       raw=b"From: c@players.example\r\nSubject: x\r\n\r\nboard\r\n")
    sent.reset_mock()
    assert services.inbound_unread_handle() == 0
    assert services.inbound_unread_handle(at=time_controls.now() + dt.timedelta(minutes=1)) == 1
    assert _names(sent) == [services.HANDLE_INBOUND]
    assert services.inbound_handle(inbound_id=inbound) == "board"
    assert services.inbound_unread_handle(at=time_controls.now() + dt.timedelta(minutes=1)) == 0
