"""Floods of mail without a reply token (a forged From, made-up senders) are limited apart from
the mail that carries a player's own reply address: they neither lock the real owner out nor
queue ahead of a known player's move."""

from __future__ import annotations

import datetime as dt
import email.message
import email.utils
import smtplib
import threading

import pytest

from games import dispatch, selectors
from mail import services
from mail.models import Inbound, Outgoing
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import ELSEWHERE, send_reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _flood(port: int, senders: list[str], to: str, line: str = "games") -> list[int]:
    """One SMTP session, from a forger's server (not the players'), sending a mail per sender;
    the code RCPT (or DATA) got for each."""
    codes = []
    with smtplib.SMTP("127.0.0.1", port, timeout=60, source_address=(ELSEWHERE, 0)) as client:
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
            except smtplib.SMTPDataError as refused:  # an account's address: refused after DATA, unless proven
                codes.append(refused.smtp_code)
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
    settings.SCRAPYARD_MAIL_PEER_LIMIT = 10**6  # a flood from many servers (here all on loopback)
    # Every flood mail taken, to see the order they are read in (the answers they would be owed
    # stop them at 60 with a 451: test_a_newcomer_writing_when_the_sign_up_answers_are_spent...).
    settings.SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR = 10**6
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


def test_a_players_reply_never_waits_behind_strangers_mail_at_the_gateway(sink, gateway, settings, monkeypatch):
    """The gateway's database calls for strangers' mail run apart from players' (they shared one
    thread: a reply waited behind the whole flood's calls). Here every strangers' call is held
    at RCPT; a player's reply to its own address is taken meanwhile."""
    settings.SCRAPYARD_MAIL_PEER_LIMIT = 10**6
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    dave, erin = mail_players("dora", "emil")
    game_id = mail_game(dave, erin, "toy_race")
    address = services.address_of(user=_user(dave), game_id=game_id)
    held, release = threading.Semaphore(0), threading.Event()
    allowed = services.sender_allowed

    def slow_sender_allowed(sender, at=None):  # a flood's database calls, as slow as you like
        held.release()
        release.wait(60)
        return allowed(sender, at)

    monkeypatch.setattr(services, "sender_allowed", slow_sender_allowed)
    strangers = [threading.Thread(target=_flood, args=(gateway, [f"x{n}@made-up.example"], services.server_address()))
                 for n in range(4)]
    for thread in strangers:
        thread.start()
    try:
        assert held.acquire(timeout=30)  # a stranger's call is under way, and holds its thread
        send_reply(gateway, "dora@players.example", address, "board")  # answered 250 meanwhile
        assert Inbound.objects.filter(recipient=address).count() == 1
        assert not Inbound.objects.exclude(recipient=address).exists()  # the strangers' still held
    finally:
        release.set()
        for thread in strangers:
            thread.join(60)
    assert Inbound.objects.exclude(recipient=address).count() == 4


def test_commands_to_the_accounts_own_address_pass_a_flood_forging_its_from(sink, gateway, settings, monkeypatch):
    """A flood forging dave's From spends the untokened share of his address at the server's
    address, and the answers an hour his address may be sent on a stranger's say-so; his commands
    to his own command address (the Reply-To of every answer to a command, which only his mailbox
    saw) are taken, read as his at once, and answered."""
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 20
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args)))
    dave, erin = mail_players("davy", "erna")
    mail_game(dave, erin, "toy_race")
    codes = _flood(gateway, ["davy@players.example"] * 21, services.server_address())
    assert codes[20] == 451  # the forged From's share is spent: the server's address says later
    settings.SCRAPYARD_MAIL_ANSWER_LIMIT = 3
    for forged in Inbound.objects.filter(recipient=services.server_address()).order_by("pk"):
        services.inbound_handle(inbound_id=forged.pk)  # read as davy's: answered, up to the limit
    assert Outgoing.objects.filter(user=_user(dave), kind=services.ANSWER).count() == 3  # the forgeries spent it
    own = services.command_address(_user(dave).pk)
    send_reply(gateway, "davy@players.example", own, "games")
    command = Inbound.objects.get(recipient=own)
    assert command.user_id == _user(dave).pk and (services.HANDLE_INBOUND, (command.pk,)) in sent
    assert services.inbound_handle(inbound_id=command.pk) == "games"
    answer = Outgoing.objects.filter(user=_user(dave), kind=services.ANSWER).latest("pk")
    assert answer.reply_to == own and own in answer.text  # the way back to the same address, for the next command
    forged = services.command_address(_user(erin).pk)
    send_reply(gateway, "davy@players.example", forged, "games")  # another's address: not his
    assert services.inbound_handle(inbound_id=Inbound.objects.get(recipient=forged).pk) == "wrong_sender"


def test_strangers_mail_is_limited_per_connecting_address_and_players_replies_are_not(sink, gateway, settings, monkeypatch):
    settings.SCRAPYARD_MAIL_PEER_LIMIT = 5
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    dave, erin = mail_players("dirk", "elsa")
    game_id = mail_game(dave, erin, "toy_race")
    codes = _flood(gateway, [f"someone{n}@made-up{n}.example" for n in range(7)], services.server_address())
    assert codes == [250] * 5 + [451] * 2  # made-up senders, one mail each: the address they come from counts
    address = services.address_of(user=_user(dave), game_id=game_id)
    send_reply(gateway, "dirk@players.example", address, "board", source=ELSEWHERE)  # from the same address: a reply passes
    assert Inbound.objects.filter(recipient=address).count() == 1


def test_a_newcomer_writing_when_the_sign_up_answers_are_spent_is_told_to_try_again_and_is_answered(
        sink, gateway, settings, monkeypatch):
    """Made-up senders can spend the hour's answers to newcomers: a real newcomer's mail taken
    then would be read and never answered, and its server, told 250, would never send it again.
    It is refused for now (451) instead, and answered when its server tries again."""
    from games import time_controls

    settings.SCRAPYARD_MAIL_PEER_LIMIT = 10**6
    settings.SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR = 5
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)  # read below, by hand
    mail_players("dolf")
    flood = [f"nobody{n}@made-up{n}.example" for n in range(5)]
    assert _flood(gateway, flood, services.server_address(), "help") == [250] * 5  # the answers they are owed fill the hour
    assert _flood(gateway, [flood[0]], services.server_address(), "register me") == [250]  # already owed its one answer
    assert _flood(gateway, ["dolf@players.example"], services.server_address()) == [250]  # a player's command
    newt = "newt@players.example"
    assert _flood(gateway, [newt], services.server_address(), "register newt") == [451]
    assert not Inbound.objects.filter(sender=newt).exists()
    for waiting in Inbound.objects.order_by("pk"):
        services.inbound_handle(inbound_id=waiting.pk)
    assert Inbound.objects.filter(code="signup_answered").count() == 5 and not sink.to(newt)
    assert _flood(gateway, [newt], services.server_address(), "register newt") == [451]  # within the hour: still spent
    later = time_controls.now() + dt.timedelta(minutes=61)
    monkeypatch.setattr(time_controls, "now", lambda: later)
    assert _flood(gateway, [newt], services.server_address(), "register newt") == [250]  # its server's next try
    services.inbound_handle(inbound_id=Inbound.objects.get(sender=newt).pk)
    (invitation,) = sink.to(newt)
    assert str(invitation["Reply-To"]).startswith("join+newt.")
