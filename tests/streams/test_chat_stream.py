"""A game's chat, live: lines pushed through Redis to the chat stream as `GET /chat/` gives them,
each channel to its own readers, resumable by line id, or read at each re-check where no notice
comes (the embedded default); and a private game's link lets its holder watch the game's stream
and its spectators' chat."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, override_settings

from tests.api.conftest import register, start_game
from tests.streams.test_game_stream import _read, _run, _sse_items

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.redis
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60)  # only the push can bring a line in time
def test_chat_lines_are_pushed_to_their_channels_readers_and_resume_by_id():
    game_id, (alice, bob) = start_game("toy_race", 2)
    watcher = register()

    def say(who, text):
        answer = who.post(f"/api/games/{game_id}/chat/", {"text": text})
        assert answer.status_code == 201, answer.content
        return answer.json()

    async def scenario():
        player = await AsyncClient().get(f"/api/games/{game_id}/chat/stream/", headers={"Authorization": f"Token {bob.token}"})
        spectator = await AsyncClient().get(f"/api/games/{game_id}/chat/stream/",
                                            headers={"Authorization": f"Token {watcher.token}"})
        assert player.status_code == 200 and player["Content-Type"].startswith("text/event-stream")
        await _read(player, lambda t: False, limit=0.3)
        first = await sync_to_async(say)(alice, "good luck")
        aside = await sync_to_async(say)(watcher, "alice will win")
        second = await sync_to_async(say)(alice, "have fun")
        heard = await _read(player, lambda t: len(_sse_items(t)) >= 2, limit=5)
        watched = await _read(spectator, lambda t: len(_sse_items(t)) >= 1, limit=5)
        watched += await _read(spectator, lambda t: False, limit=0.3)
        resumed = await AsyncClient().get(f"/api/games/{game_id}/chat/stream/",
                                          headers={"Authorization": f"Token {bob.token}", "Last-Event-ID": str(first["id"]),
                                                   "Accept": "application/x-ndjson"})
        again = await _read(resumed, lambda t: len(t.split()) >= 1, limit=5)  # a line, past the opening empty one
        return heard, watched, again, (first, aside, second)

    heard, watched, again, (first, aside, second) = _run(scenario)
    listed = bob.get(f"/api/games/{game_id}/chat/").json()["lines"]
    assert _sse_items(heard) == json.loads(json.dumps(listed))
    assert [line["id"] for line in listed] == [first["id"], second["id"]]
    assert f"id: {first['id']}\nevent: chat\n" in heard
    assert [line["text"] for line in _sse_items(watched)] == ["alice will win"]  # players' lines are not theirs yet
    assert [json.loads(line)["id"] for line in again.splitlines() if line.strip()] == [second["id"]]


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_a_chat_stream_resumed_past_the_newest_line_sends_the_next_line_said():
    """A Last-Event-ID past every line (a typo, another server's, a database restored from an older
    backup) kept the stream silent until line ids grew past it: it is read as the newest line, as a
    game stream reads a seq past the game's, so the next line said comes, and no older one."""
    game_id, (alice, bob) = start_game("toy_race", 2)
    said = alice.post(f"/api/games/{game_id}/chat/", {"text": "before"})
    assert said.status_code == 201, said.content

    async def scenario():
        stream = await AsyncClient().get(f"/api/games/{game_id}/chat/stream/",
                                         headers={"Authorization": f"Token {bob.token}", "Last-Event-ID": "999999",
                                                  "Accept": "application/x-ndjson"})
        assert stream.status_code == 200
        await _read(stream, lambda t: False, limit=0.3)
        answer = await sync_to_async(alice.post)(f"/api/games/{game_id}/chat/", {"text": "after"})
        assert answer.status_code == 201, answer.content
        return await _read(stream, lambda t: "after" in t, limit=5)

    heard = [json.loads(line) for line in _run(scenario).splitlines() if line.strip()]
    assert [line["text"] for line in heard] == ["after"]


@override_settings(REDIS_URL="", SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)  # the hub hears nothing: the embedded default
def test_without_notices_the_chat_stream_brings_a_line_said_after_it_opened_at_its_next_re_check():
    """The embedded default (no Redis) has no notice to wake a chat stream: each re-check reads the
    lines after the last one sent, so a line said after the stream opened comes, as a move does."""
    game_id, (alice, bob) = start_game("toy_race", 2)

    async def scenario():
        player = await AsyncClient().get(f"/api/games/{game_id}/chat/stream/", headers={"Authorization": f"Token {bob.token}"})
        opened = await _read(player, lambda t: t.endswith("\n\n"))
        said = await sync_to_async(alice.post)(f"/api/games/{game_id}/chat/", {"text": "a draw?"})
        heard = await _read(player, lambda t: len(_sse_items(t)) >= 1, limit=30)
        return opened, said, heard

    opened, said, heard = _run(scenario)
    assert opened == ": open\n\n" and said.status_code == 201, said.content
    assert [(line["id"], line["text"]) for line in _sse_items(heard)] == [(said.json()["id"], "a draw?")]


def test_a_private_games_link_lets_its_holder_stream_the_game_and_its_chat():
    alice, bob = register(), register()
    game = alice.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()
    key = alice.get(f"/api/games/{game['id']}/").json()["invitation_key"]
    bob.post(f"/api/games/{game['id']}/join/", {"invitation": key})

    async def scenario():
        stranger = await AsyncClient().get(f"/api/games/{game['id']}/stream/")
        stranger_chat = await AsyncClient().get(f"/api/games/{game['id']}/chat/stream/?invitation=wrong")
        holder = await AsyncClient().get(f"/api/games/{game['id']}/stream/?invitation={key}&after=0")
        seen = await _read(holder, lambda t: any(item["seq"] == 1 for item in _sse_items(t)), limit=5)
        holder_chat = await AsyncClient().get(f"/api/games/{game['id']}/chat/stream/?invitation={key}")
        return stranger, stranger_chat, seen, holder_chat

    stranger, stranger_chat, seen, holder_chat = _run(scenario)
    for refused in (stranger, stranger_chat):
        assert (refused.status_code, json.loads(refused.content)["code"]) == (404, "game_not_found")
    assert _sse_items(seen)[0]["kind"] == "created" and holder_chat.status_code == 200
