"""Every documented route with a game in its path, every method, answers a stranger asking about
a private game exactly as it answers an id no game has: the same status and the same body (the id
aside). Taken from the schema, so a route added later is checked too (issue 53: the mail reply
address answered 403 for one and 404 for the other)."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from tests.api.conftest import register

pytestmark = pytest.mark.django_db

UNKNOWN = 987654


def _said(answer, game_id: int) -> tuple[int, str]:
    return answer.status_code, re.sub(rf"\b{game_id}\b", "N", answer.content.decode())


def _concrete(path: str, game_id: int, username: str) -> str:
    path = path.replace("{game_id}", str(game_id)).replace("{username}", username)
    return re.sub(r"\{[a-z_]+\}", "1", path)  # any other part of the path: a line, a tournament...


@pytest.fixture(params=["open", "active", "finished"])
def private_game(request):
    host, guest = register(), register()
    created = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [guest.username]})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    if request.param != "open":
        assert guest.post(f"/api/games/{game_id}/join/").status_code == 201
    if request.param == "finished":
        assert guest.post(f"/api/games/{game_id}/resign/").status_code == 200
    return game_id


def test_every_game_route_answers_a_stranger_as_for_no_game(client, private_game):
    document = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    stranger = register()
    stranger.client.raise_request_exception = False
    differences, checked = [], 0
    for path, item in document["paths"].items():
        if "{game_id}" not in path:
            continue
        for method, operation in item.items():
            if "streams" in operation.get("tags", []):
                continue  # the stream server's: below
            answers = []
            for game_id in (private_game, UNKNOWN):
                call = getattr(stranger.client, method)
                url = _concrete(path, game_id, stranger.username)
                answer = call(url) if method in ("get", "delete") else call(url, {}, format="json")
                answers.append(_said(answer, game_id))
            checked += 1
            if answers[0] != answers[1]:
                differences.append((method, path, answers))
    assert checked >= 25
    assert differences == []


def _streamed_said(answer, game_id: int) -> tuple[int, str]:
    if answer.streaming:  # a stream that started: no refusal to compare (and never read it to its end)
        return answer.status_code, "a stream"
    return _said(answer, game_id)


@pytest.mark.django_db(transaction=True)  # the streams read the database on a connection of their own
@pytest.mark.parametrize("kind", ["text/event-stream", "application/x-ndjson"])
def test_every_game_stream_answers_a_stranger_as_for_no_game(client, private_game, kind):
    """The stream routes with a game in their path (the game's and its chat's; the account's has
    none), served as the stream server serves them (ASGI), GET and HEAD alike."""
    document = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    stranger = register()
    headers = {"Accept": kind, "Authorization": f"Token {stranger.token}"}
    streams = [path for path, item in document["paths"].items()
               if "{game_id}" in path and "streams" in item.get("get", {}).get("tags", [])]
    assert len(streams) == 2, streams
    differences = []
    for path in streams:
        for method in ("get", "head"):
            call = async_to_sync(getattr(AsyncClient(), method))
            answers = [_streamed_said(call(_concrete(path, game_id, stranger.username), headers=headers), game_id)
                       for game_id in (private_game, UNKNOWN)]
            assert answers[1][0] == 404, (method, path, answers[1])
            if answers[0] != answers[1]:
                differences.append((method, path, answers))
    assert differences == []
