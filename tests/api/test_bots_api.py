"""Bot seats through the API: the catalogue, seating bots at creation and later, and bot moves
made through the same service as a person's (run here by calling the task's body directly)."""

from __future__ import annotations

from datetime import timedelta
from unittest.mock import patch

import pytest
from django.utils import timezone

import bots
import rules
from consumers import framework
from games import dispatch, services
from games.models import Game
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


def test_bot_catalogue_lists_levels():
    listed = {bot["name"]: bot for bot in register().get("/api/bots/").json()}
    assert set(listed) >= {"random", "mcts"}
    assert listed["mcts"]["levels"] and listed["mcts"]["default_level"] in listed["mcts"]["levels"]


def test_bots_fill_seats_at_creation_and_play_through_the_service(django_capture_on_commit_callbacks, monkeypatch):
    human = register()
    sent = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args, options.get("queue"))))
    with django_capture_on_commit_callbacks(execute=True):
        created = human.post(
            "/api/games/",
            {"rules": "terrafex", "players": 2, "bots": [{"seat": 1, "bot": "random"}]},
        )
    game = created.json()
    assert created.status_code == 201 and game["status"] == "active"
    assert game["seats"][1] == {"seat": 1, "username": None, "bot": {"name": "random", "level": 1}}
    # a bot to act is woken after commit: the bot turns' fan-out, on the bots' queue
    assert ((framework.FAN_OUT, ("bots", game["id"]), "bots") in sent) == (1 in game["to_act"])
    for _ in range(500):
        row = Game.objects.get(pk=game["id"])
        if row.status == "finished":
            break
        if 1 in row.to_act:
            event = services.bot_seat_play(game_id=row.pk, seq=row.seq)
            assert event is not None and event.seat == 1 and event.kind == "move"
        else:
            moves = human.get(f"/api/games/{row.pk}/legal-moves/").json()["moves"]
            assert human.submit(row.pk, moves[0], row.seq).status_code == 201
    assert Game.objects.get(pk=game["id"]).status == "finished"


def test_a_stale_bot_task_does_nothing():
    human = register()
    game = human.post("/api/games/", {"rules": "scavenge", "players": 2, "bots": [{"seat": 1, "bot": "random"}]})
    row = Game.objects.get(pk=game.json()["id"])
    assert services.bot_seat_play(game_id=row.pk, seq=row.seq - 1) is None
    assert Game.objects.get(pk=row.pk).seq == row.seq


def test_seating_a_bot_later_and_bad_bot_requests():
    human = register()
    game_id = human.post("/api/games/", {"rules": "scavenge", "players": 3}).json()["id"]
    seated = human.post(f"/api/games/{game_id}/bots/", {"bot": "mcts", "level": 1})
    assert seated.status_code == 201 and seated.json()["seats"][1]["bot"] == {"name": "mcts", "level": 1}
    for body, code in (({"bot": "deep-blue"}, "unknown_bot"), ({"bot": "mcts", "level": 99}, "invalid_level")):
        response = human.post(f"/api/games/{game_id}/bots/", body)
        assert response.status_code == 400 and response.json()["code"] == code
    stranger = register()
    assert stranger.post(f"/api/games/{game_id}/bots/", {"bot": "random"}).json()["code"] == "not_a_player"
    bad_seats = [{"seat": 0, "bot": "random"}], [{"seat": 5, "bot": "random"}], [{"seat": 1, "bot": "x"}]
    for bots in bad_seats:
        response = human.post("/api/games/", {"rules": "scavenge", "players": 2, "bots": bots})
        assert response.status_code == 400
    assert human.get("/api/games/", mine=1).json()["count"] == 1


