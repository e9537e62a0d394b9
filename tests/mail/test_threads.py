"""One thread per game and recipient, read as a mail program reads the headers: the same subject
(Re: aside) for every mail of the game, a References chain from one root through the mails before,
In-Reply-To naming the mail followed; what is new is the body's first line."""

from __future__ import annotations

import pytest

from games import selectors
from tests.mail.players import mail_game, mail_players
from tests.mail.smtp import headline, listed_moves, send_reply, thread_key

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _latest_asking(sink, address: str):
    asking = [mail for mail in sink.to(address) if listed_moves(mail)]
    return asking[-1] if asking else None


def _game_mails(sink, address: str, game_id: int) -> list:
    return [mail for mail in sink.to(address) if f"Scrapyard game {game_id}:" in str(mail["Subject"])]


def test_a_games_mails_to_each_player_make_one_thread(sink, gateway, eager_tasks):
    ann, bob = mail_players("tann", "tbob")
    game_id = mail_game(ann, bob, "toy_race")
    other_game = mail_game(ann, bob, "toy_race")
    sent = {"tann": [], "tbob": []}
    for _ in range(6):  # three moves each, every one a reply to the mail that asked for it
        game = selectors.game_get(game_id=game_id)
        if game.status != "active":
            break
        name = ("tann", "tbob")[game.to_act[0]]
        asking = next(mail for mail in reversed(_game_mails(sink, f"{name}@players.example", game_id)) if listed_moves(mail))
        sent[name].append(send_reply(gateway, f"{name}@players.example", asking["Reply-To"], "1", answering=asking))
    asking = _game_mails(sink, "tann@players.example", game_id)[-1]
    sent["tann"].append(send_reply(gateway, "tann@players.example", asking["Reply-To"], "board", answering=asking))

    roots = {}
    for name in ("tann", "tbob"):
        mails = _game_mails(sink, f"{name}@players.example", game_id)
        assert len(mails) >= 4
        keys = {thread_key(mail) for mail in mails}
        assert len(keys) == 1, f"{name}'s mails of game {game_id} fall into {len(keys)} threads: {keys}"
        (root, subject), = keys
        assert subject.startswith(f"Scrapyard game {game_id}: toy_race") and "tann" in subject and "tbob" in subject
        roots[name] = root
        # Every mail follows one the reader has (received, or sent as a reply), named last in its chain.
        known = {str(mail["Message-ID"]) for mail in mails} | {str(mail["Message-ID"]) for mail in sent[name]}
        assert len({str(mail["Message-ID"]) for mail in mails}) == len(mails)
        for index, mail in enumerate(mails):
            chain = str(mail["References"]).split()
            assert chain[0] == root
            if index == 0:
                continue
            assert mail["In-Reply-To"] == chain[-1] and chain[-1] in known, (index, chain)
            assert str(mails[index - 1]["Message-ID"]) in chain  # the chain runs through the mail before
        answers = [mail for mail in mails if str(mail["Subject"]).startswith("Re:")]
        assert answers and all(str(answer["In-Reply-To"]) in {str(reply["Message-ID"]) for reply in sent[name]}
                               for answer in answers)
        news = [headline(mail) for mail in mails]
        assert any("has started" in line for line in news) and any("Played in game" in line for line in news)
    assert roots["tann"] != roots["tbob"]
    others = {thread_key(mail) for mail in _game_mails(sink, "tann@players.example", other_game)}
    assert len(others) == 1 and others.isdisjoint({(roots["tann"], subject) for _, subject in others})
