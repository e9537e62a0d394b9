"""Each mail in its recipient's language, whoever caused it; `language nl` (or `taal nl`) by mail
sets the account's language and is answered in it; an unknown command is answered with the
commands (it raised a TypeError before: the server's help was asked for without the games)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Account
from games import selectors
from mail.models import Inbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
SERVER = "scrapyard@localhost"


def _speaks(name: str, language: str) -> None:
    user = get_user_model().objects.get(username=name)
    Account.objects.update_or_create(user=user, defaults={"language": language})


def test_a_mail_goes_out_in_its_recipients_language_whoever_moved(sink, gateway, eager_tasks):
    eva, finn = mail_players("eva", "finn")
    _speaks("eva", "nl")
    game_id = mail_game(eva, finn, "terrafex")
    to_eva, to_finn = sink.to("eva@players.example")[0], sink.to("finn@players.example")[0]
    assert "is begonnen" in text_of(to_eva) and "Afmelden:" in text_of(to_eva)
    assert to_eva["Subject"].startswith("Scrapyard-partij")
    assert 'lang="nl"' in to_eva.get_body(preferencelist=("html",)).get_content()
    assert "has started" in text_of(to_finn) and to_finn["Subject"].startswith("Scrapyard game")
    # Whoever is to move first, the next mail each gets is in their own language.
    first = selectors.game_get(game_id=game_id).to_act[0]
    mover = ("eva", "finn")[first]
    started = sink.to(f"{mover}@players.example")[0]
    send_reply(gateway, f"{mover}@players.example", started["Reply-To"], "1", answering=started)
    assert Inbound.objects.get().code == "played"
    answer = text_of(sink.to(f"{mover}@players.example")[-1])
    assert ("Gespeeld in partij" in answer) == (mover == "eva") and ("Played in game" in answer) == (mover != "eva")


def test_language_nl_by_mail_sets_the_account_and_answers_in_dutch(sink, gateway, eager_tasks):
    mail_players("gijs")
    send_reply(gateway, "gijs@players.example", SERVER, "taal nl", subject="taal nl")
    assert Account.objects.get(user__username="gijs").language == "nl"
    assert "in het Nederlands" in text_of(sink.to("gijs@players.example")[-1])
    send_reply(gateway, "gijs@players.example", SERVER, "help", subject="help")
    help_text = text_of(sink.to("gijs@players.example")[-1])
    assert "Scrapyard spelen per e-mail" in help_text and "deze tekst" in help_text
    send_reply(gateway, "gijs@players.example", SERVER, "language en", subject="language en")
    assert Account.objects.get(user__username="gijs").language == "en"
    assert "in English" in text_of(sink.to("gijs@players.example")[-1])


def test_an_unknown_command_is_answered_with_the_commands(sink, gateway, eager_tasks):
    mail_players("hugo")
    send_reply(gateway, "hugo@players.example", SERVER, "dance", subject="dance")
    answer = text_of(sink.to("hugo@players.example")[-1])
    assert "did not understand 'dance'" in answer and "games open" in answer
    assert Inbound.objects.get().code == "unknown_command"


def test_a_strangers_sign_up_is_answered_in_the_language_its_mail_asks(sink, gateway, eager_tasks):
    """No account yet to ask: Accept-Language (or else Content-Language) of the mail itself, else
    English; a Dutch sign-up's account keeps Dutch for its mail."""
    send_reply(
        gateway,
        "noor@players.example",
        SERVER,
        "register noor",
        subject="register noor",
        headers={"Content-Language": "nl-NL"},
    )
    send_reply(
        gateway,
        "olaf@players.example",
        SERVER,
        "register olaf",
        subject="register olaf",
        headers={"Accept-Language": "fr, en;q=0.5"},
    )
    dutch, english = sink.to("noor@players.example")[0], sink.to("olaf@players.example")[0]
    assert dutch["Subject"] == "Scrapyard: doe mee door op deze mail te antwoorden"
    assert "Om mee te doen als noor" in " ".join(text_of(dutch).split()) and "To join" not in text_of(dutch)
    assert english["Subject"] == "Scrapyard: join by replying to this mail" and "To join as olaf" in " ".join(
        text_of(english).split()
    )
    send_reply(
        gateway, "noor@players.example", dutch["Reply-To"], "ja", answering=dutch, headers={"Content-Language": "nl"}
    )
    welcome = sink.to("noor@players.example")[-1]
    assert welcome["Subject"] == "Scrapyard: welkom" and "Welkom bij Scrapyard, noor" in " ".join(
        text_of(welcome).split()
    )
    assert Account.objects.get(user__username="noor").language == "nl"


