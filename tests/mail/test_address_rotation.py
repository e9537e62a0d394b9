"""Replacing a leaked command address (and with it every game's reply address), over real SMTP:
by mail (`new address`, `nieuw adres`) from proven mail only, on the account page after a
confirmation, and by the API. Mail to an old address runs nothing and gets one short answer,
sent only to the account's own address, naming the new one; the new addresses work."""

from __future__ import annotations

import re
import smtplib

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import selectors
from mail import services
from mail.models import Inbound, SeatAddress
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import ELSEWHERE, send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
SERVER = "scrapyard@localhost"
DAVE = "dave@players.example"


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _flat(message) -> str:
    return " ".join(text_of(message).split())


def _last_code() -> str:
    return Inbound.objects.order_by("pk").last().code


def _old_addresses_answered_to_the_owner_only(sink, gateway, old_command: str, old_game: str, game_id: int) -> None:
    """A forger who knows the old addresses (and writes dave's From, or his own): nothing runs,
    nothing reaches the forger, and dave gets one short answer per old address naming the new one."""
    seq = selectors.game_get(game_id=game_id).seq
    before = len(sink.to(DAVE))
    send_reply(gateway, "mallory@evil.example", old_command, f"resign {game_id}", subject="resign", source=ELSEWHERE)
    assert _last_code() == "address_replaced"
    send_reply(gateway, DAVE, old_command, f"resign {game_id}", subject="resign", source=ELSEWHERE)
    assert _last_code() == "address_replaced"
    assert sink.to("mallory@evil.example") == []
    told = sink.to(DAVE)[before:]
    assert len(told) == 1, [text_of(message) for message in told]  # one answer an hour per old address
    new_command = services.command_address(_user("dave").pk)
    assert new_command != old_command and new_command in text_of(told[0]) and told[0]["Reply-To"] == new_command
    assert "was not read" in _flat(told[0]) and old_command not in text_of(told[0])  # named by its local part only
    # A reply in flight to the game's old address: not played, answered with the game's new address.
    send_reply(gateway, DAVE, old_game, f"1 #{seq}", subject=f"Re: game {game_id}")
    assert _last_code() == "address_replaced"
    answer = sink.to(DAVE)[-1]
    new_game = services.reply_address(_user("dave").pk, game_id, 0)
    assert new_game != old_game and answer["Reply-To"] == new_game and new_game in text_of(answer)
    assert f"The new reply address of game {game_id}" in _flat(answer)
    game = selectors.game_get(game_id=game_id)
    assert (game.status, game.seq) == ("active", seq)  # no command ran, no move was played


def _new_addresses_work(sink, gateway, game_id: int) -> None:
    """The new command address takes commands, its answer lists the game's new reply address, and
    a move to that address is played."""
    user = _user("dave")
    new_command, new_game = services.command_address(user.pk), services.reply_address(user.pk, game_id, 0)
    send_reply(gateway, DAVE, new_command, "games", subject="games", source=ELSEWHERE)
    assert _last_code() == "games"
    listing = sink.to(DAVE)[-1]
    assert listing["Reply-To"] == new_command and new_game in _flat(listing)
    seq = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, DAVE, new_game, f"1 #{seq}", subject=f"Re: game {game_id}")
    assert _last_code() == "played" and selectors.game_get(game_id=game_id).seq > seq


def _begun(sink, gateway):
    dave, erin = mail_players("dave", "erin")
    game_id = mail_game(dave, erin, "toy_race")  # dave is seat 0, to move
    user = _user("dave")
    return dave, erin, game_id, services.command_address(user.pk), services.reply_address(user.pk, game_id, 0)


