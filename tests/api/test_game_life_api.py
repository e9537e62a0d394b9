"""A game's life beyond its moves, through the API: resign, abort, leave and cancel an open game,
and a draw by agreement. Each is an event in the log, which replays and verifies like moves."""

from __future__ import annotations

import pytest

from games import audit
from games.models import Game
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


def _game(player, game_id: int) -> dict:
    response = player.get(f"/api/games/{game_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def _verified(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    assert audit.verify_chain(game) == [] and audit.verify_fold(game) == []


def test_resigning_a_two_player_game_hands_the_other_the_win_once():
    game_id, (alice, bob) = start_game("scavenge", 2)
    first = alice.post(f"/api/games/{game_id}/resign/")
    assert first.status_code == 200, first.content
    game = first.json()
    assert game["status"] == "finished" and game["result"]["winners"] == [1] and game["playing"] == [1]
    again = alice.post(f"/api/games/{game_id}/resign/")
    assert again.status_code == 200 and again.json()["seq"] == game["seq"]  # idempotent: no second event
    assert bob.post(f"/api/games/{game_id}/resign/").json()["code"] == "game_not_active"
    texts = [event["text"] for event in alice.get(f"/api/games/{game_id}/events/", notation="true").json()["events"]]
    assert f"{alice.username} resigns" in texts
    _verified(game_id)


def test_in_a_three_player_game_the_others_play_on_after_a_resignation():
    game_id, players = start_game("scavenge", 3)
    before = _game(players[0], game_id)
    quitter = next(seat for seat in range(3) if seat not in before["to_act"])
    game = players[quitter].post(f"/api/games/{game_id}/resign/").json()
    assert game["status"] == "active" and quitter not in game["playing"] and len(game["playing"]) == 2
    acting = players[game["to_act"][0]]
    acting.play_first_legal(game_id)
    _verified(game_id)


def test_abort_is_allowed_until_every_seat_has_moved():
    game_id, (alice, bob) = start_game("toy_race", 2)
    alice.play_first_legal(game_id)
    aborted = bob.post(f"/api/games/{game_id}/abort/")
    assert aborted.status_code == 200, aborted.content
    assert aborted.json()["status"] == "finished" and aborted.json()["result"]["reason"] == "aborted"
    assert aborted.json()["result"]["winners"] == []

    game_id, (alice, bob) = start_game("toy_race", 2)
    alice.play_first_legal(game_id)
    bob.play_first_legal(game_id)
    late = alice.post(f"/api/games/{game_id}/abort/")
    assert late.status_code == 409 and late.json()["code"] == "too_late_to_abort"
    assert _game(alice, game_id)["status"] == "active"
    _verified(game_id)


def test_a_player_leaves_an_open_game_and_its_creator_cancels_it():
    alice, bob, carol = register(), register(), register()
    game_id = alice.post("/api/games/", {"rules": "scavenge", "players": 3}).json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    left = bob.post(f"/api/games/{game_id}/leave/")
    assert left.status_code == 200 and [s["username"] for s in left.json()["seats"]] == [alice.username]
    assert carol.post(f"/api/games/{game_id}/join/").status_code == 201  # the seat is free again
    assert alice.post(f"/api/games/{game_id}/leave/").json()["code"] == "creator_cannot_leave"
    assert carol.post(f"/api/games/{game_id}/cancel/").json()["code"] == "not_the_creator"
    cancelled = alice.post(f"/api/games/{game_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["result"]["reason"] == "cancelled"
    assert bob.post(f"/api/games/{game_id}/join/").json()["code"] == "game_not_open"
    _verified(game_id)


def test_a_draw_needs_every_other_seat_and_lapses_when_its_seat_moves():
    game_id, (alice, bob) = start_game("toy_race", 2)
    assert bob.post(f"/api/games/{game_id}/draw/", {"action": "accept"}).json()["code"] == "no_draw_offered"
    offered = alice.post(f"/api/games/{game_id}/draw/", {"action": "offer"}).json()
    assert offered["draw_offer"]["by"] == 0 and offered["draw_offer"]["accepted"] == []
    assert alice.post(f"/api/games/{game_id}/draw/", {"action": "accept"}).json()["code"] == "no_draw_offered"
    declined = bob.post(f"/api/games/{game_id}/draw/", {"action": "decline"}).json()
    assert declined["draw_offer"] is None and declined["status"] == "active"

    alice.post(f"/api/games/{game_id}/draw/", {"action": "offer"})
    alice.play_first_legal(game_id)  # the offering seat moved: the offer lapsed
    assert _game(bob, game_id)["draw_offer"] is None

    alice.post(f"/api/games/{game_id}/draw/", {"action": "offer"})
    agreed = bob.post(f"/api/games/{game_id}/draw/", {"action": "accept"}).json()
    assert agreed["status"] == "finished" and agreed["result"]["reason"] == "draw_agreed"
    assert agreed["result"]["winners"] == [0, 1] and agreed["result"]["scores"] == [0.5, 0.5]
    bad = alice.post(f"/api/games/{game_id}/draw/", {"action": "maybe"})
    assert bad.status_code == 400
    _verified(game_id)


def test_life_calls_need_a_seat():
    game_id, _ = start_game("toy_race", 2)
    stranger = register()
    for action in ("resign", "abort", "leave", "draw"):
        response = stranger.post(f"/api/games/{game_id}/{action}/", {"action": "offer"})
        assert response.status_code == 403 and response.json()["code"] == "not_a_player", action


def test_the_text_board_is_served_as_plain_text_for_the_callers_seat():
    game_id, (alice, bob) = start_game("terrafex", 2)
    response = alice.client.get(f"/api/games/{game_id}/board.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert "TERRAFEX" in text and all(len(line) <= 78 for line in text.splitlines())
    missing = alice.client.get("/api/games/999999/board.txt")
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


@pytest.mark.parametrize("accept", ["text/plain", "text/plain; charset=utf-8", "text/*", "*/*",
                                    "text/html,application/xhtml+xml,*/*;q=0.8", "application/json, text/plain;q=0.5"])
def test_the_text_board_answers_any_accept_that_admits_plain_text(accept):
    game_id, (alice, bob) = start_game("terrafex", 2)
    response = alice.client.get(f"/api/games/{game_id}/board.txt", HTTP_ACCEPT=accept)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain") and "TERRAFEX" in response.content.decode()
    missing = alice.client.get("/api/games/999999/board.txt", HTTP_ACCEPT=accept)
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


def test_the_text_board_refuses_an_accept_that_admits_no_text_in_json():
    game_id, (alice, bob) = start_game("terrafex", 2)
    response = alice.client.get(f"/api/games/{game_id}/board.txt", HTTP_ACCEPT="application/json")
    assert response.status_code == 406 and response.json()["code"] == "not_acceptable"


def test_a_takeback_agreed_folds_the_game_back_to_before_the_move():
    game_id, (alice, bob) = start_game("terrafex", 2)
    before = _game(alice, game_id)
    mover, other = (alice, bob) if before["to_act"] == [before["your_seat"]] else (bob, alice)
    ahead = _game(mover, game_id)
    mover.play_first_legal(game_id)
    assert other.post(f"/api/games/{game_id}/takeback/", {"action": "request"}).json()["code"] == "takeback_refused"
    asked = mover.post(f"/api/games/{game_id}/takeback/", {"action": "request"}).json()
    assert asked["takeback_request"]["by"] == ahead["your_seat"] and asked["takeback_request"]["undo"] == ahead["seq"] + 1
    declined = other.post(f"/api/games/{game_id}/takeback/", {"action": "decline"}).json()
    assert declined["takeback_request"] is None and _game(mover, game_id)["view"] != ahead["view"]
    mover.post(f"/api/games/{game_id}/takeback/", {"action": "request"})
    assert other.post(f"/api/games/{game_id}/takeback/", {"action": "accept"}).status_code == 200
    undone = _game(mover, game_id)
    assert undone["view"] == ahead["view"] and undone["to_act"] == ahead["to_act"] and undone["takeback_request"] is None
    texts = [e["text"] for e in mover.get(f"/api/games/{game_id}/events/", notation="true").json()["events"]]
    assert texts[-1] == f"takeback: event {ahead['seq'] + 1} undone"
    mover.play_first_legal(game_id)  # and play goes on from there
    _verified(game_id)
    assert audit.verify_snapshots(Game.objects.get(pk=game_id)) == []


def test_a_move_that_brought_chance_or_a_secret_into_play_is_not_taken_back():
    game_id, players = start_game("scavenge", 2)
    mover = players[_game(players[0], game_id)["to_act"][0]]
    mover.play_first_legal(game_id)  # the next seat's roll follows at once: chance came into play
    refused = mover.post(f"/api/games/{game_id}/takeback/", {"action": "request"}).json()
    assert refused["code"] == "takeback_refused" and refused["reason"] == "chance"
    assert _game(mover, game_id)["takeback_request"] is None
