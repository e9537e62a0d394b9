"""Complete Scavenge games through the API by 2, 3 and 4 clients that play with a purpose: dump
trash on others, fetch the good stuff, run home with it. Every move is picked from the client's
own legal-moves list, so the server decides what is legal; the client only prefers."""

from __future__ import annotations

import hashlib
import random

import pytest

from tests.api.conftest import Player, start_game

pytestmark = pytest.mark.django_db

CENTRE = (4.5, 4.5)


def _square(to) -> tuple[float, float]:
    return CENTRE if to == "centre" else tuple(to)


def _distance(a, b) -> float:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _preference(move: dict, me: dict, view: dict) -> float:
    """Lower is better: dump trash on whoever can be landed on, take the good stuff when clean,
    run home with it; otherwise wander (chasing others only trades trash back and forth)."""
    if move["type"] != "move":
        return 0
    to = _square(move["to"])
    tokens = {_square(s["at"]): s["seat"] for s in view["seats"] if s["seat"] != me["seat"] and s["at"]}
    carrier = view["good_stuff"]["carried_by"] if isinstance(view["good_stuff"], dict) else None
    if carrier == me["seat"]:
        return _distance(to, tuple(me["start"]))
    if to in tokens and (me["trash"] > 0 or carrier == tokens[to]):
        return -10
    if me["trash"] == 0:
        return -10 if move["to"] == "centre" else abs(_distance(to, CENTRE) - 2.5)
    return 0


def _choose(moves: list[dict], view: dict, seat: int, rnd: random.Random) -> dict:
    me = next(s for s in view["seats"] if s["seat"] == seat)
    scored = sorted(moves, key=lambda m: (_preference(m, me, view), rnd.random()))
    return scored[0] if rnd.random() < 0.8 else rnd.choice(moves)


def _play(game_id: int, seated: list[Player], rnd: random.Random) -> tuple[dict, int]:
    game = seated[0].get(f"/api/games/{game_id}/").json()
    for turn in range(3000):
        if game["status"] == "finished":
            return seated[0].get(f"/api/games/{game_id}/").json(), turn
        seat = game["to_act"][0]
        mine = seated[seat].get(f"/api/games/{game_id}/").json()  # the mover's view and moves
        move = _choose(mine["moves"], mine["view"], seat, rnd)
        answer = seated[seat].submit(game_id, move, mine["seq"])
        assert answer.status_code == 201
        game = answer.json()["game"]  # the game after the move: whose turn it is now
    pytest.fail("no winner within 3000 turns")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_complete_scavenge_games_through_the_api(players):
    game_id, seated = start_game("scavenge", players)
    final, turns = _play(game_id, seated, random.Random(players))
    assert final["to_act"] == [] and turns > players
    (winner,) = final["result"]["winners"]
    assert final["result"]["scores"] == [1 if seat == winner else 0 for seat in range(players)]
    winner_seat = next(s for s in final["view"]["seats"] if s["seat"] == winner)
    assert winner_seat["at"] == winner_seat["start"], "the winner brought the good stuff home"
    assert hashlib.sha256(final["seed"].encode()).hexdigest() == final["seed_sha256"]
    refused = seated[0].submit(game_id, {"type": "stay"}, final["seq"])
    assert refused.status_code == 409 and refused.json()["code"] == "game_not_active"
