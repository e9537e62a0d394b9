"""`GET /api/players/{username}/games/`: a player's finished games as NDJSON, streamed, filtered by
date, game and result; each line a record that `rules.verify` checks alone; a private game's
record only for a caller who sat in it."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse
from rest_framework.test import APIClient

from games import services
from games.models import Game
from rules.verify import verify
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


def _user(player):
    return get_user_model().objects.get(username=player.username)


def _lines(answer) -> list[dict]:
    assert answer.status_code == 200, answer.content
    assert isinstance(answer, StreamingHttpResponse) and answer["Content-Type"] == "application/x-ndjson"
    body = b"".join(answer.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def _export(caller, username: str, **filters):
    client = caller.client if hasattr(caller, "client") else caller
    return _lines(client.get(f"/api/players/{username}/games/", filters, HTTP_ACCEPT="application/x-ndjson"))


def _resigned(players, loser: int, rules_id: str = "toy_race", private: bool = False) -> int:
    host, guest = players
    created = host.post("/api/games/", {"rules": rules_id, "players": 2, "private": private,
                                        **({"invitees": [guest.username]} if private else {})})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert guest.post(f"/api/games/{game_id}/join/").status_code == 201
    services.resign(game_id=game_id, user=_user(players[loser]))
    return game_id


def _finished_on(game_id: int, day: str) -> None:
    Game.objects.filter(pk=game_id).update(finished_at=dt.datetime.fromisoformat(f"{day}T12:00:00+00:00"))


def test_each_line_is_the_games_record_and_verifies_alone():
    alice, bob = register(), register()
    first = _resigned((alice, bob), loser=1)
    second = _resigned((alice, bob), loser=0, rules_id="scavenge")
    lines = _export(APIClient(), alice.username)
    assert [line["game"] for line in lines] == [first, second]
    for line in lines:
        assert line == alice.get(f"/api/games/{line['game']}/record/").json()
        assert verify(line).ok


def test_filters_by_date_game_and_result():
    alice, bob = register(), register()
    won = _resigned((alice, bob), loser=1)
    lost = _resigned((alice, bob), loser=0)
    other_game = _resigned((alice, bob), loser=1, rules_id="scavenge")
    _finished_on(won, "2026-01-10")
    _finished_on(lost, "2026-02-10")
    _finished_on(other_game, "2026-03-10")
    games = lambda **filters: [line["game"] for line in _export(bob, alice.username, **filters)]  # noqa: E731
    assert games() == [won, lost, other_game]
    assert games(since="2026-02-01") == [lost, other_game]
    assert games(until="2026-02-10") == [won, lost]  # a bare date: its whole day
    assert games(since="2026-01-10T13:00:00Z", until="2026-03-01") == [lost]
    assert games(until="9999-12-31") == [won, lost, other_game]  # the last day there is: its next day was an overflow (500)
    assert games(since="0001-01-01", until="9999-12-31T23:59:59Z") == [won, lost, other_game]
    assert games(rules="scavenge") == [other_game]
    assert games(result="won") == [won, other_game]
    assert games(result="lost") == [lost]
    assert games(result="drawn") == [] and games(result="none") == []
    assert [line["game"] for line in _export(alice, bob.username, result="won")] == [lost]


def test_open_and_running_games_are_not_in_it():
    alice, bob = register(), register()
    start_game("toy_race", 2)
    running, seated = start_game("toy_race", 2)
    assert _export(APIClient(), seated[0].username) == []


def test_a_private_game_only_for_its_players():
    alice, bob, stranger = register(), register(), register()
    public = _resigned((alice, bob), loser=1)
    private = _resigned((alice, bob), loser=1, private=True)
    assert [line["game"] for line in _export(alice, alice.username)] == [public, private]
    assert [line["game"] for line in _export(bob, alice.username)] == [public, private]
    assert [line["game"] for line in _export(stranger, alice.username)] == [public]
    assert [line["game"] for line in _export(APIClient(), alice.username)] == [public]


def test_bad_filters_and_unknown_players_are_json_errors():
    alice = register()
    for filters, field in (({"since": "yesterday"}, "since"), ({"until": "2026-13-40"}, "until"),
                           ({"result": "victory"}, "result")):
        answer = APIClient().get(f"/api/players/{alice.username}/games/", filters)
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_input", answer.content
        assert field in answer.json()["fields"]
    missing = APIClient().get("/api/players/nobody-at-all/games/", HTTP_ACCEPT="application/x-ndjson")
    assert missing.status_code == 404 and json.loads(missing.content)["code"] == "player_not_found"
