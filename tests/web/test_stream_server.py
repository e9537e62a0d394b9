"""The stream server the browser tests' pages use, without a browser: it runs beside the live
server in every configuration, the embedded default (no Redis: its streams re-read the tests'
SQLite file) among them, as `make run` serves the streams in every configuration. Without it the
pages fell back to polling and a test of what a stream pushes could not pass there."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.api.conftest import start_game

pytestmark = [pytest.mark.django_db(transaction=True)]


def _open(port: int, path: str, token: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Authorization": f"Token {token}"})
    response = conn.getresponse()
    assert response.status == 200, response.read()
    return response


def _next_item(response: http.client.HTTPResponse, event: str) -> dict:
    """The data of the next Server-Sent Event named `event` (comments and other items skipped)."""
    named = None
    while True:
        line = response.readline().decode()
        assert line, "the stream ended"
        if line.startswith("event: "):
            named = line[len("event: "):].strip()
        elif line.startswith("data: ") and named == event:
            return json.loads(line[len("data: "):])


def test_the_pages_stream_server_delivers_a_chat_line_and_a_draw_offer_made_after_it_opened(stream_port):
    game_id, (alice, bob) = start_game("toy_race", 2)
    chat = _open(stream_port, f"/api/games/{game_id}/chat/stream/", bob.token)
    game = _open(stream_port, f"/api/games/{game_id}/stream/", bob.token)
    assert chat.readline() == b": open\n"  # the chat stream is open: the line comes after
    opened_at = _next_item(game, "game_full")["seq"]

    said = alice.post(f"/api/games/{game_id}/chat/", {"text": "a draw?"})
    assert said.status_code == 201, said.content
    offered = alice.post(f"/api/games/{game_id}/draw/", {"action": "offer"})
    assert offered.status_code == 200, offered.content

    line = _next_item(chat, "chat")
    assert (line["id"], line["text"], line["username"]) == (said.json()["id"], "a draw?", alice.username)
    event = _next_item(game, "system")
    assert event["seq"] > opened_at and event["payload"]["type"] == "draw_offered"
    chat.close()
    game.close()
