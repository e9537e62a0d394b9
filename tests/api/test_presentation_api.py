"""The game answer carries the rules' presentation for the caller's seat: a panel per seat, the
prompt only for a seat that must act, and the cells the last move touched."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import start_game

pytestmark = pytest.mark.django_db


def test_the_game_answer_carries_panels_a_prompt_and_the_touched_cells():
    game_id, seated = start_game("terrafex", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover = game["to_act"][0]
    mine = seated[mover].get(f"/api/games/{game_id}/").json()["presentation"]
    theirs = seated[1 - mover].get(f"/api/games/{game_id}/").json()["presentation"]
    assert [panel["seat"] for panel in mine["panels"]] == [0, 1]
    assert {panel["name"] for panel in mine["panels"]} == {"White", "Black"}
    assert mine["prompt"].startswith("Turn 1: take an action") and theirs["prompt"] is None
    listed = seated[mover].get(f"/api/games/{game_id}/legal-moves/").json()
    move = next(m for m in listed["moves"] if m["type"] == "mountain" and m["action"] == "start")
    assert seated[mover].submit(game_id, move, listed["seq"]).status_code == 201
    after = seated[1 - mover].get(f"/api/games/{game_id}/").json()["presentation"]
    assert after["touched"] == [",".join(map(str, move["to"]))]
    spectator = APIClient().get(f"/api/games/{game_id}/").json()
    assert spectator["presentation"]["prompt"] is None and len(spectator["presentation"]["panels"]) == 2


def test_a_secret_choice_touches_nothing_and_the_prompt_names_the_secret_step():
    game_id, seated = start_game("terrain_vague", 2, {"board": "random"})
    # Play the clubhouses and the first turn's steps until the wrestling (or a few dozen moves).
    for _ in range(200):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        if game["view"]["phase"] == "wrestle" or game["status"] == "finished":
            break
        seat = game["to_act"][0]
        listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        move = next((m for m in listed["moves"] if m["type"] == "end_step"), listed["moves"][0])
        assert seated[seat].submit(game_id, move, listed["seq"]).status_code == 201
    assert game["view"]["phase"] == "wrestle", "ending every step reaches the first red turn's wrestling"
    chooser = game["to_act"][0]
    shown = seated[chooser].get(f"/api/games/{game_id}/").json()["presentation"]
    assert "will not see them until both have chosen" in shown["prompt"]
    listed = seated[chooser].get(f"/api/games/{game_id}/legal-moves/").json()
    assert seated[chooser].submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    other = seated[1 - chooser].get(f"/api/games/{game_id}/").json()["presentation"]
    assert other["touched"] == []


def test_a_move_whose_public_copy_adds_to_it_reads_in_the_log_as_played():
    """Space Junkyard's end of a move is shown to all with the tile it drew: the other seat's log
    reads it as the move, not as a secret choice."""
    game_id, seated = start_game("space_junkyard", 2)
    for _ in range(60):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        seat = game["to_act"][0]
        listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        ends = [m for m in listed["moves"] if m["type"] in ("end_move", "end_resources")]
        move = ends[0] if ends else listed["moves"][0]
        assert seated[seat].submit(game_id, move, listed["seq"]).status_code == 201
        if move["type"] == "end_move":
            break
    log = seated[1 - seat].get(f"/api/games/{game_id}/events/", notation="true").json()["events"]
    ends = [event for event in log if event["kind"] == "move" and event["payload"]["move"]["type"] == "end_move"]
    assert ends and all(event["text"] != "chose in secret" and "end" in event["text"] for event in ends), [e["text"] for e in ends]


def test_a_mail_renders_the_panels_and_the_prompt_in_text():
    from mail.compose import WIDTH, panel_lines
    from rules import get

    game = get("terrain_vague")
    state = game.setup(2, {}, "ab" * 16)
    acting = game.to_act(state)[0]
    shown = game.presentation(state, acting)
    seats = [{"seat": 0, "username": "ann", "bot": None}, {"seat": 1, "username": None, "bot": {"name": "random", "level": 1}}]
    context = {"presentation": shown, "seat": acting, "game": {"seats": seats, "to_act": [acting], "status": "active"}}
    text = "\n".join(panel_lines(context))
    assert text.startswith("Now: Build the board") and ("ann (Rubbles" in text or "ann (Brambles" in text)
    assert "you, to act" in text
    assert "bot random" in text and "action points" in text
    assert all(len(line) <= WIDTH for line in text.splitlines())
