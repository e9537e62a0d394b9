"""Private games: unlisted, seen and joined only with a seat, an invitation by name, or the
invitation link's key; an invitation can be declined."""

from __future__ import annotations

import pytest

from tests.api.conftest import register

pytestmark = pytest.mark.django_db


def _listed(player) -> set[int]:
    return {game["id"] for game in player.get("/api/games/").json()["results"]}


def test_a_private_game_is_seen_and_joined_by_invitation_only():
    host, friend, stranger, linked = register(), register(), register(), register()
    created = host.post("/api/games/", {"rules": "scavenge", "players": 3, "private": True, "invitees": [friend.username]})
    assert created.status_code == 201, created.content
    game = created.json()
    game_id, key = game["id"], game["invitation_key"]
    assert game["private"] is True and key
    assert game_id in _listed(host) and game_id in _listed(friend) and game_id not in _listed(stranger)
    assert [entry["game"] for entry in friend.get("/api/invitations/").json()] == [game_id]

    for path in ("", "events/", "state/", "legal-moves/"):
        refused = stranger.get(f"/api/games/{game_id}/{path}")
        assert refused.status_code == 404 and refused.json()["code"] == "game_not_found", path
    assert stranger.client.get(f"/api/games/{game_id}/board.txt").status_code == 404
    assert stranger.post(f"/api/games/{game_id}/join/").status_code == 404
    assert friend.get(f"/api/games/{game_id}/").json()["invitation_key"] is None  # the key is the host's to share

    assert linked.get(f"/api/games/{game_id}/", invitation=key).status_code == 200
    assert linked.post(f"/api/games/{game_id}/join/", {"invitation": "wrong"}).status_code == 404
    assert linked.post(f"/api/games/{game_id}/join/", {"invitation": key}).status_code == 201
    assert friend.post(f"/api/games/{game_id}/join/").status_code == 201
    assert friend.get(f"/api/games/{game_id}/").json()["status"] == "active"


def test_an_invitation_can_be_declined():
    host, friend = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [friend.username]}).json()["id"]
    assert friend.post(f"/api/games/{game_id}/decline/").status_code == 204
    assert friend.get(f"/api/games/{game_id}/").status_code == 404
    assert friend.get("/api/invitations/").json() == [] and game_id not in _listed(friend)
    assert friend.post(f"/api/games/{game_id}/join/").status_code == 404
    assert register().post(f"/api/games/{game_id}/decline/").status_code == 404


def test_invitees_need_a_private_game_and_real_accounts():
    host = register()
    public = host.post("/api/games/", {"rules": "toy_race", "players": 2, "invitees": [register().username]})
    assert public.status_code == 400 and public.json()["code"] == "invalid_input"
    unknown = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True, "invitees": ["nobody_here"]})
    assert unknown.status_code == 400 and "nobody_here" in unknown.json()["detail"]
    public_game = host.post("/api/games/", {"rules": "toy_race", "players": 2}).json()
    assert public_game["private"] is False and public_game["invitation_key"] is None


# --- a malformed invitation key is a 400, never a 500 (issue 30, point 5) ---------------------


@pytest.mark.parametrize("key", ["%C3%A9", "%F0%9F%8E%B2", "a%20b", "x" * 65])
def test_a_malformed_invitation_key_in_a_link_is_a_400_on_every_game_alike(key):
    host, visitor = register(), register()
    private = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    public = host.post("/api/games/", {"rules": "toy_race", "players": 2}).json()["id"]
    for game_id in (private, public, 999999):
        for path in ("", "events/", "state/", "chat/"):
            answer = visitor.client.get(f"/api/games/{game_id}/{path}?invitation={key}")
            assert (answer.status_code, answer.json()["code"]) == (400, "invalid_invitation"), (game_id, path)
        board = visitor.client.get(f"/api/games/{game_id}/board.txt?invitation={key}")
        assert (board.status_code, board.json()["code"]) == (400, "invalid_invitation")


@pytest.mark.parametrize("key", ["é", "🎲", "a b"])
def test_a_malformed_invitation_key_in_a_join_is_a_400_and_seats_nobody(key):
    host, visitor = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    for target in (game_id, 999999):
        answer = visitor.post(f"/api/games/{target}/join/", {"invitation": key})
        assert (answer.status_code, answer.json()["code"]) == (400, "invalid_invitation"), answer.content
    assert host.get(f"/api/games/{game_id}/").json()["status"] == "open"
    assert len(host.get(f"/api/games/{game_id}/").json()["seats"]) == 1


def test_a_malformed_invitation_key_on_the_game_page_is_a_400_page(client):
    host = register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    page = client.get(f"/games/{game_id}/?invitation=%C3%A9", HTTP_ACCEPT="text/html")
    assert page.status_code == 400 and b"invitation" in page.content


@pytest.mark.parametrize("control", [{"type": ["step"]}, {"type": {"step": 1}}, {"type": None}, {"type": 3}, ["step"]])
def test_a_time_control_type_that_is_not_a_name_is_a_400_on_games_seeks_and_tournaments(control):
    player = register()
    bodies = {
        "/api/games/": {"rules": "toy_race", "players": 2},
        "/api/seeks/": {"rules": "toy_race", "players": 2},
        "/api/tournaments/": {"name": "cup", "kind": "swiss", "rules": "toy_race", "starts_at": "2030-01-01T00:00:00Z"},
    }
    for path, body in bodies.items():
        answer = player.post(path, {**body, "time_control": control})
        assert (answer.status_code, answer.json()["code"]) == (400, "invalid_input"), (path, answer.content)