def test_new_address_by_mail_replaces_the_addresses_and_the_old_ones_are_answered_to_the_owner_only(
        sink, gateway, eager_tasks):
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    sent = len(sink.envelopes())
    send_reply(gateway, DAVE, old_command, "new address", subject="new address", source=ELSEWHERE)
    assert _last_code() == "address_new"
    answer = sink.to(DAVE)[-1]
    new_command = services.command_address(_user("dave").pk)
    assert new_command != old_command and answer["Reply-To"] == new_command
    assert new_command in text_of(answer) and "The reply address of your 1 game was replaced too" in _flat(answer)
    assert [recipients for _, recipients, _ in sink.envelopes()[sent:]] == [[DAVE]]
    _old_addresses_answered_to_the_owner_only(sink, gateway, old_command, old_game, game_id)
    _new_addresses_work(sink, gateway, game_id)
    # The next game mail (erin moves: dave's turn) carries the game's new address.
    before = len(sink.to(DAVE))
    listed = erin.get(f"/api/games/{game_id}/legal-moves/").json()
    assert erin.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    (turn,) = sink.to(DAVE)[before:]
    assert turn["Reply-To"] == services.reply_address(_user("dave").pk, game_id, 0) != old_game


def test_nieuw_adres_from_a_proven_from_replaces_the_addresses_in_dutch(sink, gateway, eager_tasks):
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    assert dave.client.patch("/api/accounts/me/", {"language": "nl"}, format="json").status_code == 200
    send_reply(gateway, DAVE, SERVER, "nieuw adres", subject="nieuw adres")  # SPF passes from his provider
    assert _last_code() == "address_new"
    answer = sink.to(DAVE)[-1]
    assert services.command_address(_user("dave").pk) != old_command
    assert "Je opdrachtadres is vervangen" in _flat(answer) and answer["Content-Language"] == "nl"


def test_a_forged_new_address_changes_nothing(sink, gateway, eager_tasks):
    """`new address` from a From nothing proves, or to another account's command address, or from
    a stranger to dave's command address: no address changes, and nobody but dave is answered."""
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    erin_command, erin_told = services.command_address(_user("erin").pk), len(sink.to("erin@players.example"))
    send_reply(gateway, DAVE, SERVER, "new address", subject="new address", source=ELSEWHERE)
    assert _last_code() == "unproven_sender"
    send_reply(gateway, DAVE, erin_command, "new address", subject="new address", source=ELSEWHERE)
    assert _last_code() == "wrong_sender"
    send_reply(gateway, "mallory@evil.example", old_command, "new address", subject="new address", source=ELSEWHERE)
    assert _last_code() == "wrong_sender"
    user = _user("dave")
    assert services.command_address(user.pk) == old_command and services.reply_address(user.pk, game_id, 0) == old_game
    assert services.command_address(_user("erin").pk) == erin_command
    assert sink.to("mallory@evil.example") == [] and len(sink.to("erin@players.example")) == erin_told
    assert "Not done (new address)" in _flat(sink.to(DAVE)[-1])  # the proof asked, of dave only


def test_the_account_page_replaces_the_addresses_after_a_confirmation(sink, gateway, eager_tasks):
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    browser = Client()
    browser.force_login(_user("dave"))
    page = browser.get("/account/").content.decode()
    assert old_command in page and "/account/mail-addresses/" in page
    asked = browser.get("/account/mail-addresses/")
    assert asked.status_code == 200 and b"Yes, replace my mail addresses" in asked.content
    assert services.command_address(_user("dave").pk) == old_command  # a GET changes nothing
    done = browser.post("/account/mail-addresses/", follow=True).content.decode()
    new_command = services.command_address(_user("dave").pk)
    assert new_command != old_command and new_command in done and old_command not in done
    assert "The reply address of your 1 game was replaced too" in " ".join(done.split())
    assert browser.get("/account/mail-addresses/?replaced=1").status_code == 200  # a reload replaces nothing
    assert services.command_address(_user("dave").pk) == new_command
    assert new_command in browser.get("/account/").content.decode()
    _old_addresses_answered_to_the_owner_only(sink, gateway, old_command, old_game, game_id)
    _new_addresses_work(sink, gateway, game_id)


def test_the_api_replaces_the_addresses_and_documents_it(sink, gateway, eager_tasks, client):
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    assert dave.get("/api/mail/settings/").json()["command_address"] == old_command
    answer = dave.post("/api/mail/settings/addresses/")
    assert answer.status_code == 200, answer.content
    new_command = services.command_address(_user("dave").pk)
    assert answer.json() == {"command_address": new_command, "seats": 1}
    assert dave.get(f"/api/mail/addresses/{game_id}/").json()["reply_to"] != old_game
    assert dave.get("/api/mail/settings/").json()["command_address"] == new_command
    _old_addresses_answered_to_the_owner_only(sink, gateway, old_command, old_game, game_id)
    _new_addresses_work(sink, gateway, game_id)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/mail/settings/addresses/"]["post"]
    assert operation["operationId"] == "mailAddressesReplace" and "[scope: account]" in operation["summary"]


