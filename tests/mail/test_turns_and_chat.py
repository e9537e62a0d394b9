"""A whole turn in one reply (several moves, by `;` or by line, each a move of its own through
the move service; the first refusal stops the rest) and the game's chat by mail (`say ...`, or
the lines below `chat:`), whose new lines the next mail each player gets shows."""

from __future__ import annotations

import re

import pytest

from chat.models import ChatMessage
from games import selectors
from games.models import Event
from mail.models import Inbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import headline, listed_moves, send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _newest_asking(sink, name: str):
    return [mail for mail in sink.to(f"{name}@players.example") if listed_moves(mail)][-1]


def _mover(game_id: int, players) -> str:
    return players[selectors.game_get(game_id=game_id).to_act[0]].username


def _terrafex_asking(sink, first: str, second: str) -> tuple[int, str, object, int]:
    """A Terrafex game by mail between two new players: its id, the mover, the mail asking for
    its move and the seq it names."""
    players = mail_players(first, second)
    game_id = mail_game(*players, "terrafex")
    mover = _mover(game_id, players)
    return game_id, mover, _newest_asking(sink, mover), selectors.game_get(game_id=game_id).seq


def test_a_terrafex_turn_of_three_actions_in_one_reply(sink, gateway, eager_tasks):
    game_id, mover, asking, before = _terrafex_asking(sink, "amy", "bas")
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], f"1 #{before}; 1\n1", answering=asking)
    moves = list(Event.objects.filter(game_id=game_id, seq__gt=before, kind="move").order_by("seq"))
    assert len(moves) == 3 and len({event.seq for event in moves}) == 3  # three events, one per action
    assert Inbound.objects.get().code == "played"
    answer = sink.to(f"{mover}@players.example")[-1]
    said = headline(answer)
    assert said.startswith(f"Played in game {game_id}: ") and f"(move {before + 1})" in said
    assert f"(move {before + 3})" in " ".join(text_of(answer).split())
    assert "TERRAFEX" in text_of(answer)  # the board as it stands after the turn


def test_the_first_refusal_stops_the_rest_of_the_turn(sink, gateway, eager_tasks):
    cid, dov = mail_players("cid", "dov")
    game_id = mail_game(cid, dov, "terrafex")
    mover = _mover(game_id, (cid, dov))
    asking = _newest_asking(sink, mover)
    before = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], "1; 999; 1", answering=asking)
    assert selectors.game_get(game_id=game_id).seq == before + 1
    inbound = Inbound.objects.get()
    assert (inbound.outcome, inbound.code) == ("refused", "invalid_input")
    words = " ".join(text_of(sink.to(f"{mover}@players.example")[-1]).split())
    assert f"Played in game {game_id}: " in words and f"(move {before + 1})" in words
    assert "Your move '999' was not played (invalid_input)" in words
    # The refusal ends as a sentence and the count reads as English ("The 1 move" did not).
    assert re.search(r"\w\. The move after it was not tried\.", words), words
    assert "Your legal moves now:" in words  # still this seat's turn: the moves again


def test_chat_by_mail_reaches_the_game_and_the_next_mail_of_the_other_player(sink, gateway, eager_tasks):
    eli, fay = mail_players("eli", "fay")
    game_id = mail_game(eli, fay, "toy_race")
    mover = _mover(game_id, (eli, fay))
    other = "fay" if mover == "eli" else "eli"
    # The waiting player chats alone: a line for the chat, nothing played.
    started = sink.to(f"{other}@players.example")[-1]
    send_reply(gateway, f"{other}@players.example", started["Reply-To"], "say Good luck, have fun!", answering=started)
    assert list(ChatMessage.objects.values_list("user__username", "text")) == [(other, "Good luck, have fun!")]
    assert Inbound.objects.get().code == "chatted"
    assert "chat" in headline(sink.to(f"{other}@players.example")[-1])
    # The mover plays and talks below the marker in the same reply.
    asking = _newest_asking(sink, mover)
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], "1\n\nchat:\nThanks, you too.\nSee you at move 10.",
               answering=asking)
    assert list(ChatMessage.objects.order_by("pk").values_list("text", flat=True))[1:] == ["Thanks, you too.", "See you at move 10."]
    assert Inbound.objects.order_by("pk").last().code == "played"
    # Each sees the other's new lines in the next mail about the game, and not their own.
    to_other = text_of(sink.to(f"{other}@players.example")[-1])
    assert f"  {mover}: Thanks, you too." in to_other and f"  {mover}: See you at move 10." in to_other
    assert "Good luck, have fun!" not in to_other
    answered = next(mail for mail in sink.to(f"{mover}@players.example") if headline(mail).startswith("Played in game"))
    assert f"  {other}: Good luck, have fun!" in text_of(answered)


