"""Every mail the server sends says its language (Content-Language, RFC 3282: the recipient's, as
the mail is written), and the times a mail prints besides deadlines (a chat line's, when the game
ended, when an address was replaced) are in the reader's language and time zone, as deadlines
are: tested in Dutch, in Europe/Amsterdam."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model

from chat.models import ChatMessage
from games import selectors
from mail import services
from mail.services import outbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
SERVER = "scrapyard@localhost"
EVA, FINN = "eva@players.example", "finn@players.example"
DUTCH_DAY = r"(ma|di|wo|do|vr|za|zo)"
DUTCH_MONTH = r"(jan|feb|mrt|apr|mei|jun|jul|aug|sep|okt|nov|dec)"


def _flat(message) -> str:
    return " ".join(text_of(message).split())


def _dutch_in_amsterdam(player) -> None:
    assert player.client.patch("/api/accounts/me/", {"language": "nl"}, format="json").status_code == 200
    assert player.client.patch("/api/mail/settings/", {"time_zone": "Europe/Amsterdam"}, format="json").status_code == 200


def test_every_mail_says_its_recipients_language(sink, gateway, eager_tasks, settings):
    eva, finn = mail_players("eva", "finn")
    _dutch_in_amsterdam(eva)
    game_id = mail_game(eva, finn, "toy_race")  # the start: a game mail to each
    mover = EVA if 0 in selectors.game_get(game_id=game_id).to_act else FINN
    started = sink.to(mover)[-1]
    send_reply(gateway, mover, started["Reply-To"], f"1 #{selectors.game_get(game_id=game_id).seq}", answering=started)
    send_reply(gateway, FINN, SERVER, "games", subject="games")  # a command's answer
    send_reply(gateway, EVA, SERVER, "games", subject="games")
    # Sign-up by mail, from a Dutch mail program: the invitation and the welcome.
    send_reply(gateway, "gijs@players.example", SERVER, "register gijs", subject="register gijs",
               headers={"Content-Language": "nl"})
    invitation = sink.to("gijs@players.example")[-1]
    send_reply(gateway, "gijs@players.example", invitation["Reply-To"], "ja", answering=invitation,
               headers={"Content-Language": "nl"})
    # The request to confirm an address.
    settings.SCRAPYARD_MAIL_VERIFY = True
    assert finn.client.patch("/api/accounts/me/", {"email": "finn2@players.example"}, format="json").status_code == 200
    outbound.account_held(get_user_model().objects.get(username="finn").pk)
    languages = {}
    for _sender, recipients, message in sink.envelopes():
        languages.setdefault(recipients[0], set()).add(message["Content-Language"])
    assert languages == {EVA: {"nl"}, FINN: {"en"}, "gijs@players.example": {"nl"}, "finn2@players.example": {"en"}}, languages
    assert len(sink.to("gijs@players.example")) == 2 and len(sink.to(EVA)) >= 2 and sink.to("finn2@players.example")


def test_times_in_mails_are_in_the_readers_language_and_time_zone(sink, gateway, eager_tasks):
    eva, finn = mail_players("eva", "finn")
    _dutch_in_amsterdam(eva)
    game_id = mail_game(eva, finn, "toy_race", time_control={"type": "correspondence", "days": 3})
    assert finn.post(f"/api/games/{game_id}/chat/", {"text": "veel plezier"}).status_code in (200, 201)
    # 13:05 UTC on a Monday in winter: 14:05 in Amsterdam.
    ChatMessage.objects.update(created_at=dt.datetime(2027, 1, 11, 13, 5, tzinfo=dt.timezone.utc))
    game = selectors.game_get(game_id=game_id)
    if 0 not in game.to_act:  # eva's turn first, so that her answer shows the chat
        listed = finn.get(f"/api/games/{game_id}/legal-moves/").json()
        assert finn.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    asking = sink.to(EVA)[-1]
    send_reply(gateway, EVA, asking["Reply-To"], f"1 #{selectors.game_get(game_id=game_id).seq}", answering=asking)
    answer = text_of(sink.to(EVA)[-1])
    assert "Chat sinds je vorige mail, tijden in Europe/Amsterdam" in " ".join(answer.split())
    assert "  ma 11 jan 14:05  finn: veel plezier" in answer, answer
    assert re.search(rf"Je uiterste tijd: {DUTCH_DAY} \d\d {DUTCH_MONTH} \d{{4}} \d\d:\d\d Europe/Amsterdam", text_of(asking))
    # The game's end, in the mail that tells it.
    assert finn.post(f"/api/games/{game_id}/resign/").status_code in (200, 201)
    ended = selectors.game_get(game_id=game_id).finished_at
    over = text_of(sink.to(EVA)[-1])
    shown = re.search(rf"Afgelopen: {DUTCH_DAY} (\d\d) {DUTCH_MONTH} (\d{{4}}) (\d\d:\d\d) Europe/Amsterdam", over)
    assert shown, over
    assert shown[5] == (ended + dt.timedelta(hours=1)).strftime("%H:%M")  # CET in December: UTC+1
    # When an address was replaced, in the short answer to mail sent to it.
    old = services.command_address(get_user_model().objects.get(username="eva").pk)
    services.addresses_replace(user=get_user_model().objects.get(username="eva"), via=services.BY_MAIL)
    send_reply(gateway, EVA, old, "games", subject="games")
    replaced = _flat(sink.to(EVA)[-1])
    assert re.search(rf"dat adres is op {DUTCH_DAY} \d\d {DUTCH_MONTH} \d{{4}} \d\d:\d\d Europe/Amsterdam vervangen", replaced), replaced
    assert sink.to(EVA)[-1]["Content-Language"] == "nl"


def test_an_english_reader_in_utc_reads_the_same_times_the_english_way(sink, gateway, eager_tasks):
    eva, finn = mail_players("eva", "finn")
    game_id = mail_game(eva, finn, "toy_race")
    assert eva.post(f"/api/games/{game_id}/chat/", {"text": "have fun"}).status_code in (200, 201)
    ChatMessage.objects.update(created_at=dt.datetime(2027, 1, 11, 13, 5, tzinfo=dt.timezone.utc))
    assert eva.post(f"/api/games/{game_id}/resign/").status_code in (200, 201)
    over = text_of(sink.to(FINN)[-1])
    assert "Chat since your last mail, times in UTC" in " ".join(over.split()) and "  Mon 11 Jan 13:05  eva: have fun" in over
    assert re.search(r"Ended: \w{3} \d\d \w{3} \d{4} \d\d:\d\d UTC", over), over