def test_one_seats_rotation_answers_mail_in_flight_to_its_old_address(sink, gateway, eager_tasks):
    """The API's per-seat rotation (mailAddressRotate) keeps the old address too: a reply in flight
    to it is answered with the new one, where before it was refused at RCPT (550) with no word."""
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    new_game = dave.post(f"/api/mail/addresses/{game_id}/").json()["reply_to"]
    assert new_game != old_game and services.command_address(_user("dave").pk) == old_command
    send_reply(gateway, DAVE, old_game, "1", subject=f"Re: game {game_id}")
    assert _last_code() == "address_replaced" and new_game in text_of(sink.to(DAVE)[-1])
    assert SeatAddress.objects.get(user=_user("dave")).token in new_game


def test_a_flood_to_a_replaced_address_is_limited_apart_and_locks_the_owner_out_of_nothing(
        sink, gateway, eager_tasks, settings):
    """Mail to an old address counts against that address's own limit, not the account's: past it,
    451; the owner's mail to the new address still passes, and the owner got one answer."""
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    services.addresses_replace(user=_user("dave"), via=services.BY_MAIL)
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 3
    before = len(sink.to(DAVE))
    for number in range(3):
        send_reply(gateway, "mallory@evil.example", old_command, f"resign {game_id}", subject=f"resign {number}",
                   source=ELSEWHERE)
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send_reply(gateway, "mallory@evil.example", old_command, "resign", subject="resign 4", source=ELSEWHERE)
    assert next(iter(refused.value.recipients.values()))[0] == 451
    assert len(sink.to(DAVE)) == before + 1  # one answer an hour per old address
    send_reply(gateway, DAVE, services.command_address(_user("dave").pk), "games", subject="games", source=ELSEWHERE)
    assert _last_code() == "games" and selectors.game_get(game_id=game_id).status == "active"


def test_a_replacement_on_the_web_tells_the_owner_by_mail_in_his_language_and_zone(sink, gateway, eager_tasks):
    """As for a changed password: one short mail to the account's own address (when, from where,
    the new command address, what to do if it was not him), in Dutch, in Europe/Amsterdam."""
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    assert dave.client.patch("/api/accounts/me/", {"language": "nl"}, format="json").status_code == 200
    assert dave.client.patch("/api/mail/settings/", {"time_zone": "Europe/Amsterdam"}, format="json").status_code == 200
    sent = len(sink.envelopes())
    browser = Client()
    browser.force_login(_user("dave"))
    assert browser.post("/account/mail-addresses/").status_code == 302
    assert [recipients for _, recipients, _ in sink.envelopes()[sent:]] == [[DAVE]]  # dave alone, once
    told = sink.to(DAVE)[-1]
    new_command = services.command_address(_user("dave").pk)
    text = _flat(told)
    assert told["Content-Language"] == "nl" and told["Reply-To"] == new_command and new_command in text
    assert "vervangen" in told["Subject"] and "op het web" in text, text
    assert re.search(r"vervangen op (ma|di|wo|do|vr|za|zo) \d\d [a-z]{3} \d{4} \d\d:\d\d Europe/Amsterdam", text), text
    assert "Was jij dit niet" in text and "/account/" in text and old_command not in text


def test_a_replacement_through_the_api_tells_the_owner_by_mail(sink, gateway, eager_tasks):
    dave, erin, game_id, old_command, old_game = _begun(sink, gateway)
    sent = len(sink.envelopes())
    assert dave.post("/api/mail/settings/addresses/").status_code == 200
    assert [recipients for _, recipients, _ in sink.envelopes()[sent:]] == [[DAVE]]
    told = sink.to(DAVE)[-1]
    text = _flat(told)
    assert told["Content-Language"] == "en" and services.command_address(_user("dave").pk) in text
    assert "were replaced on" in text and "through the API" in text and "UTC" in text, text
    assert "If this was not you" in text and "Each game's next mail carries its new reply address" in text
