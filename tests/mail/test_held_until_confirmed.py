"""Mail owed to an address its owner has not confirmed yet is held, not dropped (issue 51, 3):
once the address is confirmed, what is still relevant goes out, each game as it is now (its
start, the newest position where the player is to act), never one mail per event missed."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mail import services
from mail.models import Outgoing

from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import headline, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture
def confirming(settings):
    settings.SCRAPYARD_MAIL_VERIFY = True


def _confirm(sink, address: str) -> None:
    """Follow the confirmation link: the one mailed, or (before any mail) the one it would be."""
    asked = [message for message in sink.to(address) if "confirm" in message["Subject"]]
    if asked:
        link = re.search(r"https?://\S+/mail/v/\S+/", text_of(asked[-1]))[0]
    else:
        link = services.verify_url(get_user_model().objects.get(email=address).pk, address)
    assert Client().post("/" + link.split("://", 1)[1].split("/", 1)[1]).status_code == 200


def _mails(sink, address: str) -> list:
    return [message for message in sink.to(address) if "confirm" not in message["Subject"]]


def test_a_player_who_confirms_after_joining_gets_the_start_and_the_turn(sink, confirming, eager_tasks):
    """Signed up with an address, joined two games (one it opens, one where the other seat moved
    first), then confirmed: each game's start, showing the moves it owes now. On main nothing came."""
    opal, rex = mail_players("opal", "rex")
    _confirm(sink, "rex@players.example")
    first = mail_game(opal, rex)  # opal is seat 0: to move
    second = mail_game(rex, opal)  # rex moves first, then it is opal's turn
    rex.play_first_legal(second)
    assert _mails(sink, "opal@players.example") == []  # held: only the request to confirm went out

    _confirm(sink, "opal@players.example")
    told = _mails(sink, "opal@players.example")
    assert len(told) == 2, [headline(message) for message in told]  # one a game, not one an event
    for message in told:
        assert "has started" in headline(message)
        assert "It is your turn" in text_of(message)
    assert {opal.get(f"/api/games/{game}/").json()["seq"] for game in (first, second)}  # both still going


def test_a_new_address_holds_the_turn_and_sends_only_the_newest_position(sink, confirming, eager_tasks):
    """A confirmed player changes its address; moves go by meanwhile. Once the new address is
    confirmed, one your-turn mail, showing the position now."""
    pia, quin = mail_players("pia", "quin")
    _confirm(sink, "pia@players.example")
    _confirm(sink, "quin@players.example")
    game_id = mail_game(quin, pia)
    assert pia.client.patch("/api/accounts/me/", {"email": "pia2@players.example"}, format="json").status_code == 200
    for _ in range(2):  # quin's move, then pia's own from the web, then quin's again: pia to act
        mover = quin if quin.get(f"/api/games/{game_id}/legal-moves/").json().get("moves") else pia
        mover.play_first_legal(game_id)
    if not pia.get(f"/api/games/{game_id}/legal-moves/").json().get("moves"):
        quin.play_first_legal(game_id)
    assert _mails(sink, "pia2@players.example") == []

    _confirm(sink, "pia2@players.example")
    (told,) = _mails(sink, "pia2@players.example")
    seq = pia.get(f"/api/games/{game_id}/").json()["seq"]
    assert "has started" not in headline(told) and "your turn" in text_of(told).lower()
    (row,) = Outgoing.objects.filter(to="pia2@players.example").exclude(kind="verify")
    assert (row.kind, row.seq) == ("your_turn", seq)  # the position now, not the one it missed first
