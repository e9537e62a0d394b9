"""What an account chooses about its mail, and what the server does on its own: the daily
digest, unsubscribing (RFC 8058), per-game choices, bounces, deadline warnings, commands, the
provider's inbound webhook (django-anymail), the .eml files of the embedded default, and the
secrecy of mails (a counterfactual game)."""

from __future__ import annotations

import base64
import datetime as dt
import email
import email.policy
import re

import pytest
from django.test import Client

from accounts import selectors as account_selectors
from games import selectors, time_controls
from mail import services
from mail.models import Inbound, Outgoing, Preference
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import guard_of, headline, listed_moves, send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_a_digest_account_gets_one_mail_a_day_with_every_notice(sink, eager_tasks):
    alice, bob = mail_players("ann", "ben")
    assert alice.client.patch("/api/mail/settings/", {"cadence": "digest", "time_zone": "Europe/Paris", "digest_hour": 7},
                              format="json").status_code == 200
    game_id = mail_game(alice, bob)
    for _ in range(2):
        alice.play_first_legal(game_id)
        bob.play_first_legal(game_id)
    assert sink.to("ann@players.example") == []  # all held for the digest
    held = Outgoing.objects.filter(user__username="ann", status="held").count()
    assert held >= 3
    due = Preference.objects.get(user__username="ann").next_digest_at
    assert due.astimezone(dt.timezone(dt.timedelta(hours=1))).hour == 7  # 07:00 in Paris (UTC+1 in November)
    assert services.digests_send(at=due - dt.timedelta(minutes=1)) == 0
    assert services.digests_send(at=due) == 1
    [digest] = sink.to("ann@players.example")
    assert digest["Subject"] == f"Scrapyard digest: {held} notices"
    assert text_of(digest).count("your turn") >= 3 and "has started" in text_of(digest).lower()
    assert Outgoing.objects.filter(user__username="ann", status="held").count() == 0
    assert services.digests_send(at=due + dt.timedelta(days=1)) == 0  # nothing new: no empty digest
    assert sink.to("ben@players.example"), "the other player's choice is his own"


