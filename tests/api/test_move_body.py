"""The move POST's body: what it refuses, and how, does not depend on whether the usual body
(`move` and a whole `expected_seq`) is read by the shortcut or by the serializer (issue 35)."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.api.conftest import start_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"move": {"type": "x"}}, 400, "invalid_input"),  # no expected_seq
        ({"move": {"type": "x"}, "expected_seq": -1}, 400, "invalid_input"),
        ({"move": {"type": "x"}, "expected_seq": "zero"}, 400, "invalid_input"),
        ({"move": {"type": "x"}, "expected_seq": True}, 400, "invalid_input"),
        ({"move": {"type": "x"}, "expected_seq": None}, 400, "invalid_input"),
        ({"move": {"type": "x"}, "expected_seq": 0, "sneaky": 1}, 400, "unknown_field"),
        ({"move": {"type": "x"}, "expected_seq": 999}, 409, "stale_seq"),
        ([1, 2], 400, None),
    ],
)
def test_a_body_that_is_not_a_move_is_refused_with_its_code(body, status, code):
    game_id, players = start_game("scavenge", 2)
    mover = players[Game.objects.get(pk=game_id).to_act[0]]
    answer = mover.post(f"/api/games/{game_id}/moves/", body)
    assert answer.status_code == status, answer.content
    if code:
        assert answer.json()["code"] == code


def test_a_whole_expected_seq_as_clients_send_it_reaches_the_rules():
    game_id, players = start_game("scavenge", 2)
    game = Game.objects.get(pk=game_id)
    mover = players[game.to_act[0]]
    answer = mover.post(f"/api/games/{game_id}/moves/", {"move": {"type": "no-such-move"}, "expected_seq": game.seq})
    assert answer.status_code in (400, 422) and answer.json()["code"] not in ("invalid_input", "stale_seq")
    answer = mover.post(f"/api/games/{game_id}/moves/", {"move": {"type": "x"}, "expected_seq": "0" if game.seq == 0
                                                            else str(game.seq)})
    assert answer.json()["code"] != "invalid_input"  # a number in a string still reads as the serializer reads it
