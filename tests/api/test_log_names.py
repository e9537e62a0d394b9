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


def test_a_stand_in_bots_turns_are_the_bots_in_the_log_until_the_owner_is_back(settings):
    """Under the `bot` policy a stand-in plays a timed-out seat: the log said nothing of it, and
    credited what the bot played to the seat's owner."""
    import datetime as dt

    from games import time_controls, timeouts
    from games.models import Deadline

    settings.CELERY_TASK_ALWAYS_EAGER = False  # the stand-in's later turns wait: only the timeout's own move is played
    ann, bea = register("ann"), register("bea")
    game_id = ann.post("/api/games/", {"rules": "toy_race", "players": 2, "options": {}, "timeout_policy": "bot",
                                       "time_control": {"type": "step", "seconds": 60}}).json()["id"]
    bea.post(f"/api/games/{game_id}/join/")
    game = ann.get(f"/api/games/{game_id}/").json()
    late = {0: ann, 1: bea}[game["to_act"][0]]
    Deadline.objects.filter(game_id=game_id).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    timeout = timeouts.timeout_apply(game_id=game_id, seq=game["seq"], seat=game["to_act"][0])
    lines = _lines(ann, game_id)
    taken = next(number for number, (text, _) in enumerate(lines) if text == f"bot mcts plays for {late.username}")
    assert lines[taken][1] == late.username  # the owner's seat taken over: the owner's line
    bots_move = next(event for event in ann.client.get(f"/api/games/{game_id}/events/?notation=true",
                                                       format="json").json()["events"] if event["seq"] == timeout.seq)
    assert bots_move["by"] == {"username": None, "bot": {"name": "mcts", "level": None}}

    assert late.post(f"/api/games/{game_id}/return/").status_code == 200
    # a page that has read up to the stand-in's line reads the bot's move as the bot's, then the owner back
    window = ann.client.get(f"/api/games/{game_id}/events/?notation=true&after={taken + 1}", format="json").json()["events"]
    assert window[0]["seq"] == timeout.seq and window[0]["by"]["bot"] == {"name": "mcts", "level": None}
    assert (window[-1]["text"], window[-1]["by"]["username"]) == (f"{late.username} is back and plays again", late.username)
    dutch = _lines(ann, game_id, **DUTCH)
    assert (dutch[taken][0], dutch[-1][0]) == (f"bot mcts speelt voor {late.username}", f"{late.username} is terug en speelt weer")
