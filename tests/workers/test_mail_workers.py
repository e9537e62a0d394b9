"""Play by email with real Celery workers and beat, on PostgreSQL and Redis: a whole game played
by replies through the gateway, every mail sent by a worker over SMTP; and a mail the server
would not take at first, sent again by the sweep."""

from __future__ import annotations

import pytest

from games import selectors
from mail.models import Inbound, Outgoing
from tests.api.conftest import register
from tests.mail.smtp import Sink, free_port, guard_of, headline, listed_moves, send_reply
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(180),
]


def _asking(sink, address: str, seq: int):
    """The mail asking for the move at `seq`, once a worker has sent it."""

    def found():
        mails = [m for m in sink.to(address) if listed_moves(m) and guard_of(m) == seq]
        return mails[-1] if mails else None

    return wait_for(found, 30)


def test_workers_carry_a_whole_game_played_by_email(start_worker, sink, gateway):
    start_worker(EMAIL_URL=f"smtp://127.0.0.1:{sink.port}")
    alice, bob = (register(name, email=f"{name}@players.example") for name in ("wanda", "xavier"))
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    players = {0: alice, 1: bob}
    moves = 0
    while (game := selectors.game_get(game_id=game_id)).status != "finished":
        player = players[game.to_act[0]]
        mail = _asking(sink, f"{player.username}@players.example", game.seq)
        send_reply(gateway, f"{player.username}@players.example", mail["Reply-To"], f"1 #{game.seq}", answering=mail)
        wait_for(lambda seq=game.seq: selectors.game_get(game_id=game_id).seq > seq, 30)
        moves += 1
        assert moves < 200
    for name in ("wanda", "xavier"):
        wait_for(lambda name=name: any(" is over: " in headline(m) for m in sink.to(f"{name}@players.example")), 30)
    wait_for(lambda: Inbound.objects.filter(code="played").count() == moves, 30)
    wait_for(lambda: not Outgoing.objects.filter(status="pending").exists(), 30)
    keys = list(Outgoing.objects.values_list("key", flat=True))
    assert len(keys) == len(set(keys)) and len(sink.envelopes()) == len(keys)  # each mail sent once


def test_a_mail_refused_at_first_is_sent_once_the_mail_server_is_back(start_worker):
    from aiosmtpd.controller import Controller

    box = Sink(free_port())  # nothing listens on its port yet
    start_worker(EMAIL_URL=f"smtp://127.0.0.1:{box.port}", SCRAPYARD_MAIL_RETRY_SECONDS="1,1,1,1,1,1,1,1,1,1")
    alice, bob = (register(name, email=f"{name}@players.example") for name in ("yola", "zeke"))
    game_id = alice.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    wait_for(lambda: Outgoing.objects.filter(retries__gte=1, status="pending").exclude(error="").exists(), 30)
    server = Controller(box, hostname="127.0.0.1", port=box.port)
    server.start()
    try:
        wait_for(lambda: not Outgoing.objects.exclude(status="sent").exists(), 60)  # the sweep sends them again
    finally:
        server.stop()
    retried = Outgoing.objects.filter(retries__gte=1)
    assert retried.exists() and len(box.envelopes()) == Outgoing.objects.count()