def test_one_click_unsubscribe_stops_all_mail(sink, eager_tasks):
    alice, bob = mail_players("cat", "dan")
    game_id = mail_game(alice, bob)
    mail = sink.to("cat@players.example")[-1]
    link = mail["List-Unsubscribe"].strip().strip("<>")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" and link in text_of(mail)
    path = re.sub(r"^https?://[^/]+", "", link)
    page = Client().get(path)
    assert page.status_code == 200 and b"Unsubscribe" in page.content
    assert Client().post(path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded").status_code == 200
    assert alice.get("/api/mail/settings/").json()["cadence"] == "none"
    before = len(sink.to("cat@players.example"))
    alice.play_first_legal(game_id)
    bob.play_first_legal(game_id)
    assert len(sink.to("cat@players.example")) == before
    assert Client().post(path[:-5] + "xxxx/").status_code == 400


def test_a_game_can_have_its_own_cadence(sink, eager_tasks):
    alice, bob = mail_players("eve", "fay")
    quiet, loud = mail_game(alice, bob), mail_game(alice, bob)
    response = alice.client.patch("/api/mail/settings/", {"games": {str(quiet): "none"}}, format="json")
    assert response.status_code == 200 and response.json()["games"] == {str(quiet): "none"}
    sink.received.clear()
    for game_id in (quiet, loud):
        alice.play_first_legal(game_id)
        bob.play_first_legal(game_id)
    subjects = [m["Subject"] for m in sink.to("eve@players.example")]
    assert subjects and all(f"game {loud}:" in s for s in subjects)
    bad = alice.client.patch("/api/mail/settings/", {"time_zone": "Mars/Olympus"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"


def test_a_hard_bounce_turns_mail_off_and_says_so(sink, gateway, eager_tasks):
    alice, bob = mail_players("gus", "hil")
    game_id = mail_game(alice, bob)
    sender, _, _ = next(envelope for envelope in sink.envelopes() if envelope[1] == ["gus@players.example"])
    assert sender.startswith("bounce+")  # VERP: the bounce names the account
    dsn = email.message.EmailMessage()
    dsn["From"] = "MAILER-DAEMON@players.example"
    dsn["To"] = sender
    dsn["Subject"] = "Undelivered Mail Returned to Sender"
    dsn.set_content("The mail could not be delivered.")
    dsn.add_attachment("Reporting-MTA: dns; players.example\n\nFinal-Recipient: rfc822; gus@players.example\n"
                       "Action: failed\nStatus: 5.1.1\n", subtype="plain", filename="status.txt")
    _send_raw(gateway, "", sender, dsn)
    settings = alice.get("/api/mail/settings/").json()
    assert settings["bounced_at"] and settings["mail_on"] is False
    before = len(sink.to("gus@players.example"))
    alice.play_first_legal(game_id)
    bob.play_first_legal(game_id)
    assert len(sink.to("gus@players.example")) == before
    assert alice.client.patch("/api/mail/settings/", {"mail_on": True}, format="json").json()["mail_on"] is True
    forged = sender.replace(sender.split("-")[1][:4], "0000")
    with pytest.raises(Exception):
        _send_raw(gateway, "", forged, dsn)


def _send_raw(port: int, sender: str, to: str, message) -> None:
    import smtplib

    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.send_message(message, from_addr=sender, to_addrs=[to])


def test_deadline_warnings_come_once_at_80_percent(sink, eager_tasks, monkeypatch):
    alice, bob = mail_players("ida", "jay")
    mail_game(alice, bob, time_control={"type": "step", "seconds": 100})
    sink.received.clear()
    start = time_controls.now()
    monkeypatch.setattr(time_controls, "now", lambda: start + dt.timedelta(seconds=85))
    assert services.deadline_warnings_note() == 1
    assert services.deadline_warnings_note() == 0
    [warning] = sink.to("ida@players.example")
    assert "of your time for this move" in headline(warning) and listed_moves(warning)


def test_board_help_and_vacation_by_mail(sink, gateway, eager_tasks):
    alice, bob = mail_players("kay", "lee")
    game_id = mail_game(alice, bob)
    asking = sink.to("kay@players.example")[-1]
    for command in ("board", "help", "vacation on", "vacation off", ""):
        send_reply(gateway, "kay@players.example", asking["Reply-To"], command, answering=asking)
    codes = list(Inbound.objects.order_by("pk").values_list("code", flat=True))
    assert codes == ["board", "help", "vacation_on", "vacation_off", "empty"]
    answers = sink.to("kay@players.example")[-5:]
    assert listed_moves(answers[0]) == listed_moves(asking) and guard_of(answers[0]) == guard_of(asking)
    assert "Playing Scrapyard by email" in text_of(answers[1])
    assert "vacation has started" in text_of(answers[2]) and "vacation is over" in text_of(answers[3])
    page = alice.get("/api/mail/inbound/").json()
    assert [entry["code"] for entry in page] == list(reversed(codes)) and page[0]["game"] == game_id


def test_mails_hold_nothing_of_another_seats_secret(sink, gateway, eager_tasks, monkeypatch):
    """Two games alike up to a wrestling choice made in secret, which differs: every mail the
    other seat gets reads the same in both (but for the game's id and addresses)."""
    from games import services as game_services
    from tests.api.test_secrets_api import _to_the_duel

    monkeypatch.setattr(game_services.lobby, "new_seed", lambda: "same-seed-for-both-games")
    # One moment for both games: the deadlines in the mails then differ only if the secret moved them.
    frozen = time_controls.now()
    monkeypatch.setattr(time_controls, "now", lambda: frozen)
    alice, bob = mail_players("mo", "nat")
    users = [account_selectors.user_get(user_id=_uid(name)) for name in ("mo", "nat")]
    for user in users:  # the random walk to the duel is the test's own: no move played for it
        services.settings_update(user=user, play_forced=False)
    first, second = _to_the_duel(users), _to_the_duel(users)
    chooser, watcher = first.to_act
    secret_keeper = (alice, bob)[chooser]
    choices = secret_keeper.get(f"/api/games/{first.pk}/legal-moves/").json()["moves"]
    assert choices[0] != choices[-1]
    seen = []
    for game, choice in ((first, choices[0]), (second, choices[-1])):
        sink.received.clear()
        assert secret_keeper.submit(game.pk, choice, game.seq).status_code == 201
        seen.append([_normalised(text_of(m), game.pk) for m in sink.to(f"{users[watcher].username}@players.example")])
    assert seen[0] and seen[0] == seen[1]


def _uid(username: str) -> int:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username).pk


def _normalised(text: str, game_id: int) -> str:
    text = re.sub(r"play\+[a-z0-9]+@", "play+TOKEN@", text)
    text = re.sub(r"unsubscribe/[^/\s]+/", "unsubscribe/X/", text)
    return text.replace(f"game {game_id}", "game N").replace(f"/games/{game_id}/", "/games/N/")


def test_a_reply_through_a_providers_inbound_webhook_plays_like_one_by_smtp(sink, eager_tasks, settings):
    """Postmark's inbound webhook, with its documented JSON payload, through django-anymail."""
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret-words"}
    settings.SCRAPYARD_MAIL_PROVIDER = "postmark"
    alice, bob = mail_players("oli", "pam")
    game_id = mail_game(alice, bob)
    asking = sink.to("oli@players.example")[-1]
    seq = guard_of(asking)
    payload = {
        "FromName": "Oli", "MessageStream": "inbound", "From": "oli@players.example",
        "FromFull": {"Email": "oli@players.example", "Name": "Oli", "MailboxHash": ""},
        "To": asking["Reply-To"], "ToFull": [{"Email": asking["Reply-To"], "Name": "", "MailboxHash": ""}],
        "Cc": "", "CcFull": [], "Bcc": "", "BccFull": [], "OriginalRecipient": asking["Reply-To"],
        "Subject": "Re: your turn", "MessageID": "73e6d360-66eb-11e1-8e72-a8904824019b",
        "ReplyTo": "", "MailboxHash": "", "Date": "Mon, 23 Nov 2026 16:00:00 +0000",
        "TextBody": f"1 #{seq}\n\n> the board\n", "HtmlBody": "", "StrippedTextReply": "", "Tag": "",
        "Headers": [{"Name": "In-Reply-To", "Value": asking["Message-ID"]}], "Attachments": [],
    }
    auth = "Basic " + base64.b64encode(b"hook:secret-words").decode()
    wrong = Client().post("/mail/inbound/postmark/inbound/", payload, content_type="application/json")
    assert wrong.status_code in (400, 401, 403) and Inbound.objects.count() == 0
    response = Client().post("/mail/inbound/postmark/inbound/", payload, content_type="application/json",
                             HTTP_AUTHORIZATION=auth)
    assert response.status_code == 200, response.content
    inbound = Inbound.objects.get()
    assert (inbound.via, inbound.outcome, inbound.code) == ("postmark", "done", "played")
    assert selectors.game_get(game_id=game_id).seq == seq + 1


def test_the_embedded_default_writes_each_mail_as_an_eml_file(tmp_path, settings, eager_tasks):
    settings.EMAIL_BACKEND = "mail.backends.EmlFileBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    alice, bob = mail_players("quin", "rae")
    mail_game(alice, bob)
    files = sorted(tmp_path.glob("*.eml"))
    assert len(files) == Outgoing.objects.filter(status="sent").count() >= 2  # a start mail each
    message = email.message_from_bytes(files[0].read_bytes(), policy=email.policy.default)
    assert message["Reply-To"].startswith("play+") and message.get_body(preferencelist=("html",)) is not None


@pytest.mark.parametrize("rules", ["scavenge", "terrain_vague", "toy_race"])
def test_mail_text_stays_within_78_columns(sink, eager_tasks, rules, settings):
    # A real site's address and domain, as long as many are: the links and the reply address fit too.
    settings.SCRAPYARD_SITE_URL = "https://play.scrapyard-games.example.org"
    settings.SCRAPYARD_MAIL_DOMAIN = "mail.scrapyard-games.example.org"
    alice, bob = mail_players(f"w{rules[:3]}", f"x{rules[:3]}")
    mail_game(alice, bob, rules)
    for message in sink.envelopes():
        text = text_of(message[2])
        long = [line for line in text.splitlines() if len(line) > 78]
        assert long == [], long
        assert "Reply to: play+" in text or "has started" not in headline(message[2])


def test_the_sender_script_answers_the_newest_mail_from_the_eml_files(tmp_path, settings, gateway, eager_tasks):
    import subprocess
    import sys

    settings.EMAIL_BACKEND = "mail.backends.EmlFileBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    alice, bob = mail_players("sam", "tia")
    game_id = mail_game(alice, bob)
    seq = selectors.game_get(game_id=game_id).seq
    script = [sys.executable, "examples/mail_reply.py", "--for", "sam@players.example", "--folder", str(tmp_path),
              "--port", str(gateway), "1"]
    done = subprocess.run(script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert selectors.game_get(game_id=game_id).seq == seq + 1
    assert Inbound.objects.get().code == "played" and f"1 #{seq}" == Inbound.objects.get().command


def test_resigning_by_mail_ends_a_two_player_game(sink, gateway, eager_tasks):
    alice, bob = mail_players("uma", "val")
    game_id = mail_game(alice, bob)
    asking = sink.to("uma@players.example")[-1]
    send_reply(gateway, "uma@players.example", asking["Reply-To"], "resign", answering=asking)
    game = selectors.game_get(game_id=game_id)
    assert game.status == "finished" and game.result["winners"] == [1]
    assert Inbound.objects.get().code == "resigned"
    assert any(" is over: " in headline(m) for m in sink.to("val@players.example"))


def test_a_draw_is_offered_and_agreed_by_mail(sink, gateway, eager_tasks):
    alice, bob = mail_players("wes", "xia")
    game_id = mail_game(alice, bob)
    asking = sink.to("wes@players.example")[-1]
    send_reply(gateway, "wes@players.example", asking["Reply-To"], "offer draw", answering=asking)
    assert Inbound.objects.get().code == "draw_offered"
    offered = sink.to("xia@players.example")[-1]
    assert "offers a draw" in text_of(offered) and "draw accept" in text_of(offered)
    assert "offers a draw" in headline(offered)
    send_reply(gateway, "xia@players.example", offered["Reply-To"], "draw accept", answering=offered)
    game = selectors.game_get(game_id=game_id)
    assert game.status == "finished" and game.result["reason"] == "draw_agreed"
    assert [inbound.code for inbound in Inbound.objects.order_by("pk")] == ["draw_offered", "draw_accepted"]
    assert any("The game is over: draw agreed." in text_of(mail) for mail in sink.to("xia@players.example"))


def test_a_takeback_is_asked_and_refused_or_agreed_by_mail(sink, gateway, eager_tasks):
    alice, bob = mail_players("yan", "zed")
    game_id = alice.post("/api/games/", {"rules": "terrafex", "players": 2}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    game = selectors.game_get(game_id=game_id)
    mover, other = ("yan", "zed") if game.seats.get(index=game.to_act[0]).user.username == "yan" else ("zed", "yan")
    asking = sink.to(f"{mover}@players.example")[-1]
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], "1",
               answering=asking)
    moved = selectors.game_get(game_id=game_id)
    assert moved.seq == game.seq + 1
    answer = sink.to(f"{mover}@players.example")[-1]
    send_reply(gateway, f"{mover}@players.example", answer["Reply-To"], "takeback", answering=answer)
    asked = sink.to(f"{other}@players.example")[-1]
    assert "asks to take back their move" in text_of(asked) and "takeback accept" in text_of(asked)
    other_seat = game.seats.get(user__username=other).index
    assert bool(listed_moves(asked)) == (other_seat in moved.to_act), "the moves are listed when it is the seat's turn"
    send_reply(gateway, f"{other}@players.example", asked["Reply-To"], "takeback decline", answering=asked)
    assert selectors.game_get(game_id=game_id).to_act == moved.to_act
    send_reply(gateway, f"{mover}@players.example", answer["Reply-To"], "takeback request", answering=answer)
    send_reply(gateway, f"{other}@players.example", asked["Reply-To"], "accept takeback", answering=asked)
    undone = selectors.game_get(game_id=game_id)
    assert undone.to_act == game.to_act and undone.status == "active"
    codes = [inbound.code for inbound in Inbound.objects.order_by("pk")]
    assert codes == ["played", "takeback_requested", "takeback_declined", "takeback_requested", "takeback_accepted"]
    again = sink.to(f"{mover}@players.example")[-1]
    assert headline(again).endswith(f"at move {undone.seq}.") and listed_moves(again)


def test_a_life_command_that_cannot_be_done_is_answered_with_its_code(sink, gateway, eager_tasks):
    alice, bob = mail_players("abe", "bea")
    game_id = mail_game(alice, bob)
    asking = sink.to("abe@players.example")[-1]
    send_reply(gateway, "abe@players.example", asking["Reply-To"], "draw accept", answering=asking)
    refused = Inbound.objects.get()
    assert refused.code == "no_draw_offered" and refused.outcome == "refused"
    assert "Not done (draw accept)" in text_of(sink.to("abe@players.example")[-1])
    assert selectors.game_get(game_id=game_id).status == "active"


def test_a_digest_says_where_to_send_a_move_and_a_move_sent_there_is_played(sink, gateway, eager_tasks):
    """A digest holds each game's turn ("reply to this mail ... 1 #17"), but a reply to the digest
    goes to the server's address, where a move is no command; the game's reply address was cut
    off with each notice's footer. The digest names it for each notice."""
    amos, bea = mail_players("amos", "bea")
    assert amos.client.patch("/api/mail/settings/", {"cadence": "digest"}, format="json").status_code == 200
    game_id = mail_game(amos, bea)
    seat = selectors.seat_of(game=selectors.game_get(game_id=game_id), user=account_selectors.user_get(user_id=_uid("amos")))
    if selectors.game_get(game_id=game_id).to_act[0] != seat:
        bea.play_first_legal(game_id)
    amos.play_first_legal(game_id)
    bea.play_first_legal(game_id)
    assert services.digests_send(at=Preference.objects.get(user__username="amos").next_digest_at) == 1
    [digest] = sink.to("amos@players.example")
    address = services.reply_address(_uid("amos"), game_id, seat)
    words = " ".join(text_of(digest).split())
    assert f"To play in game {game_id}, mail your move (like 1 #17" in words and address in words, words
    seq = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, "amos@players.example", address, f"1 #{seq}")
    assert Inbound.objects.get().code == "played"


@pytest.mark.parametrize(("written", "code"), [("Resign.", "resigned"), ("Board!", "board"), ("Draw.", "draw_offered")])
def test_a_reply_word_ended_as_a_sentence_is_the_word(sink, gateway, eager_tasks, written, code):
    """People end what they write with a full stop: "Resign." was read as a move's notation."""
    alice, bob = mail_players("yan", "zed")
    game_id = mail_game(alice, bob)
    asking = sink.to("yan@players.example")[-1]
    send_reply(gateway, "yan@players.example", asking["Reply-To"], written, answering=asking)
    assert Inbound.objects.get().code == code
    assert (selectors.game_get(game_id=game_id).status == "finished") == (code == "resigned")


def test_a_stand_in_is_told_by_mail_and_the_seat_taken_back_with_return(sink, gateway, eager_tasks):
    """Under the `bot` policy a mail-only player whose time ran out was told nothing (the bot
    played each turn before a turn mail was owed) and had no reply that took the seat back."""
    from games import timeouts
    from games.models import Deadline, Seat

    yan, zoe = mail_players("yan", "zoe")
    game_id = mail_game(yan, zoe, timeout_policy="bot", time_control={"type": "correspondence", "days": 1})
    game = selectors.game_get(game_id=game_id)
    late = game.to_act[0]
    late_player, other = (yan, zoe) if late == 0 else (zoe, yan)
    address = f"{late_player.username}@players.example"
    before = len(sink.to(address))
    Deadline.objects.filter(game_id=game_id).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    timeouts.timeout_apply(game_id=game_id, seq=game.seq, seat=late)
    for _ in range(2):  # the other player moves; the stand-in answers at once
        other.play_first_legal(game_id)
    told = sink.to(address)[before:]
    assert [headline(mail).split(",")[0] for mail in told] == [late_player.username]  # one mail, and no turn mails
    text = " ".join(text_of(told[0]).split())  # as read, not as wrapped
    assert "the bot mcts plays your seat" in text and "reply with the first line: return" in text

    send_reply(gateway, address, told[0]["Reply-To"], "return", answering=told[0])
    assert Inbound.objects.get().code == "seat_returned"
    assert not Seat.objects.get(game_id=game_id, index=late).stand_in
    answered = sink.to(address)[-1]
    assert "is yours again" in text_of(answered)
    game = selectors.game_get(game_id=game_id)
    assert game.status == "active" and game.to_act == [1 - late]  # the stand-in played every turn it had
    other.play_first_legal(game_id)
    assert "it is your turn" in text_of(sink.to(address)[-1])  # the turn mails are back
