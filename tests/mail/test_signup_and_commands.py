"""Sign-up by mail (one answer a day to an unknown address, completed by replying to it; a forged
From reaches only the real owner, and nothing else happens), and the commands a mail-only player
needs: help built from the installed games, games open, board N."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

import rules
from games import selectors
from mail import compose
from mail import services as mail_services
from mail.models import Inbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
SERVER = "scrapyard@localhost"


@pytest.fixture
def confirming(settings):
    settings.SCRAPYARD_MAIL_VERIFY = True


def _to_server(gateway, sender: str, line: str):
    return send_reply(gateway, sender, SERVER, line, subject=line)


def test_an_unknown_address_joins_by_replying_to_its_one_answer(sink, gateway, eager_tasks, confirming):
    _to_server(gateway, "newt@players.example", "register newt")
    _to_server(gateway, "newt@players.example", "help")  # the same day: no second answer
    answers = sink.to("newt@players.example")
    assert len(answers) == 1, [m["Subject"] for m in answers]
    invitation = answers[0]
    assert str(invitation["Reply-To"]).startswith("join+newt.")
    assert "To join as newt, reply to this mail" in " ".join(text_of(invitation).split())
    assert not get_user_model().objects.filter(username="newt").exists()  # nothing until the reply
    send_reply(gateway, "newt@players.example", invitation["Reply-To"], "yes please", answering=invitation)
    user = get_user_model().objects.get(username="newt")
    assert user.email == "newt@players.example" and not user.has_usable_password()
    assert mail_services.address_verified(user.pk, user.email)
    welcome = sink.to("newt@players.example")[-1]
    link = next(line.strip() for line in text_of(welcome).splitlines() if "/mail/password/" in line)
    page = Client().get(urlsplit(link).path, follow=True)
    assert page.status_code == 200 and b"new_password1" in page.content
    # From now on the address is a player's: its commands are read.
    _to_server(gateway, "newt@players.example", "games")
    assert "You have no open or active games" in text_of(sink.to("newt@players.example")[-1])
    # The welcome's Reply-To is the account's own command address, so a reply to it (the new
    # player's first command) is proven theirs and done at once, whoever else claims the From.
    assert welcome["Reply-To"] == mail_services.command_address(user.pk)
    send_reply(gateway, "newt@players.example", welcome["Reply-To"], "new terrafex", answering=welcome,
               source="127.0.0.2")
    assert "is open" in text_of(sink.to("newt@players.example")[-1])


def test_a_forged_from_reaches_only_the_real_owner_and_nothing_else_happens(sink, gateway, eager_tasks, confirming):
    _to_server(gateway, "vera@players.example", "register mallory")  # mallory writing as vera
    told = sink.envelopes()
    assert [recipients for _, recipients, _ in told] == [["vera@players.example"]]
    invitation = told[0][2]
    # Mallory never sees that mail; a reply claiming vera's address to any join address she can make is refused.
    _to_server(gateway, "mallory@evil.example", "register mallory")
    hers = sink.to("mallory@evil.example")[0]
    send_reply(gateway, "vera@players.example", hers["Reply-To"], "yes", answering=hers)
    assert not get_user_model().objects.exists()
    assert Inbound.objects.order_by("pk").last().code == "join_refused"
    assert len(sink.to("vera@players.example")) == 1 and invitation is not None


def test_help_from_an_unknown_address_is_answered_with_the_help_beside_how_to_join(sink, gateway, eager_tasks):
    _to_server(gateway, "nina@players.example", "help")
    (answer,) = sink.to("nina@players.example")
    shown = text_of(answer)
    assert "To join as nina, reply to this mail" in " ".join(shown.split())
    assert _holds_block(shown, "\n".join(compose.full_help_lines(selectors.rules_catalogue())))
    for game in rules.catalog().values():  # the games installed, each named as new and seek take it
        assert f"  {game.id:<16} {game.title}," in shown


def test_help_lists_the_installed_games_their_options_and_the_reply_words(sink, gateway, eager_tasks):
    mail_players("hana")
    _to_server(gateway, "hana@players.example", "help")
    text = " ".join(text_of(sink.to("hana@players.example")[-1]).split())
    for game in rules.catalog().values():  # what is installed: the real games, and the tests' own
        assert f"{game.id} {game.title}" in text
        for option in game.options:
            assert f"{option.name}=" in text
    assert {"scavenge", "terrafex", "terrain_vague", "space_junkyard"} <= set(rules.catalog())
    for word in ("say <text>", "1 #17; 4; 2", "draw accept", "takeback", "resign", "vacation on", "games open", "board 42"):
        assert word in text, word
    assert "the first line there that is not one of your moves ends them" in text  # a sign-off is not a move
    example = compose.turn_example(selectors.rules_catalogue())  # queued in its game: test_mail_conditionals
    assert example is not None and example.line in text and example.numbered in text


def test_games_open_lists_open_games_and_seeks_and_board_n_answers_with_a_board(sink, gateway, eager_tasks):
    ida, jo, kai = mail_players("ida", "jo", "kai")
    waiting = ida.post("/api/games/", {"rules": "scavenge", "players": 3}).json()["id"]
    _to_server(gateway, "kai@players.example", "seek terrafex")
    _to_server(gateway, "jo@players.example", "games open")
    listed = text_of(sink.to("jo@players.example")[-1])
    assert f"  {waiting}  scavenge, 1 of 3 seats taken (ida)" in listed and f"join {waiting}" in listed
    assert "  kai: terrafex, 2 players" in listed
    game_id = mail_game(ida, jo, "terrafex")
    _to_server(gateway, "kai@players.example", f"board {game_id}")  # a spectator: the public board
    shown = text_of(sink.to("kai@players.example")[-1])
    assert f"The board of Scrapyard game {game_id} (terrafex)" in " ".join(shown.split()) and "TERRAFEX" in shown
    assert Inbound.objects.order_by("pk").last().code == "board"


@pytest.mark.parametrize("line", ["new", "new scavenge players many", "new scavenge seats=2 bogus"])
def test_a_new_command_without_its_game_or_with_a_bad_setting_is_answered_not_a_crash(sink, gateway, eager_tasks, line):
    mail_players("lou")
    _to_server(gateway, "lou@players.example", line)
    handled = Inbound.objects.get(sender="lou@players.example")
    assert handled.code == "invalid_input" and handled.outcome == "refused", (handled.code, handled.detail)
    assert "Not done (new)" in text_of(sink.to("lou@players.example")[-1])


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _holds_block(text: str, block: str) -> bool:
    """Whether the mail's text holds `block`'s lines, one after another and each as it is."""
    lines, wanted = _lines(text), _lines(block.rstrip("\n"))
    return any(lines[start:start + len(wanted)] == wanted for start in range(len(lines) - len(wanted) + 1))


def test_board_n_answers_with_each_games_text_board_line_for_line(sink, gateway, eager_tasks):
    """A multi-line block is already laid out within 78 columns: the answer keeps it as it is
    (re-wrapped, the grid and a legend's lines ran together into one paragraph)."""
    from games import text_board

    (watcher,) = mail_players("wim")
    for number, game in enumerate(rules.catalog().values()):
        seated = mail_players(*(f"p{number}s{seat}" for seat in range(game.min_players)))
        game_id = seated[0].post("/api/games/", {"rules": game.id, "players": game.min_players}).json()["id"]
        for player in seated[1:]:
            assert player.post(f"/api/games/{game_id}/join/").status_code == 201
        _to_server(gateway, "wim@players.example", f"board {game_id}")
        shown = text_of(sink.to("wim@players.example")[-1])
        board = text_board.board_and_panels(game=selectors.game_get(game_id=game_id),
                                            user=get_user_model().objects.get(username=watcher.username))
        assert _holds_block(shown, board), f"{game.id}'s board is not in the answer as it is:\n{shown}"
        assert max(map(len, _lines(shown))) <= 78, game.id


def test_help_to_the_servers_address_keeps_its_layout(sink, gateway, eager_tasks):
    mail_players("hedy")
    _to_server(gateway, "hedy@players.example", "help")
    shown = text_of(sink.to("hedy@players.example")[-1])
    assert _holds_block(shown, "\n".join(compose.full_help_lines(selectors.rules_catalogue())))
    assert any(line.startswith(" " * 24) and line.strip() for line in _lines(shown))  # a wrapped command's second line
    assert max(map(len, _lines(shown))) <= 78


def test_a_name_chosen_below_the_quote_of_the_invitation_is_the_accounts(sink, gateway, eager_tasks, confirming):
    """Thunderbird writes a reply under the quote, its "On ... wrote:" line first: the name the
    reply chooses is read there too (the invited name was kept, and a taken one asked again)."""
    mail_players("wren")
    _to_server(gateway, "wren@elsewhere.example", "register wren")
    invitation = sink.to("wren@elsewhere.example")[-1]
    assert "The name wren is taken" in " ".join(text_of(invitation).split())
    quoted = "\n".join(f"> {line}" for line in text_of(invitation).splitlines())
    send_reply(gateway, "wren@elsewhere.example", invitation["Reply-To"],
               f"On Mon, 23 Nov 2026 at 10:00, Scrapyard wrote:\n{quoted}\n\nregister wren2\n",
               headers={"In-Reply-To": invitation["Message-ID"]})
    assert Inbound.objects.order_by("pk").last().code == "registered"
    assert get_user_model().objects.get(username="wren2").email == "wren@elsewhere.example"


@pytest.mark.parametrize("line", ["join ²", "board ²", "new scavenge players ²", "new scavenge days ³", "new scavenge seats=²"])
def test_a_digit_int_cannot_read_is_answered_not_a_crash(sink, gateway, eager_tasks, line):
    """"²" is a digit to str.isdigit, not to int(): the command raised, was never answered, and
    every sweep read it again."""
    mail_players("max")
    _to_server(gateway, "max@players.example", line)
    handled = Inbound.objects.get(sender="max@players.example")
    assert handled.outcome == "refused", (handled.code, handled.detail)
    assert sink.to("max@players.example")


def test_the_password_link_of_a_real_sites_length_arrives_whole(sink, gateway, eager_tasks, settings):
    """A site's address as long as many are makes the link longer than a line: wrapped at 78
    columns, it was cut in two, and the half a mail program links opened no page."""
    settings.SCRAPYARD_SITE_URL = "https://play.scrapyard-games.example.org"
    mail_players("nora")
    _to_server(gateway, "nora@players.example", "password")
    answer = text_of(sink.to("nora@players.example")[-1])
    link = next(line.strip() for line in answer.splitlines() if "/mail/password/" in line)
    page = Client().get(urlsplit(link).path, follow=True)
    assert page.status_code == 200 and b"new_password1" in page.content, link


@pytest.mark.parametrize(("line", "code"), [("Games.", "games"), ("Help!", "help"), ("board 999.", "game_not_found")])
def test_a_command_ended_as_a_sentence_is_the_command(sink, gateway, eager_tasks, line, code):
    mail_players("opal")
    _to_server(gateway, "opal@players.example", line)
    assert Inbound.objects.get(sender="opal@players.example").code == code
