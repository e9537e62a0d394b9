"""The log names who acted as the log itself tells it: a line of a seat is its player's at that
event (the seat's last `seat_taken` before it), not the seat's player now, so a seat left in the
waiting room and taken by another keeps its earlier lines; a system event names its player once,
in its own words ("ann takes a seat", "ann resigns"), and a move is told beside its player (`by`)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import register

pytestmark = pytest.mark.django_db
DUTCH = {"HTTP_ACCEPT_LANGUAGE": "nl"}


def _seat_changes_hands():
    """ann's game of three: bea takes seat 1 and leaves it, cid takes it, dan seat 2, and the game starts."""
    ann, bea, cid, dan = register("ann"), register("bea"), register("cid"), register("dan")
    game_id = ann.post("/api/games/", {"rules": "toy_race", "players": 3, "options": {}}).json()["id"]
    assert bea.post(f"/api/games/{game_id}/join/").status_code == 201
    assert bea.post(f"/api/games/{game_id}/leave/").status_code in (200, 204)
    for player in (cid, dan):
        assert player.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id, ann, cid


def _lines(reader, game_id: int, after: int = 0, **headers) -> list[tuple[str, str | None]]:
    answer = getattr(reader, "client", reader).get(f"/api/games/{game_id}/events/?notation=true&after={after}", format="json", **headers)
    return [(event["text"], (event["by"] or {}).get("username")) for event in answer.json()["events"]]


def test_each_line_names_who_held_the_seat_then_and_a_system_line_names_it_once():
    game_id, ann, cid = _seat_changes_hands()
    assert ann.play_first_legal(game_id).status_code == 201
    assert cid.post(f"/api/games/{game_id}/draw/", {"action": "offer"}).status_code == 200
    assert ann.post(f"/api/games/{game_id}/resign/").status_code == 200
    step = _lines(ann, game_id)[7][0]
    assert _lines(ann, game_id) == [
        ("game created", None), ("ann takes a seat", "ann"), ("bea takes a seat", "bea"),
        ("bea leaves the seat", "bea"), ("cid takes a seat", "cid"), ("dan takes a seat", "dan"),
        ("game started", None), (step, "ann"), ("cid offers a draw", "cid"), ("ann resigns", "ann"),
    ]
    assert _lines(APIClient(), game_id) == _lines(ann, game_id)  # who played is no seat's secret


def test_a_window_of_the_log_names_its_players_from_the_events_before_it():
    """A mail tells the events since the reader's last move, a page the events it lacks: the seat's
    `seat_taken` lies before them."""
    game_id, ann, cid = _seat_changes_hands()
    ann.play_first_legal(game_id)
    cid.play_first_legal(game_id)
    assert [by for _, by in _lines(ann, game_id, after=7)] == ["ann", "cid"]


def test_a_bot_seat_is_named_as_a_seat_is_and_the_words_follow_the_reader():
    ann = register("ann")
    game_id = ann.post("/api/games/", {"rules": "toy_race", "players": 2, "options": {},
                                       "bots": [{"seat": 1, "bot": "random", "level": 1}]}).json()["id"]
    events = ann.client.get(f"/api/games/{game_id}/events/?notation=true", format="json", **DUTCH).json()["events"]
    taken = events[2]
    assert taken["text"] == "bot random neemt plaats"
    assert taken["by"] == {"username": None, "bot": {"name": "random", "level": 1}}
    assert ann.post(f"/api/games/{game_id}/resign/").status_code == 200
    assert _lines(ann, game_id, **DUTCH)[-1] == ("ann geeft op", "ann")
