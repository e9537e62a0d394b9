"""Floods of mail without a reply token (a forged From, made-up senders) are limited apart from
the mail that carries a player's own reply address: they neither lock the real owner out nor
queue ahead of a known player's move."""

from __future__ import annotations

import email.message
import email.utils
import smtplib

import pytest

from games import dispatch, selectors
from mail import services
from mail.models import Inbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import send_reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _flood(port: int, senders: list[str], to: str, line: str = "games") -> list[int]:
    """One SMTP session sending a mail per sender; the code RCPT got for each."""
    codes = []
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        for sender in senders:
            message = email.message.EmailMessage()
            message["From"], message["To"], message["Subject"] = sender, to, line
            message["Message-ID"] = email.utils.make_msgid(domain="flood.example")
            message.set_content(line)
            try:
                client.send_message(message, from_addr=sender, to_addrs=[to])
                codes.append(250)
            except smtplib.SMTPRecipientsRefused as refused:
                codes.append(refused.recipients[to][0])
                client.rset()
    return codes


def _user(player):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=player.username)


def test_a_forged_flood_from_a_players_address_does_not_lock_the_player_out(sink, gateway, settings, monkeypatch):
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 120
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args)))
    dave, erin = mail_players("dave", "erin")
    game_id = mail_game(dave, erin, "toy_race")
    codes = _flood(gateway, ["dave@players.example"] * 121, services.server_address())  # 120 forged, in ten minutes
    assert codes[:120] == [250] * 120 and codes[120] == 451  # the claimed address's untokened share is spent
    game = selectors.game_get(game_id=game_id)
    address = services.address_of(user=_user(dave), game_id=game_id)
    line = f"1 #{game.seq}" if 0 in game.to_act else "board"  # a move if it is dave's turn
    send_reply(gateway, "dave@players.example", address, line)  # to his own reply address, with its token: no 451
    reply = Inbound.objects.filter(recipient=address).get()
    assert (services.HANDLE_INBOUND, (reply.pk,)) in sent  # read at once, not left for the sweep
    assert services.inbound_handle(inbound_id=reply.pk) == ("played" if 0 in game.to_act else "board")


def test_made_up_senders_never_queue_ahead_of_a_players_move(sink, gateway, settings, monkeypatch):
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args)))
    dave, erin = mail_players("dan", "eve")
    game_id = mail_game(dave, erin, "toy_race")
    sent.clear()
    codes = _flood(gateway, [f"nobody{n}@made-up{n % 37}.example" for n in range(500)], services.server_address())
    assert codes.count(250) == 500  # each a first mail from its sender: stored, none lost
    game = selectors.game_get(game_id=game_id)
    player = (dave, erin)[game.to_act[0]]
    address = services.address_of(user=_user(player), game_id=game_id)
    send_reply(gateway, f"{player.username}@players.example", address, f"1 #{game.seq}")
    reply = Inbound.objects.get(recipient=address)
    order = [args[0] for name, args in sent if name == services.HANDLE_INBOUND]
    ahead = order.index(reply.pk)
    assert ahead <= settings.SCRAPYARD_MAIL_UNTOKENED_BURST + 1, f"{ahead} flood mails are read before the move"
    # The flood is read a few a beat by the sweep, never all at once.
    sent.clear()
    services.inbound_unread_handle()
    assert len(sent) == settings.SCRAPYARD_MAIL_UNTOKENED_PER_BEAT
    assert services.inbound_handle(inbound_id=reply.pk) == "played"