def test_a_bot_whose_wake_up_was_lost_is_found_and_woken(django_capture_on_commit_callbacks):
    human = register()
    created = human.post(
        "/api/games/",
        {"rules": "terrafex", "players": 2, "bots": [{"seat": 1, "bot": "random"}]},
    ).json()
    row = Game.objects.get(pk=created["id"])
    if 1 not in row.to_act:  # let the human move until the bot is due
        move = human.get(f"/api/games/{row.pk}/legal-moves/").json()["moves"][0]
        while 1 not in Game.objects.get(pk=row.pk).to_act:
            game = Game.objects.get(pk=row.pk)
            move = human.get(f"/api/games/{row.pk}/legal-moves/").json()["moves"][0]
            assert human.submit(row.pk, move, game.seq).status_code == 201
        row = Game.objects.get(pk=row.pk)
    assert services.bots_stalled(idle_seconds=30) == []  # just moved: not stalled yet
    Game.objects.filter(pk=row.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert services.bots_stalled(idle_seconds=30) == [(row.pk, row.seq)]
    with patch.object(dispatch, "send") as send:
        assert framework.fan_outs_missed(services.BOT_TURNS) == 1  # the consumers' sweep
    send.assert_called_once_with(framework.FAN_OUT, ("bots", row.pk), queue="bots")


def test_a_broker_failure_after_commit_does_not_lose_the_move(django_capture_on_commit_callbacks):
    human = register()
    created = human.post(
        "/api/games/",
        {"rules": "terrafex", "players": 2, "bots": [{"seat": 1, "bot": "random"}], "creator_plays": True},
    ).json()
    game_id = created["id"]
    while 1 in (row := Game.objects.get(pk=game_id)).to_act:  # the bot opens (a turn may take
        # several steps): let it finish. A turn that did not move (None) asked again for ever.
        assert services.bot_seat_play(game_id=game_id, seq=row.seq) is not None, "the bot's turn made no move"
    with patch.object(dispatch, "send", side_effect=ConnectionError("broker down")) as send:
        while 0 in Game.objects.get(pk=game_id).to_act:
            row = Game.objects.get(pk=game_id)
            move = human.get(f"/api/games/{game_id}/legal-moves/").json()["moves"][0]
            with django_capture_on_commit_callbacks(execute=True):
                assert human.submit(game_id, move, row.seq).status_code == 201
            assert Game.objects.get(pk=game_id).seq == row.seq + 1, "the move was stored"
    # the wake-up failed after commit, and the answer was still 201 (the conditional-moves look
    # after each event failed alike)
    wakes = [call.args for call in send.call_args_list if call.args[1][0] == "bots"]
    assert wakes == [(framework.FAN_OUT, ("bots", game_id))]  # once: the move that made it the bot's turn
    assert Game.objects.get(pk=game_id).to_act == [1]


@pytest.mark.parametrize("rules_id", sorted(rules.catalog()))
def test_a_bot_is_told_how_many_actions_its_seat_has_just_made_in_a_row(rules_id, monkeypatch):
    """The count `bots.choose_move` stops a circling bot by (`bots.MOST_ACTIONS_IN_A_ROW`), read
    from the log, against the count of the moves as they were sent."""
    from games.services import bot_turns

    game_id, seated = start_game(rules_id, 2)
    last, in_a_row = None, 0
    for _ in range(24):
        game = Game.objects.get(pk=game_id)
        if game.status != "active" or not game.to_act:
            break
        seat = game.to_act[0]
        assert bot_turns.actions_in_a_row(game_id, seat) == (in_a_row if seat == last else 0), (seat, last)
        seated[seat].play_first_legal(game_id)
        in_a_row, last = (in_a_row + 1 if seat == last else 1), seat
    told = []
    monkeypatch.setattr(bots, "MOST_ACTIONS_IN_A_ROW", 2)
    assert bot_turns.actions_in_a_row(game_id, last) == min(in_a_row, 2)
    real = bots.choose_move
    monkeypatch.setattr(bots, "choose_move", lambda *args, **kwargs: told.append(kwargs["in_a_row"]) or real(*args, **kwargs))
    game = Game.objects.get(pk=game_id)
    if game.status == "active" and game.to_act:
        seat = game.to_act[0]
        game.seats.filter(index=seat).update(bot="random", bot_level=1)
        services.bot_seat_play(game_id=game_id, seq=game.seq)
        assert told == [min(in_a_row, 2) if seat == last else 0]