def test_a_reply_that_says_no_language_is_welcomed_in_the_invitations(sink, gateway, eager_tasks):
    """Most mail programs send no Content-Language: the language the invitation was written in,
    kept in its join address under the MAC, is the welcome's and the account's; a reply that says
    its language is answered in it; the language cannot be changed in the address."""
    def _invited(name: str):
        send_reply(gateway, f"{name}@players.example", SERVER, f"register {name}", subject=f"register {name}",
                   headers={"Content-Language": "nl"})
        return sink.to(f"{name}@players.example")[-1]

    dutch = _invited("noor")
    send_reply(gateway, "noor@players.example", dutch["Reply-To"], "ja", answering=dutch)  # no Content-Language
    welcome = sink.to("noor@players.example")[-1]
    assert welcome["Subject"] == "Scrapyard: welkom" and welcome["Content-Language"] == "nl"
    assert Account.objects.get(user__username="noor").language == "nl"
    # The language is kept under the MAC: dropped from the address, the reply is refused.
    invited = _invited("pim")
    forged = str(invited["Reply-To"]).replace(".nl.", ".")
    assert forged != str(invited["Reply-To"])
    send_reply(gateway, "pim@players.example", forged, "ja", answering=invited)
    assert Inbound.objects.order_by("pk").last().code == "join_refused"
    # A name refused on the way: asked again in Dutch, and the new join address keeps Dutch.
    send_reply(gateway, "pim@players.example", invited["Reply-To"], "register x", answering=invited)
    again = sink.to("pim@players.example")[-1]
    assert again["Subject"] == "Scrapyard: kies een andere naam" and ".nl." in str(again["Reply-To"])
    send_reply(gateway, "pim@players.example", again["Reply-To"], "register pimm", answering=again)
    assert sink.to("pim@players.example")[-1]["Subject"] == "Scrapyard: welkom"
    assert Account.objects.get(user__username="pimm").language == "nl"
    # The reply says English: English it is.
    invited = _invited("quinn")
    send_reply(gateway, "quinn@players.example", invited["Reply-To"], "yes", answering=invited,
               headers={"Content-Language": "en"})
    welcome = sink.to("quinn@players.example")[-1]
    assert welcome["Subject"] == "Scrapyard: welcome" and welcome["Content-Language"] == "en"
    assert not Account.objects.filter(user__username="quinn", language="nl").exists()


def test_new_without_a_game_is_answered_in_the_accounts_language(sink, gateway, eager_tasks):
    """`new` alone named no game: its refusal raised UnboundLocalError (gettext's `_` was shadowed
    by a local of the same function) instead of answering."""
    mail_players("piet")
    _speaks("piet", "nl")
    send_reply(gateway, "piet@players.example", SERVER, "new", subject="new")
    assert Inbound.objects.get().code == "invalid_input"
    assert "noem het spel" in text_of(sink.to("piet@players.example")[-1]).lower()


