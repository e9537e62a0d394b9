"""Mails read as plain text: the first mover gets one mail at the start (the start and the moves
together), a forfeit's scores are written as people write them, and a word sent after the game
is over is answered by saying so, not by "It is not your turn"."""

from __future__ import annotations

import pytest

from games import selectors
from mail.models import Inbound
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import listed_moves, send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_the_first_mover_gets_one_mail_at_the_start_with_the_moves(sink, gateway, eager_tasks):
    ann, ben = mail_players("ann", "ben")
    game_id = mail_game(ann, ben, "terrafex")
    first = selectors.game_get(game_id=game_id).to_act[0]
    mover, other = (ann, ben)[first], (ann, ben)[1 - first]
    to_mover = sink.to(f"{mover.username}@players.example")
    assert len(to_mover) == 1, [text_of(m).splitlines()[0] for m in to_mover]
    assert "has started" in text_of(to_mover[0]) and listed_moves(to_mover[0])
    to_other = sink.to(f"{other.username}@players.example")
    assert len(to_other) == 1 and "has started" in text_of(to_other[0]) and not listed_moves(to_other[0])
    # The mail asks for the move as a turn mail does: a reply with its number is played.
    send_reply(gateway, f"{mover.username}@players.example", to_mover[0]["Reply-To"], "1", answering=to_mover[0])
    assert Inbound.objects.get().code == "played"


def test_a_forfeits_scores_and_a_word_after_the_end_read_as_people_write(sink, gateway, eager_tasks):
    cat, dan = mail_players("cat", "dan")
    game_id = mail_game(cat, dan, "terrafex")
    started = sink.to("cat@players.example")[0]
    send_reply(gateway, "cat@players.example", started["Reply-To"], "resign", answering=started)
    assert selectors.game_get(game_id=game_id).status == "finished"
    over = [text_of(m) for m in sink.to("dan@players.example") if "is over" in text_of(m)]
    assert over, [text_of(m)[:80] for m in sink.to("dan@players.example")]
    scores = next(line for line in over[-1].splitlines() if line.startswith("Scores: "))
    assert ".0" not in scores and any(ch.isdigit() for ch in scores), scores
    send_reply(gateway, "cat@players.example", started["Reply-To"], "abort", answering=started)
    answer = text_of(sink.to("cat@players.example")[-1])
    assert "not your turn" not in answer
    assert f"Game {game_id} is over" in " ".join(answer.split())


def test_a_move_in_notation_off_turn_is_refused_as_not_your_turn(sink, gateway, eager_tasks):
    """As a number is: the notation the game reads for the seat to act is, for the other seat, a
    move off turn, not an unknown notation whose legal moves are "none"."""
    eve, fay = mail_players("eve", "fay")
    game_id = mail_game(eve, fay, "terrafex")
    first = selectors.game_get(game_id=game_id).to_act[0]
    mover, other = (eve, fay)[first], (eve, fay)[1 - first]
    notation = listed_moves(sink.to(f"{mover.username}@players.example")[0])[0]
    started = sink.to(f"{other.username}@players.example")[0]
    before = selectors.game_get(game_id=game_id).seq
    send_reply(gateway, f"{other.username}@players.example", started["Reply-To"], notation, answering=started)
    answer = " ".join(text_of(sink.to(f"{other.username}@players.example")[-1]).split())
    assert "it is not your turn" in answer and "none" not in answer, answer
    assert selectors.game_get(game_id=game_id).seq == before and Inbound.objects.get().code == "not_your_turn"


def _club_swiss_started(organiser: str, *members: str) -> int:
    """A correspondence Swiss of Terrafex, "Thursday club", the members (mail players) entered and
    round 1 paired: each member's first mail of its game is sent."""
    import datetime as dt

    from django.utils import timezone

    from competition import tournament_service
    from competition.models import Tournament

    players = mail_players(organiser, *members)
    tournament_id = players[0].post("/api/tournaments/", {
        "name": "Thursday club", "kind": "swiss", "rules": "terrafex", "rounds": 3,
        "time_control": {"type": "correspondence", "days": 3},
        "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()}).json()["id"]
    for player in players[1:]:
        assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    Tournament.objects.filter(pk=tournament_id).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()
    return tournament_id


def test_a_tournament_games_first_and_last_mails_name_its_round_and_page(sink, gateway, eager_tasks):
    """A member who plays only by mail got "Scrapyard game N has started" for a club tournament's
    game with no word of which tournament or round it was, nor where the pairings are."""
    tournament_id = _club_swiss_started("org", "gil", "hal")
    page = f"/tournaments/{tournament_id}/"
    started = text_of(sink.to("gil@players.example")[0])
    assert "has started" in started
    said = " ".join(started.split())
    assert "This is round 1 of the tournament Thursday club: its pairings and standings at" in said
    assert page in said

    send_reply(gateway, "gil@players.example", sink.to("gil@players.example")[0]["Reply-To"], "resign",
               answering=sink.to("gil@players.example")[0])
    over = next(text_of(m) for m in sink.to("hal@players.example") if "is over" in text_of(m))
    said = " ".join(over.split())
    assert "This was round 1 of the tournament Thursday club: its standings and next round at" in said
    assert page in said


def test_a_member_asks_for_a_half_point_bye_by_reply_and_takes_it_back(sink, gateway, eager_tasks):
    """A club member who plays only by mail could not ask to sit out a round: the page was the
    only way. Now a reply in the tournament's game does, as the page would, with the page's refusals."""
    from competition.models import Entrant

    tournament_id = _club_swiss_started("org2", "ivy", "jon")
    started = sink.to("ivy@players.example")[0]

    def reply(text):
        send_reply(gateway, "ivy@players.example", started["Reply-To"], text, answering=started)
        answer = " ".join(text_of(sink.to("ivy@players.example")[-1]).split())
        return Inbound.objects.order_by("-id").first().code, answer

    def asked():
        return Entrant.objects.get(tournament_id=tournament_id, user__username="ivy").byes_asked

    code, answer = reply("bye")  # the next round not yet paired: 2
    assert code == "bye_asked" and asked() == [2]
    assert "You sit out round 2 of the tournament Thursday club, for half a point" in answer
    code, answer = reply("Bye cancel 2.")
    assert code == "bye_taken_back" and asked() == []
    assert "You play round 2 of the tournament Thursday club after all." in answer
    code, answer = reply("bye round 1")
    assert code == "round_already_paired" and asked() == []
    assert f"Not done (bye): round 1 of tournament {tournament_id} is already paired" in answer
    code, _ = reply("bye 3")
    assert code == "bye_asked" and asked() == [3]

    kim, lou = mail_players("kim", "lou")
    mail_game(kim, lou, "terrafex")
    plain = sink.to("kim@players.example")[0]
    send_reply(gateway, "kim@players.example", plain["Reply-To"], "bye 2", answering=plain)
    assert Inbound.objects.order_by("-id").first().code == "not_a_tournament_game"
    assert "is not a tournament's game" in " ".join(text_of(sink.to("kim@players.example")[-1]).split())
