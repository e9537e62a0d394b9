"""A small client for the API tests: players with tokens, and a driver that plays a game to its
end through the API alone, choosing random moves from each seat's legal-moves list."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

_names = itertools.count()


class Player:
    def __init__(self, username: str, token: str):
        self.username = username
        self.token = token
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    def get(self, path: str, **params) -> Any:
        return self.client.get(path, params, format="json")

    def post(self, path: str, data: Any = None, **headers) -> Any:
        return self.client.post(path, data, format="json", headers=headers)

    def submit(self, game_id: int, move: Any, expected_seq: int, **headers) -> Any:
        return self.post(f"/api/games/{game_id}/moves/", {"move": move, "expected_seq": expected_seq}, **headers)

    def play_first_legal(self, game_id: int) -> Any:
        """This seat's first legal move, played; its answer (201 asserted)."""
        listed = self.get(f"/api/games/{game_id}/legal-moves/").json()
        answer = self.submit(game_id, listed["moves"][0], listed["seq"])
        assert answer.status_code == 201, answer.content
        return answer


def register(username: str | None = None, email: str = "") -> Player:
    username = username or f"player{next(_names)}"
    response = APIClient().post(
        "/api/accounts/", {"username": username, "password": "correct horse battery", "email": email}, format="json"
    )
    assert response.status_code == 201, response.content
    return Player(username, response.json()["token"])


def start_game(rules_id: str, players: int, options: dict | None = None) -> tuple[int, list[Player]]:
    """A game with every seat taken by a new account; seat i is players[i]."""
    seated = [register() for _ in range(players)]
    created = seated[0].post("/api/games/", {"rules": rules_id, "players": players, "options": options or {}})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    for player in seated[1:]:
        joined = player.post(f"/api/games/{game_id}/join/")
        assert joined.status_code == 201, joined.content
    return game_id, seated


def play_opening(game_id: int, seated: list[Player], moves: int) -> None:
    """`moves` moves, each the first legal move of the first seat to act."""
    for _ in range(moves):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        seated[game["to_act"][0]].play_first_legal(game_id)


def play_to_end(game_id: int, seated: list[Player], rnd: random.Random, max_moves: int = 20_000) -> dict:
    """Random legal moves through the API until the game ends; returns the final game resource.
    Each move's answer carries the game after it (`game`), with the mover's next moves, as a
    client playing on would read it: a seat that acts again plays from that answer (one request
    a move), any other seat asks for its legal moves first (two)."""
    game = seated[0].get(f"/api/games/{game_id}/").json()
    for _ in range(max_moves):
        if game["status"] == "finished":
            return seated[0].get(f"/api/games/{game_id}/").json()
        seat = rnd.choice(game["to_act"])
        if seat == game.get("your_seat") and game.get("moves"):
            listed = game  # the mover's own moves, from the answer to its last move
        else:
            listed = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        assert listed["seq"] == game["seq"] and listed["moves"], listed
        response = seated[seat].submit(game_id, rnd.choice(listed["moves"]), listed["seq"])
        assert response.status_code == 201, response.content
        game = response.json()["game"]
    pytest.fail(f"game {game_id} did not end within {max_moves} moves")


@pytest.fixture
def player() -> Player:
    return register()
