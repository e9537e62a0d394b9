"""A whole game between two addresses that never touch the web or the API, over real SMTP: each
signs up by mail, one opens a game and the other joins it by mail, a turn of several actions goes
in one reply, a chat line reaches the other player's next mail, a resignation ends the game, and
every mail of the game reads as one thread per player in a mail program."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from games import selectors
from games.models import Event
from tests.mail.smtp import headline, listed_moves, send_reply, text_of, thread_key

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
SERVER = "scrapyard@localhost"


@pytest.fixture
def confirming(settings):
    settings.SCRAPYARD_MAIL_VERIFY = True


def _signed_up(sink, gateway, name: str) -> None:
    address = f"{name}@players.example"
    send_reply(gateway, address, SERVER, f"register {name}", subject="register")
    invitation = sink.to(address)[-1]
    send_reply(gateway, address, invitation["Reply-To"], "yes", answering=invitation)
    assert "your account is made" in text_of(sink.to(address)[-1])


def _asking(sink, name: str, game_id: int):
    return [mail for mail in sink.to(f"{name}@players.example")
            if f"Scrapyard game {game_id}:" in str(mail["Subject"]) and listed_moves(mail)][-1]


def test_a_whole_game_by_mail_alone_from_sign_up_to_game_over(sink, gateway, eager_tasks, confirming):
    _signed_up(sink, gateway, "olga")
    _signed_up(sink, gateway, "piet")
    send_reply(gateway, "olga@players.example", SERVER, "new terrafex", subject="new terrafex")
    game_id = int(re.search(r"join (\d+)", text_of(sink.to("olga@players.example")[-1]))[1])
    send_reply(gateway, "piet@players.example", SERVER, f"join {game_id}", subject="join")
    game = selectors.game_get(game_id=game_id)
    assert game.status == "active"
    names = {0: "olga", 1: "piet"}
    mover, other = names[game.to_act[0]], names[1 - game.to_act[0]]

    # A whole turn in one reply: three actions, three events, one answer.
    start = _asking(sink, mover, game_id)
    assert "has started" in headline(start)
    before = game.seq
    sent = {mover: [], other: []}
    sent[mover].append(send_reply(gateway, f"{mover}@players.example", start["Reply-To"], "1; 1\n1", answering=start))
    assert Event.objects.filter(game_id=game_id, kind="move", seq__gt=before).count() == 3

    # The other player places the fire and says something in the same reply.
    asked = _asking(sink, other, game_id)
    sent[other].append(send_reply(gateway, f"{other}@players.example", asked["Reply-To"], "1\nsay Well played, that fire hurts.",
                                  answering=asked))
    following = [mail for mail in sink.to(f"{mover}@players.example") if f"Scrapyard game {game_id}:" in str(mail["Subject"])][-1]
    assert f"  {other}: Well played, that fire hurts." in text_of(following)

    # The mover gives up: the game is over, and both are told.
    last = [mail for mail in sink.to(f"{mover}@players.example") if f"Scrapyard game {game_id}:" in str(mail["Subject"])][-1]
    sent[mover].append(send_reply(gateway, f"{mover}@players.example", last["Reply-To"], "resign", answering=last))
    assert selectors.game_get(game_id=game_id).status == "finished"
    for name in (mover, other):
        mails = [mail for mail in sink.to(f"{name}@players.example") if f"Scrapyard game {game_id}:" in str(mail["Subject"])]
        assert any(" is over: " in headline(mail) for mail in mails), [headline(mail) for mail in mails]
        # One thread, as a mail program files it, each mail following one the player has.
        assert len({thread_key(mail) for mail in mails}) == 1
        known = {str(mail["Message-ID"]) for mail in mails + sent[name]}
        for mail in mails[1:]:
            assert str(mail["In-Reply-To"]) in known and str(mail["References"]).split()[-1] == str(mail["In-Reply-To"])
    # Nobody used the web or the API: both accounts were made by mail, with no password.
    assert not any(user.has_usable_password() for user in get_user_model().objects.all())
