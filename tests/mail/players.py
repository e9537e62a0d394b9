"""The accounts and games the mail tests play with: accounts whose addresses the sink receives
for, and a two-player game between two of them, begun."""

from __future__ import annotations

from tests.api.conftest import register


def mail_players(*names: str):
    return [register(name, email=f"{name}@players.example") for name in names]


def mail_game(first, second, rules: str = "toy_race", **fields) -> int:
    game_id = first.post("/api/games/", {"rules": rules, "players": 2, **fields}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id
