"""A player's mail to the server's own address whose From is proven (SPF passing for the
connecting address, or a DKIM signature of the From's domain) counts against the player's own
limits: a flood forging their From from elsewhere, which fills the strangers' pool, no longer
shuts their first commands out. Mail that fails or cannot be checked stays in the strangers' pool.
No network: DNS answers come from fixed records, and mails are signed with a key made here."""

from __future__ import annotations

import base64
import email.message
import email.utils
import smtplib

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from games import dispatch
from mail import authentication, services
from mail.models import Inbound
from tests.api.conftest import register
from tests.mail.players import mail_players
from tests.mail.smtp import ELSEWHERE
from tests.mail.smtp import PLAYERS_SERVER as PLAYERS_HOST

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _key() -> tuple[bytes, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, base64.b64encode(public).decode()


@pytest.fixture
def keys(gateway):
    """players.example publishes SPF for its server and a DKIM key; evil.example a key of its own."""
    players_key, players_public = _key()
    evil_key, evil_public = _key()
    before = authentication.use_resolver(authentication.FixedRecords({
        ("players.example", "TXT"): [f"v=spf1 ip4:{PLAYERS_HOST} -all"],
        ("mail._domainkey.players.example", "TXT"): [f"v=DKIM1; k=rsa; p={players_public}"],
        ("mail._domainkey.evil.example", "TXT"): [f"v=DKIM1; k=rsa; p={evil_public}"],
    }))
    yield {"players.example": players_key, "evil.example": evil_key}
    authentication.use_resolver(before)


def _mail(sender: str, to: str, line: str) -> bytes:
    message = email.message.EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, line
    message["Date"] = email.utils.formatdate()
    message["Message-ID"] = email.utils.make_msgid(domain="players.example")
    message.set_content(line)
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


def _signed(raw: bytes, domain: str, key: bytes) -> bytes:
    return dkim.sign(raw, b"mail", domain.encode(), key, include_headers=[b"from", b"to", b"subject", b"date", b"message-id"]) + raw


def _send(port: int, raw: bytes, *, envelope: str, to: str, source: str) -> int:
    """One mail by SMTP from `source`; the code it got (at RCPT or at DATA)."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30, source_address=(source, 0)) as client:
        try:
            client.sendmail(envelope, [to], raw)
        except smtplib.SMTPRecipientsRefused as refused:
            return refused.recipients[to][0]
        except smtplib.SMTPDataError as refused:
            return refused.smtp_code
    return 250


def _forgeries(port: int, sender: str, count: int) -> list[int]:
    return [_send(port, _mail(sender, services.server_address(), "games"), envelope=sender,
                  to=services.server_address(), source=ELSEWHERE) for _ in range(count)]


def _user(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


def test_forgeries_from_elsewhere_fill_the_strangers_pool_and_the_players_spf_passing_command_is_his(
        sink, gateway, keys, settings, monkeypatch):
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 5
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args)))
    mail_players("dana")
    assert _forgeries(gateway, "dana@players.example", 6) == [250] * 5 + [451]  # SPF fails: strangers' pool
    assert set(Inbound.objects.values_list("sender_proven", flat=True)) == {""}
    # Dana's own first command, from her provider's server: SPF passes, her own limit, read at once.
    code = _send(gateway, _mail("dana@players.example", services.server_address(), "games"),
                 envelope="dana@players.example", to=services.server_address(), source=PLAYERS_HOST)
    assert code == 250
    hers = Inbound.objects.get(sender_proven="spf")
    assert hers.user_id == _user("dana").pk and (services.HANDLE_INBOUND, (hers.pk,)) in sent
    assert services.inbound_handle(inbound_id=hers.pk) == "games"
    # Her own limit is her own: five more pass, the next is refused for her account, not as a stranger.
    codes = [_send(gateway, _mail("dana@players.example", services.server_address(), "games"),
                   envelope="dana@players.example", to=services.server_address(), source=PLAYERS_HOST)
             for _ in range(5)]
    assert codes == [250] * 4 + [451]


def test_a_dkim_signature_of_the_froms_domain_proves_it_from_anywhere_and_nothing_else_does(
        sink, gateway, keys, settings, monkeypatch):
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 3
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    mail_players("dora")
    server = services.server_address()
    assert _forgeries(gateway, "dora@players.example", 4) == [250] * 3 + [451]

    def send(raw: bytes) -> int:  # from elsewhere (a forwarder, say): SPF fails, only DKIM can prove it
        return _send(gateway, raw, envelope="dora@players.example", to=server, source=ELSEWHERE)

    signed = _signed(_mail("dora@players.example", server, "games"), "players.example", keys["players.example"])
    assert send(signed) == 250
    assert Inbound.objects.get(sender_proven="dkim").user_id == _user("dora").pk
    tampered = signed.replace(b"\r\n\r\ngames", b"\r\n\r\nresign 1")
    assert send(tampered) == 451  # the body changed after signing: no proof, the strangers' pool is full
    foreign = _signed(_mail("dora@players.example", server, "games"), "evil.example", keys["evil.example"])
    assert send(foreign) == 451  # a valid signature, of another domain: not aligned with the From
    assert send(_mail("dora@players.example", server, "games")) == 451  # unsigned
    assert Inbound.objects.filter(sender_proven="dkim").count() == 1


def test_spf_for_the_envelope_proves_only_a_from_of_its_own_domain(sink, gateway, keys, settings, monkeypatch):
    """SPF passes for the envelope's domain: a From of another domain in that mail is a stranger's."""
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 50
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    mail_players("dina")
    register("olga", email="olga@elsewhere.example")  # an account at another domain
    raw = _mail("olga@elsewhere.example", services.server_address(), "games")
    assert _send(gateway, raw, envelope="dina@players.example", to=services.server_address(), source=PLAYERS_HOST) == 250
    row = Inbound.objects.get(sender="olga@elsewhere.example")
    assert row.sender_proven == "" and row.user_id is None


def test_the_checks_fail_closed_on_hostile_input():
    """Records or mails built to break the checks give no proof, never an exception."""
    authentication.use_resolver(authentication.FixedRecords({
        ("loop.example", "TXT"): ["v=spf1 include:loop.example -all"],
        ("bad._domainkey.x.example", "TXT"): ["v=DKIM1; k=rsa; p=!!!notbase64"],
    }))
    try:
        assert authentication.spf_result("192.0.2.1", "a@loop.example", "h") in ("permerror", "temperror")
        assert authentication.spf_result("not an ip", "a@x.example", "h") != "pass"
        assert authentication.dkim_domains(b"DKIM-Signature: v=1; a=rsa-sha256; d=x.example; s=bad; b=AAAA; bh=AAAA; h=from\r\nFrom: a@x.example\r\n\r\nhi\r\n") == []
        assert authentication.dkim_domains(b"\xff" * 1000) == []
        deep = b"From: a@x.example\r\nFrom: b@y.example\r\n\r\nhi\r\n"
        assert authentication.verdict(deep, ip="192.0.2.1", envelope_sender="a@x.example", helo="h").address == ""
    finally:
        authentication.use_resolver(authentication.FixedRecords({}))


def test_a_forged_from_cannot_resign_a_players_game_or_change_anything_by_the_servers_address(
        sink, gateway, settings, monkeypatch):
    """Anyone can write dave's From: a command that changes something, in mail to the server's
    address that nothing proves, is not done; the answer goes to dave's own address and tells him
    to send it to his command address. Commands that only read are answered as before; the same
    command from his provider's server (SPF passes) is done."""
    from tests.mail.players import mail_game
    from tests.mail.smtp import send_reply

    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    dave, erin = mail_players("dave", "erin")
    game_id = mail_game(dave, erin, "toy_race")
    server = services.server_address()
    for line in (f"resign {game_id}", f"draw {game_id}", "new toy_race", "language nl"):
        send_reply(gateway, "dave@players.example", server, line, subject=line, source=ELSEWHERE)
        forged = Inbound.objects.filter(recipient=server).latest("pk")
        assert forged.sender_proven == ""
        assert services.inbound_handle(inbound_id=forged.pk) == "unproven_sender"
    from games import selectors
    from mail.models import Outgoing

    assert selectors.game_get(game_id=game_id).status == "active"
    assert dave.get("/api/games/?mine=1").json()["count"] == 1  # no game opened in his name
    answer = Outgoing.objects.filter(user=_user("dave"), kind=services.ANSWER).latest("pk")
    own = services.command_address(_user("dave").pk)
    assert answer.to == "dave@players.example" and answer.reply_to == own and own in answer.text
    send_reply(gateway, "dave@players.example", server, "games", subject="games", source=ELSEWHERE)
    assert services.inbound_handle(inbound_id=Inbound.objects.filter(recipient=server).latest("pk").pk) == "games"
    send_reply(gateway, "dave@players.example", server, f"resign {game_id}", subject="resign")  # his provider's server
    mine = Inbound.objects.filter(recipient=server).latest("pk")
    assert mine.sender_proven == "spf" and services.inbound_handle(inbound_id=mine.pk) == "resigned"
    assert selectors.game_get(game_id=game_id).status == "finished"


def _with_results(header: str, sender: str = "dave@players.example") -> bytes:
    return f"Authentication-Results: {header}\r\n".encode() + _mail(sender, "scrapyard@localhost", "resign 1")


def test_a_trusted_mtas_authentication_results_prove_a_from_and_nothing_else_does():
    trusted = "mx.provider.example"
    assert authentication.trusted_verdict(_with_results(f"{trusted}; dkim=pass header.d=players.example header.s=k"),
                                          trusted).how == "dkim"
    assert authentication.trusted_verdict(_with_results(f"{trusted}; spf=pass (ok) smtp.mailfrom=x@players.example"),
                                          trusted).how == "spf"
    assert authentication.trusted_verdict(_with_results(f"{trusted}; dmarc=pass header.from=players.example"),
                                          trusted).address == "dave@players.example"
    refused = [
        _with_results(f"{trusted}; dkim=fail header.d=players.example"),  # not a pass
        _with_results(f"{trusted}; dkim=pass header.d=evil.example"),  # not aligned with the From
        _with_results("mx.evil.example; dkim=pass header.d=players.example"),  # another id on top
        _with_results(f"{trusted}.evil; dkim=pass header.d=players.example"),
        _with_results(f"{trusted}; dkim=pass header.d=example"),  # a bare top-level domain
        _with_results(f"{trusted}; " + "(" * 5000 + "dkim=pass header.d=players.example"),  # built to be slow
    ]
    assert [authentication.trusted_verdict(raw, trusted).address for raw in refused] == [""] * len(refused)
    below = _mail("dave@players.example", "scrapyard@localhost", "x")  # no header at all
    assert authentication.trusted_verdict(below, trusted).address == ""


def test_a_providers_webhook_mail_is_proven_by_its_trusted_header(settings, monkeypatch):
    from anymail.inbound import AnymailInboundMessage
    from anymail.signals import AnymailInboundEvent

    from mail import receivers

    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: None)
    settings.SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID = "mx.provider.example"
    mail_players("dave")
    server = services.server_address()
    for header in ("mx.provider.example; dkim=pass header.d=players.example", "mx.evil.example; dkim=pass header.d=players.example"):
        raw = f"Authentication-Results: {header}\r\n".encode() + _mail("dave@players.example", server, "games")
        event = AnymailInboundEvent(event_type="inbound", message=AnymailInboundMessage.parse_raw_mime_bytes(raw))
        event.message.envelope_recipient = server
        receivers.anymail_inbound(sender=None, event=event, esp_name="Postmark")
    rows = list(Inbound.objects.order_by("pk").values_list("sender_proven", "user_id"))
    assert rows == [("dkim", _user("dave").pk), ("", None)]


def test_a_webhook_mail_refused_for_good_is_dropped_not_an_error(settings, monkeypatch):
    """A provider calls again on an error: a mail refused for good (5xx: thousands of parts) is
    dropped with a log line, and the webhook answers as for any mail."""
    from anymail.inbound import AnymailInboundMessage
    from anymail.signals import AnymailInboundEvent

    from mail import receivers

    server = services.server_address()
    parts = "".join("--B\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(500))
    raw = (f"From: dave@players.example\r\nTo: {server}\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
           f'Content-Type: multipart/mixed; boundary="B"\r\n\r\n{parts}--B--\r\n').encode()
    event = AnymailInboundEvent(event_type="inbound", message=AnymailInboundMessage.parse_raw_mime_bytes(raw))
    receivers.anymail_inbound(sender=None, event=event, esp_name="Postmark")
    assert not Inbound.objects.exists()
