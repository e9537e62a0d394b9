"""A game's chat: players and spectators apart while it runs, both open once it ends; length and
rate limits; a mute per account; never part of the game's state or log."""

from __future__ import annotations

import pytest

from chat.models import ChatMessage
from games.models import Event
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


def _say(player, game_id: int, text: str):
    return player.post(f"/api/games/{game_id}/chat/", {"text": text})


def _read(player, game_id: int) -> list[str]:
    response = player.get(f"/api/games/{game_id}/chat/")
    assert response.status_code == 200, response.content
    return [f"{line['username']}: {line['text']}" for line in response.json()["lines"]]


def test_players_and_spectators_talk_apart_until_the_game_ends(settings):
    game_id, (alice, bob) = start_game("toy_race", 2)
    watcher = register()
    events = Event.objects.filter(game_id=game_id).count()
    assert _say(alice, game_id, "good luck").json()["channel"] == "players"
    assert _say(watcher, game_id, "go bob").json()["channel"] == "spectators"
    assert _read(bob, game_id) == [f"{alice.username}: good luck"]
    assert _read(watcher, game_id) == [f"{watcher.username}: go bob"]
    assert Event.objects.filter(game_id=game_id).count() == events  # never in the game's log
    alice.post(f"/api/games/{game_id}/resign/")
    assert _read(bob, game_id) == [f"{alice.username}: good luck", f"{watcher.username}: go bob"]
    later = bob.get(f"/api/games/{game_id}/chat/", after=ChatMessage.objects.order_by("id").first().pk).json()["lines"]
    assert [line["text"] for line in later] == ["go bob"]


def test_chat_lines_have_limits_and_mutes():
    game_id, (alice, bob) = start_game("toy_race", 2)
    assert _say(alice, game_id, "x" * 501).status_code == 400
    assert _say(alice, game_id, "   ").status_code == 400
    assert _say(alice, game_id, "one\nline\tonly").json()["text"] == "one line only"
    for n in range(9):
        assert _say(alice, game_id, f"line {n}").status_code == 201
    too_fast = _say(alice, game_id, "one more")
    assert too_fast.status_code == 429 and too_fast.json()["code"] == "chat_too_fast"
    assert bob.post("/api/accounts/me/mutes/", {"username": alice.username}).status_code == 204
    assert _read(bob, game_id) == []
    assert bob.post("/api/accounts/me/mutes/", {"username": alice.username, "muted": False}).status_code == 204
    assert len(_read(bob, game_id)) == 10
    assert bob.post("/api/accounts/me/mutes/", {"username": "nobody_at_all"}).status_code == 400
    assert register().get("/api/games/999999/chat/").status_code == 404


def test_a_chat_line_loses_control_characters_and_direction_overrides():
    """The line was one line (whitespace runs joined) but kept a bell, an escape and U+202E, which
    turns the rest of a line around wherever it is shown: in a page, a mail, a stream."""
    game_id, (first, _second) = start_game("toy_race", 2)
    answer = first.post(f"/api/games/{game_id}/chat/", {"text": "gg\u0007 \u202ewp\x1b[2J\r\nbye \u2067x\u2069"})
    assert answer.status_code == 201 and answer.json()["text"] == "gg wp[2J bye x"
    for nothing in ("\u0007", "\u202e \u2066"):
        refused = first.post(f"/api/games/{game_id}/chat/", {"text": nothing})
        assert (refused.status_code, refused.json()["code"]) == (400, "invalid_input")
    assert ChatMessage.objects.count() == 1
