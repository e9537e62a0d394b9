"""Play by email as an attacker tries it (issue 33), over real SMTP: replayed mails, repeated
RCPTs, rotated senders, unconfirmed addresses, forged provider webhooks, CR/LF headers, a database
error mid-transaction; and the server's own address taking commands."""

from __future__ import annotations

import base64
import email.message
import email.policy
import email.utils
import re
import smtplib

import pytest
from anymail import urls as anymail_urls
from django.db import OperationalError
from django.test import Client

from games import selectors, time_controls
from mail import services
from mail.models import Inbound, Outgoing, RawMessage
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import ELSEWHERE, guard_of, headline, send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _asking(sink, name: str):
    return [m for m in sink.to(f"{name}@players.example") if "legal moves" in text_of(m)][-1]


def _mail(sender: str, to: str, body: str, *, subject: str = "Re: your move", message_id: str | None = "",
          in_reply_to: str = "") -> bytes:
    message = email.message.EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    if message_id is not None:
        message["Message-ID"] = message_id or email.utils.make_msgid(domain="players.example")
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    message.set_content(body)
    return message.as_bytes(policy=email.policy.SMTP)  # CRLF, as on the wire


def _transaction(port: int, sender: str, recipients: list[str], raw: bytes) -> tuple[list[int], tuple[int, bytes]]:
    """One SMTP transaction by hand: the answers to each RCPT and to DATA."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        assert client.mail(sender)[0] == 250
        codes = [client.rcpt(recipient)[0] for recipient in recipients]
        answer = client.data(raw) if 250 in codes else (0, b"")
    return codes, answer


# --- 1. a mail sent twice is played once --------------------------------------------------------


def test_the_same_mail_sent_twice_is_kept_and_played_once(sink, gateway, eager_tasks):
    alice, bob = mail_players("ann", "ben")
    game_id = mail_game(alice, bob)
    asking = _asking(sink, "ann")
    raw = _mail("ann@players.example", asking["Reply-To"], "1", in_reply_to=asking["Message-ID"])
    for _ in range(2):  # an MTA that lost our 250 sends the very same mail again
        codes, answer = _transaction(gateway, "ann@players.example", [asking["Reply-To"]], raw)
        assert codes == [250] and answer[0] == 250
    assert selectors.game_get(game_id=game_id).seq == guard_of(asking) + 1
    assert Inbound.objects.count() == 1 and RawMessage.objects.count() == 1


def test_a_mail_without_message_id_is_known_again_by_its_sender_and_body(sink, gateway, eager_tasks):
    alice, bob = mail_players("cat", "dan")
    game_id = mail_game(alice, bob)
    asking = _asking(sink, "cat")
    raw = _mail("cat@players.example", asking["Reply-To"], f"1 #{guard_of(asking)}", message_id=None)
    for _ in range(2):
        _transaction(gateway, "cat@players.example", [asking["Reply-To"]], raw)
    assert Inbound.objects.count() == 1
    assert selectors.game_get(game_id=game_id).seq == guard_of(asking) + 1


def test_a_reply_with_no_guard_and_answering_no_mail_of_ours_is_refused_with_the_board(sink, gateway, eager_tasks):
    alice, bob = mail_players("eve", "fay")
    game_id = mail_game(alice, bob)
    asking = _asking(sink, "eve")
    seq = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, "eve@players.example", asking["Reply-To"], "1")  # no #seq, no In-Reply-To
    assert selectors.game_get(game_id=game_id).seq == seq
    assert Inbound.objects.get().code == "no_guard"
    answer = sink.to("eve@players.example")[-1]
    assert "not played" in text_of(answer) and "legal moves" in text_of(answer)
    # A reply to that answer is played in the position the answer showed.
    send_reply(gateway, "eve@players.example", answer["Reply-To"], "1", answering=answer)
    assert selectors.game_get(game_id=game_id).seq == seq + 1


# --- 2. bytes once, few recipients, bytes a day -------------------------------------------------


def test_forty_identical_rcpts_store_a_megabyte_once(sink, gateway, eager_tasks):
    alice, bob = mail_players("gus", "hub")
    mail_game(alice, bob)
    asking = _asking(sink, "gus")
    raw = _mail("gus@players.example", asking["Reply-To"], "board\n" + "x" * 76 + "\n" * 1 + ("y" * 76 + "\n") * 13_000)
    assert len(raw) > 1_000_000
    codes, answer = _transaction(gateway, "gus@players.example", [asking["Reply-To"]] * 40, raw)
    assert set(codes) == {250} and answer[0] == 250, answer
    assert RawMessage.objects.count() == 1 and Inbound.objects.count() == 1


def test_more_than_a_few_recipients_are_refused(sink, gateway, settings):
    players = mail_players("ida", "jon", "kim", "lou")
    first = mail_game(players[0], players[1])
    second = mail_game(players[2], players[3])
    addresses = [services.address_of(user=selectors_user(p), game_id=g) for p, g in
                 ((players[0], first), (players[1], first), (players[2], second), (players[3], second))]
    settings.SCRAPYARD_MAIL_MAX_RECIPIENTS = 3
    codes, _ = _transaction(gateway, "x@players.example", addresses, _mail("x@players.example", addresses[0], "board"))
    assert codes == [250, 250, 250, 452]


def test_bytes_a_day_are_limited_per_sending_address_and_per_account(sink, gateway, settings):
    alice, bob = mail_players("max", "ned")
    game_id = mail_game(alice, bob)
    address = services.address_of(user=selectors_user(alice), game_id=game_id)
    settings.SCRAPYARD_MAIL_DAILY_BYTES = 40_000
    big = "z" * 70 + "\n"
    assert _transaction(gateway, "max@players.example", [address], _mail("max@players.example", address, big * 400))[1][0] == 250
    refused = _transaction(gateway, "max@players.example", [address], _mail("max@players.example", address, big * 400))[1]
    assert refused[0] == 452 and b"today" in refused[1]
    # Another From to the same account: the account's own limit holds.
    other = _transaction(gateway, "someone@else.example", [address], _mail("someone@else.example", address, big * 400))[1]
    assert other[0] == 452 and b"account" in other[1]


def selectors_user(player):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=player.username)


# --- 3. limits whatever the sender claims; confirmed addresses only -----------------------------


def test_rotating_the_envelope_sender_does_not_beat_the_limit(sink, gateway, settings, eager_tasks):
    alice, bob = mail_players("oda", "pia")
    game_id = mail_game(alice, bob)
    address = services.address_of(user=selectors_user(alice), game_id=game_id)
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 3
    answers = [_transaction(gateway, f"rotated{n}@evil.example", [address],
                            _mail(f"rotated{n}@evil.example", address, "board"))[0][0] for n in range(5)]
    assert answers == [250, 250, 250, 451, 451]


def test_no_mail_goes_to_an_address_before_its_owner_confirms_it(sink, gateway, settings, eager_tasks):
    settings.SCRAPYARD_MAIL_VERIFY = True
    forged, bob = mail_players("victim", "rob")
    for _ in range(3):
        mail_game(forged, bob)
    to_victim = sink.to("victim@players.example")
    assert len(to_victim) == 1 and "confirm" in to_victim[0]["Subject"]  # one request, nothing else
    link = re.search(r"https?://\S+/mail/v/\S+/", text_of(to_victim[0]))[0]
    assert max(len(line) for line in text_of(to_victim[0]).splitlines()) <= 78
    path = link.split("://", 1)[1].split("/", 1)[1]
    assert Client().get("/" + path).status_code == 200 and not services.address_verified(selectors_user(forged).pk, "victim@players.example")
    assert Client().post("/" + path).status_code == 200
    assert Client().post("/mail/v/1-0000000000000000/").status_code == 400
    mail_game(forged, bob)
    assert any("has started" in headline(m) for m in sink.to("victim@players.example"))


def test_answers_are_limited_per_account_an_hour(sink, gateway, settings, eager_tasks):
    alice, bob = mail_players("sid", "tom")
    game_id = mail_game(alice, bob)
    address = services.address_of(user=selectors_user(alice), game_id=game_id)
    settings.SCRAPYARD_MAIL_ANSWER_LIMIT = 2
    before = len(sink.to("sid@players.example"))
    for _ in range(5):
        send_reply(gateway, "sid@players.example", address, "board")
    assert Inbound.objects.filter(code="board").count() == 5
    assert len(sink.to("sid@players.example")) - before == 2


# --- 4. the configured provider only, behind its secret ------------------------------------------


def test_provider_webhooks_only_the_configured_one_and_only_with_its_secret(settings, db):
    names = {pattern.pattern.describe().split("'")[1].rstrip("$").lstrip("^") for pattern in anymail_urls.urlpatterns}
    bounce = {"RecordType": "Bounce", "Type": "HardBounce", "Email": "ann@players.example", "ID": 1}
    settings.SCRAPYARD_MAIL_PROVIDER = ""
    for route in names:
        url = "/mail/inbound/" + route.replace("(_mime)?", "")
        assert Client().post(url, bounce, content_type="application/json").status_code == 404, url
    settings.SCRAPYARD_MAIL_PROVIDER = "postmark"
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    assert Client().post("/mail/inbound/postmark/tracking/", bounce, content_type="application/json").status_code == 403
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:words"}
    assert Client().post("/mail/inbound/postmark/tracking/", bounce, content_type="application/json").status_code == 400
    for route in names - {"postmark/inbound/", "postmark/tracking/"}:
        url = "/mail/inbound/" + route.replace("(_mime)?", "")
        assert Client().post(url, bounce, content_type="application/json").status_code == 404, url
    auth = "Basic " + base64.b64encode(b"hook:words").decode()
    assert Client().post("/mail/inbound/postmark/tracking/", bounce, content_type="application/json",
                         HTTP_AUTHORIZATION=auth).status_code == 200


# --- 5. bad headers, database trouble, a final state ------------------------------------------


def test_a_subject_that_decodes_to_cr_lf_is_cleaned_and_answered_once(sink, gateway, eager_tasks):
    alice, bob = mail_players("uma", "val")
    game_id = mail_game(alice, bob)
    address = services.address_of(user=selectors_user(alice), game_id=game_id)
    raw = (f"From: =?utf-8?q?Uma=0D=0ABcc=3A_x=40evil=2Eexample?= <uma@players.example>\r\nTo: {address}\r\n"
           "Subject: =?utf-8?q?Re=3A_move=0D=0ABcc=3A_x=40evil=2Eexample?=\r\n"
           "Message-ID: =?utf-8?q?=3Cid=0D=0AX-Evil=3A_1=3E?=\r\n\r\nboard\r\n").encode()
    codes, answer = _transaction(gateway, "uma@players.example", [address], raw)
    assert codes == [250] and answer[0] == 250
    inbound = Inbound.objects.get()
    assert inbound.code == "board" and "\n" not in inbound.subject and "\r" not in inbound.subject
    sent = Outgoing.objects.filter(kind="answer").get()
    assert sent.status == "sent" and sent.retries == 0
    mail = sink.to("uma@players.example")[-1]
    assert "\n" not in mail["Subject"] and mail["Bcc"] is None and mail["X-Evil"] is None


def test_a_database_error_at_rcpt_is_a_451_naming_nothing(sink, gateway, monkeypatch):
    alice, bob = mail_players("wes", "xan")
    game_id = mail_game(alice, bob)
    address = services.address_of(user=selectors_user(alice), game_id=game_id)

    def broken(*args, **kwargs):
        raise OperationalError('connection to server at "10.0.0.5", port 5432 failed: secret-host')

    # The sender is limited at RCPT (by what the recipient proves), no longer at MAIL FROM.
    monkeypatch.setattr(services, "sender_allowed", broken)
    # From a server SPF does not name for the sender's domain: the strangers' limits are asked.
    with smtplib.SMTP("127.0.0.1", gateway, timeout=30, source_address=(ELSEWHERE, 0)) as client:
        client.ehlo()
        assert client.mail("wes@players.example")[0] == 250
        code, text = client.rcpt(services.server_address())
    assert code == 451 and b"10.0.0.5" not in text and b"Operational" not in text
    monkeypatch.undo()
    monkeypatch.setattr(services, "recipient_known", broken)
    with smtplib.SMTP("127.0.0.1", gateway, timeout=30) as client:
        client.ehlo()
        assert client.mail("wes@players.example")[0] == 250
        code, text = client.rcpt(address)
    assert code == 451 and b"secret-host" not in text


def test_a_mail_that_cannot_be_written_fails_once_for_good(sink, db):
    alice, = mail_players("yul")
    user = selectors_user(alice)
    row = Outgoing.objects.create(user=user, key="k", kind="answer", to="yul@players.example\nBcc: x@evil.example",
                                  subject="s", text="t", message_id="<m@localhost>",
                                  next_attempt_at=time_controls.now())
    assert services.outgoing_send(outgoing_id=row.pk) == "failed"
    assert services.outgoing_send(outgoing_id=row.pk) is None  # nothing left to try


# --- 6, 7. the server's own address takes commands ----------------------------------------------


def test_the_from_address_takes_mail_and_answers_help(sink, gateway, eager_tasks):
    mail_players("zed")
    server = services.server_address()
    codes, answer = _transaction(gateway, "zed@players.example", [server], _mail("zed@players.example", server, "help"))
    assert codes == [250] and answer[0] == 250
    text = text_of(sink.to("zed@players.example")[-1])
    for word in ("help", "games", "new scavenge", "join 42", "seek scavenge", "resign 42"):
        assert word in text
    assert max(len(line) for line in text.splitlines()) <= 78
    # A stranger gets one answer a day (how to join: it goes to whoever the From names, who
    # joins only by replying to it), and nothing more that day.
    for _ in range(2):
        _transaction(gateway, "stranger@evil.example", [server], _mail("stranger@evil.example", server, "help"))
    assert len(sink.to("stranger@evil.example")) == 1
    assert list(Inbound.objects.order_by("pk").values_list("code", flat=True))[-2:] == ["signup_answered", "signup_not_answered"]


def _command(sink, gateway, name: str, line: str):
    server = services.server_address()
    send_reply(gateway, f"{name}@players.example", server, line, subject=line)
    return text_of(sink.to(f"{name}@players.example")[-1])


def test_a_whole_game_opened_joined_and_played_by_mail(sink, gateway, eager_tasks):
    mail_players("abe", "bea")
    opened = _command(sink, gateway, "abe", "new toy_race")
    game_id = int(re.search(r"join (\d+)", opened)[1])
    joined = _command(sink, gateway, "bea", f"join {game_id}")
    assert "has started" in joined or "seat 1" in joined
    listed = _command(sink, gateway, "abe", "games")
    assert f"{game_id}  toy_race" in listed and "play+" in listed
    seats = {0: "abe", 1: "bea"}
    for _ in range(400):
        game = selectors.game_get(game_id=game_id)
        if game.status == "finished":
            break
        name = seats[game.to_act[0]]
        asking = _asking(sink, name)
        assert guard_of(asking) == game.seq and f"Reply to: {asking['Reply-To']}" in text_of(asking)
        send_reply(gateway, f"{name}@players.example", asking["Reply-To"], "1", answering=asking)
    assert selectors.game_get(game_id=game_id).status == "finished"
    assert Inbound.objects.filter(code="played").count() >= 2


def test_a_private_game_is_answered_as_an_unknown_one(sink, gateway, eager_tasks):
    owner, _ = mail_players("cy", "di")
    mail_players("eli")
    private = owner.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    said_private = " ".join(_command(sink, gateway, "eli", f"join {private}").split("\n-- ")[0].replace(str(private), "N").split())
    said_unknown = " ".join(_command(sink, gateway, "eli", "join 987654").split("\n-- ")[0].replace("987654", "N").split())
    assert said_private == said_unknown
    assert selectors.game_get(game_id=private).seats.count() == 1


def test_fast_step_clocks_send_no_mail_per_turn(sink, gateway, eager_tasks):
    alice, bob = mail_players("fio", "gil")
    game_id = mail_game(alice, bob, time_control={"type": "step", "seconds": 60})
    assert selectors.game_get(game_id=game_id).status == "active"
    assert not [m for m in sink.to("fio@players.example") if "it is your turn" in headline(m)]
    assert [m for m in sink.to("fio@players.example") if "has started" in headline(m)]


# --- 9. forced moves --------------------------------------------------------------------------


def _forced_stays(user) -> list:
    from games.models import IdempotencyKey

    return list(IdempotencyKey.objects.filter(user=user, key__startswith="forced-").select_related("event"))


def test_forced_moves_are_played_for_those_who_chose_it_as_their_own_move(sink, gateway, eager_tasks):
    alice, bob = mail_players("hoa", "ivo")
    assert bob.client.patch("/api/mail/settings/", {"play_forced": False}, format="json").json()["play_forced"] is False
    assert alice.get("/api/mail/settings/").json()["play_forced"] is True  # on by default for mail
    game_id = mail_game(alice, bob, "scavenge")
    seats = {0: "hoa", 1: "ivo"}
    for _ in range(300):
        game = selectors.game_get(game_id=game_id)
        if game.status == "finished" or _forced_stays(selectors_user(alice)):
            break
        name = seats[game.to_act[0]]
        asking = _asking(sink, name)
        assert guard_of(asking) == game.seq, "a mail asked for a move the server was to play"
        send_reply(gateway, f"{name}@players.example", asking["Reply-To"], "1", answering=asking)
    forced = _forced_stays(selectors_user(alice))
    assert forced, "no forced move came up in the game"
    event = forced[0].event
    assert event.kind == "move" and event.seat == 0 and event.payload["move"]["type"] == "stay"
    assert not _forced_stays(selectors_user(bob))
    # Asked again (a lost message, the sweep): nothing more is played.
    before = selectors.game_get(game_id=game_id).seq
    from games import services as game_services

    assert game_services.forced_move_play(game_id=game_id, seq=event.seq - 1, user=selectors_user(alice)) is None
    assert selectors.game_get(game_id=game_id).seq == before


def _many_parts(sender: str, to: str, parts: int, nested: bool = False) -> bytes:
    head = f"From: {sender}\r\nTo: {to}\r\nSubject: board\r\nMessage-ID: <parts{parts}{nested}@x.example>\r\nMIME-Version: 1.0\r\n"
    if nested:
        opened = "".join(f'Content-Type: multipart/mixed; boundary="b{n}"\r\n\r\n--b{n}\r\n' for n in range(parts))
        closed = "".join(f"\r\n--b{n}--\r\n" for n in reversed(range(parts)))
        return (head + opened + "Content-Type: text/plain\r\n\r\ngames\r\n" + closed).encode()
    return (head + 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n'
            + "--B\r\nContent-Type: text/plain\r\n\r\ngames\r\n" * parts + "--B--\r\n").encode()


@pytest.mark.parametrize("nested", [False, True])
def test_a_mail_of_thousands_of_parts_is_refused_at_data_before_anything_parses_it(sink, gateway, monkeypatch, nested):
    """Python's email parser spends about a millisecond a MIME part (a 3.6 MB mail of 100,000
    parts: 100 s of a gateway thread, then as much in the worker); nested parts also recurse.
    More than SCRAPYARD_MAIL_MAX_PARTS parts is refused for good (554), counted without parsing."""
    monkeypatch.setattr(services, "inbound_handle", lambda **kwargs: pytest.fail("nothing is read"))
    mail_players("pam")
    own = services.command_address(selectors_user(mail_players("pat")[0]).pk)
    raw = _many_parts("pat@players.example", own, 600 if nested else 5000, nested)
    with smtplib.SMTP("127.0.0.1", gateway, timeout=60) as client:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            client.sendmail("pat@players.example", [own], raw)
    assert refused.value.smtp_code == 554 and b"parts" in refused.value.smtp_error
    assert not Inbound.objects.exists() and not RawMessage.objects.exists()
    with smtplib.SMTP("127.0.0.1", gateway, timeout=60) as client:  # a mail of a few parts still passes
        client.sendmail("pat@players.example", [own], _many_parts("pat@players.example", own, 5))
    assert Inbound.objects.count() == 1


def test_a_forged_command_address_is_refused_at_rcpt(sink, gateway):
    """me+<id>-<mac>@: a made-up mac, another account's mac with this id, a mac cut short or
    padded, an id of 900 digits: 550 (or 500, 501 for what is no address), never taken."""
    pam, pat = (selectors_user(player) for player in mail_players("pim", "pia"))
    domain = services.server_address().split("@")[1]
    own, other = services.command_mac(pam.pk), services.command_mac(pat.pk)
    forged = [f"me+{pam.pk}-{'0' * 16}@{domain}", f"me+{pam.pk}-{other}@{domain}", f"me+{pam.pk}-{own[:15]}@{domain}",
              f"me+{pam.pk}-{own}0@{domain}", f"me+{'9' * 900}-{own}@{domain}", f"me+-{own}@{domain}"]
    with smtplib.SMTP("127.0.0.1", gateway, timeout=30) as client:
        client.ehlo()
        client.mail("pim@players.example")
        codes = [client.rcpt(address)[0] for address in forged]
        taken = client.rcpt(f"me+{pam.pk}-{own.upper()}@{domain}")[0]
    assert all(code in (500, 501, 550, 553) for code in codes), codes  # 500: a line too long
    assert taken == 250  # the right mac, whatever its case