def test_a_dutch_mail_describes_each_move_in_dutch_and_keeps_the_notation_a_reply_types(sink, gateway, eager_tasks):
    """The moves a Dutch player may play are listed in notation, what a reply types, each with its
    Dutch words beside it; the reply with the notation is played; the other player's mail tells
    the move in Dutch words, its notation beside them."""
    ilse, joep = mail_players("ilse", "joep")
    _speaks("ilse", "nl")
    _speaks("joep", "nl")
    game_id = mail_game(ilse, joep, "scavenge")
    mover = ("ilse", "joep")[selectors.game_get(game_id=game_id).to_act[0]]
    other = "joep" if mover == "ilse" else "ilse"
    started = sink.to(f"{mover}@players.example")[0]
    listed = [line for line in text_of(started).splitlines() if line.startswith("    1. ")]
    assert listed, text_of(started)
    notation, described = listed[0][len("    1. "):].split("  (")
    assert notation.startswith("roll ") and described.startswith("worp ") and described.endswith(")"), listed[0]
    send_reply(gateway, f"{mover}@players.example", started["Reply-To"], notation, answering=started)
    assert Inbound.objects.get().code == "played"
    answered = " ".join(text_of(sink.to(f"{mover}@players.example")[-1]).split())
    assert f"Gespeeld in partij {game_id}: {described[:-1]} ({notation}) (zet " in answered, answered
    told = text_of(sink.to(f"{other}@players.example")[-1])
    assert f"{described[:-1]} ({notation})" in " ".join(told.split()), told


def test_an_english_mail_lists_the_notation_alone(sink, gateway, eager_tasks):
    karel, lotte = mail_players("karel", "lotte")
    game_id = mail_game(karel, lotte, "scavenge")
    mover = ("karel", "lotte")[selectors.game_get(game_id=game_id).to_act[0]]
    listed = [line for line in text_of(sink.to(f"{mover}@players.example")[0]).splitlines() if line.startswith("    1. ")]
    assert listed and listed[0].startswith("    1. roll ") and "(" not in listed[0], listed


def test_a_whole_line_copied_from_a_dutch_mails_list_plays_its_move(sink, gateway, eager_tasks):
    """A reply that pastes a listed line whole, number and Dutch words included, was refused as
    notation no move reads; the notation in it names the move."""
    ilse, joep = mail_players("ilse", "joep")
    _speaks("ilse", "nl")
    game_id = mail_game(ilse, joep, "scavenge")
    mover = ("ilse", "joep")[selectors.game_get(game_id=game_id).to_act[0]]
    _speaks(mover, "nl")
    started = sink.to(f"{mover}@players.example")[0]
    listed = [line.strip() for line in text_of(started).splitlines() if line.startswith("    1. ")]
    assert listed and listed[0].endswith(")"), text_of(started)
    seq = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, f"{mover}@players.example", started["Reply-To"], listed[0], answering=started)
    assert Inbound.objects.get().code == "played", text_of(sink.to(f"{mover}@players.example")[-1])
    assert selectors.game_get(game_id=game_id).seq > seq


def test_reading_a_copied_line_takes_linear_time_on_a_line_built_to_be_slow():
    """The copied line's reading is linear: a long line built to make a pattern backtrack."""
    import time

    from mail.services.replies import _notation_of_listed_line

    started = time.process_time()
    assert _notation_of_listed_line("1. " + " " * 200_000 + "x") == "x"
    assert _notation_of_listed_line("a" + " (" * 50_000 + ")") == "a" + " (" * 49_999
    assert time.process_time() - started < 1.0
    assert _notation_of_listed_line("12. fire small  (vuur klein)") == "fire small"
    assert _notation_of_listed_line("fire small") == "fire small"


def test_a_refusal_names_the_games_state_in_the_readers_language(sink, gateway, eager_tasks):
    """"partij 1 is finished": the state was written into the Dutch sentence as the database
    keeps it."""
    iris, joost = mail_players("iris", "joost")
    _speaks("joost", "nl")
    game_id = mail_game(iris, joost, "toy_race")
    assert iris.post(f"/api/games/{game_id}/resign/").status_code in (200, 201)
    last = sink.to("joost@players.example")[-1]
    send_reply(gateway, "joost@players.example", last["Reply-To"], "resign", answering=last)
    said = " ".join(text_of(sink.to("joost@players.example")[-1]).split())
    assert f"partij {game_id} is afgelopen" in said and "finished" not in said, said