def test_an_outlook_reply_posts_its_chat_and_not_the_mail_it_answers(sink, gateway, eager_tasks):
    """Outlook quotes without ">": under the old mail's headers, the old mail as it was, its
    reply address and unsubscribe link too. Below `chat:` none of it may reach the chat."""
    gus, hal = mail_players("gus", "hal")
    game_id = mail_game(gus, hal, "toy_race")
    mover = _mover(game_id, (gus, hal))
    asking = _newest_asking(sink, mover)
    old = "\n".join(text_of(asking).splitlines())
    body = (f"1\n\nchat:\nYour move.\n\n________________________________\nFrom: Scrapyard <{asking['Reply-To']}>\n"
            f"Sent: Monday, November 23, 2026 10:00 AM\nTo: {mover}@players.example\nSubject: {asking['Subject']}\n\n{old}\n")
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], body, headers={"In-Reply-To": asking["Message-ID"]})
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["Your move."]
    assert Inbound.objects.get().code == "played"
    other = "hal" if mover == "gus" else "gus"
    assert str(asking["Reply-To"]) not in text_of(sink.to(f"{other}@players.example")[-1])


@pytest.mark.parametrize("written", ["2.", "2)", "2. #{seq}"])
def test_a_number_written_as_the_list_writes_it_plays_that_move(sink, gateway, eager_tasks, written):
    """The list numbers its moves "  2. forest grow ..."; a reply of "2." means move 2 too."""
    ivo, jet = mail_players("ivo", "jet")
    game_id = mail_game(ivo, jet, "terrafex")
    mover = _mover(game_id, (ivo, jet))
    asking = _newest_asking(sink, mover)
    before = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], written.format(seq=before), answering=asking)
    assert Inbound.objects.get().code == "played"
    event = Event.objects.get(game_id=game_id, seq=before + 1)
    assert event.kind == "move" and f"Played in game {game_id}: {listed_moves(asking)[1].strip()} " in headline(
        sink.to(f"{mover}@players.example")[-1])


def test_a_digit_python_cannot_count_with_is_answered_as_no_move(sink, gateway, eager_tasks):
    """"²" is a digit to str.isdigit but not to int(): read as a number, the reply raised, was
    never answered, and was read again by every sweep."""
    kai, lex = mail_players("kai", "lex")
    game_id = mail_game(kai, lex, "terrafex")
    mover = _mover(game_id, (kai, lex))
    asking = _newest_asking(sink, mover)
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], "²", answering=asking)
    assert Inbound.objects.get().outcome == "refused"
    assert "was not played" in text_of(sink.to(f"{mover}@players.example")[-1])


def test_a_conditional_line_with_a_digit_python_cannot_count_with_is_answered(sink, gateway, eager_tasks):
    mia, ned = mail_players("mia", "ned")
    game_id = mail_game(mia, ned, "terrafex")
    waiting = ("mia", "ned")[1 - selectors.game_get(game_id=game_id).to_act[0]]
    started = sink.to(f"{waiting}@players.example")[-1]
    send_reply(gateway, f"{waiting}@players.example", started["Reply-To"], "if ² then 1", answering=started)
    assert Inbound.objects.get().outcome == "refused"
    assert "not queued" in text_of(sink.to(f"{waiting}@players.example")[-1])


def test_a_chat_line_longer_than_the_chat_takes_is_posted_whole_in_pieces(sink, gateway, eager_tasks):
    """A paragraph written on one line (or joined again from format=flowed) may run past the
    chat's 500 characters: it was cut there, and the rest lost without a word."""
    from chat import services as chat_services

    oz, pia = mail_players("oz", "pia")
    game_id = mail_game(oz, pia, "toy_race")
    started = sink.to("pia@players.example")[-1]
    said = " ".join(f"word{number}" for number in range(150))  # about 1,000 characters
    assert len(said) > chat_services.MAX_LENGTH
    send_reply(gateway, "pia@players.example", started["Reply-To"], f"say {said}", answering=started)
    posted = list(ChatMessage.objects.order_by("pk").values_list("text", flat=True))
    assert " ".join(posted) == said and all(len(text) <= chat_services.MAX_LENGTH for text in posted)
    assert Inbound.objects.get().code == "chatted" and game_id


def test_a_greeting_and_name_below_the_move_are_not_read_as_moves(sink, gateway, eager_tasks):
    """A Dutch player's reply as people write one: the move, a blank line, a greeting and a name,
    then the quote. The greeting was read as a second move: the move was played, yet the answer
    said in Dutch that 'Succes!' was not (legal moves: "none", in English), and the reply was
    recorded as refused."""
    rob, sam = mail_players("rob", "sam")
    for client in (rob, sam):
        assert client.client.patch("/api/accounts/me/", {"language": "nl"}, format="json").status_code == 200
    game_id = mail_game(rob, sam, "toy_race")
    mover = _mover(game_id, (rob, sam))
    asking = sink.to(f"{mover}@players.example")[-1]
    before = selectors.game_get(game_id=game_id).seq
    quoted = "\n".join(f"> {line}" for line in text_of(asking).splitlines())
    body = f"2 #{before}\n\nSucces!\nBob\n\nOp ma 23 nov 2026 om 10:00 schreef Scrapyard <{asking['Reply-To']}>:\n{quoted}\n"
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], body, headers={"In-Reply-To": asking["Message-ID"]})
    assert selectors.game_get(game_id=game_id).seq == before + 1
    inbound = Inbound.objects.get()
    assert (inbound.outcome, inbound.code) == ("done", "played")
    answer = " ".join(text_of(sink.to(f"{mover}@players.example")[-1]).split())
    assert answer.startswith(f"Gespeeld in partij {game_id}: ") and f"(zet {before + 1})" in answer
    assert "Succes" not in answer and "Bob" not in answer and "niet gespeeld" not in answer and "none" not in answer


def test_a_turn_written_with_blank_lines_between_its_moves_is_played_whole_and_the_greeting_under_it_not(sink, gateway, eager_tasks):
    """Below a blank line a move is still a move (an HTML reply has a blank line between all of
    its lines): the game reads each line there, and the first it does not read ends the moves."""
    game_id, mover, asking, before = _terrafex_asking(sink, "ria", "sef")
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], f"1 #{before}\n\n1\n\n1\n\nGood luck!\nRia", answering=asking)
    assert Event.objects.filter(game_id=game_id, seq__gt=before, kind="move").count() == 3
    inbound = Inbound.objects.get()
    assert (inbound.outcome, inbound.code) == ("done", "played")
    answer = " ".join(text_of(sink.to(f"{mover}@players.example")[-1]).split())
    assert f"(move {before + 3})" in answer and "Good luck" not in answer and "not played" not in answer


def test_a_line_below_the_actions_is_a_move_when_written_as_one_or_read_as_one_by_the_game():
    from django.contrib.auth import get_user_model

    from mail.services import replies

    tim, uma = mail_players("tim", "uma")
    game_id = mail_game(tim, uma, "terrafex")
    game = selectors.game_get(game_id=game_id)
    mover, waiting = (get_user_model().objects.get(username=player.username)
                      for player in sorted((tim, uma), key=lambda player: player.username != _mover(game_id, (tim, uma))))
    notation = selectors.legal_moves_for(game=game, user=mover)["notation"]
    for written in (notation[1], f"  2. {notation[1]}", "2", "2.", "Bob #3"):
        assert replies._written_as_move(game, mover, written), written
    for written in ("Succes!", "Bob", "Groeten, Bob", "If you want a rematch, tell me.", "forest grow 99,99"):
        assert not replies._written_as_move(game, mover, written), written
    assert not replies._written_as_move(game, waiting, notation[1])  # not its turn: the words are its own


def test_a_line_below_the_moves_the_game_does_not_read_is_named_when_the_turn_goes_on(sink, gateway, eager_tasks):
    """A typo below a blank line is not played, but it is not silently dropped either while the
    turn still waits for a move: the answer names it (a greeting after a finished turn is not)."""
    game_id, mover, asking, before = _terrafex_asking(sink, "ria", "sef")
    send_reply(gateway, f"{mover}@players.example", asking["Reply-To"], f"1 #{before}\n\n1\n\nforrest grwo 2,5\nRia",
               answering=asking)
    assert Event.objects.filter(game_id=game_id, seq__gt=before, kind="move").count() == 2
    game = selectors.game_get(game_id=game_id)
    from django.contrib.auth import get_user_model

    assert selectors.legal_moves_for(game=game, user=get_user_model().objects.get(username=mover))["moves"]
    answer = " ".join(text_of(sink.to(f"{mover}@players.example")[-1]).split())
    assert "'forrest grwo 2,5' was not read as a move" in answer and "still your turn" in answer
    assert "Ria" not in answer
