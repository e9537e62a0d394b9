"""A private game says nothing to anyone who may not see it (issue 30, point 4): every route
answers exactly as for an id no game has, before its seq, status or seats could be told; and a
declined invitee's webhook hears nothing more of it."""

from __future__ import annotations

import re

import pytest

from hooks import services as hook_services
from hooks.models import Delivery
from tests.api.conftest import register

pytestmark = pytest.mark.django_db

UNKNOWN = 999999


def _same_as_unknown(answer, game_id: int, unknown_answer) -> None:
    assert answer.status_code == unknown_answer.status_code == 404, answer.content
    said = re.sub(rf"\b{game_id}\b", "N", answer.content.decode())
    assert said == re.sub(rf"\b{UNKNOWN}\b", "N", unknown_answer.content.decode())


def _private_active_game(host, guest) -> int:
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [guest.username]}).json()["id"]
    assert guest.post(f"/api/games/{game_id}/join/").status_code == 201
    return game_id


@pytest.mark.parametrize("path, body", [
    ("moves/", {"expected_seq": 0, "move": {"type": "roll"}}),
    ("moves/", {"expected_seq": 2, "move": {"type": "roll"}}),
    ("resign/", None), ("abort/", None), ("leave/", None), ("cancel/", None),
    ("draw/", {"action": "offer"}), ("takeback/", {"action": "request"}),
    ("bots/", {"bot": "random"}), ("return/", None), ("join/", None), ("decline/", None),
    ("chat/", {"text": "hello?"}),
])
def test_a_stranger_writing_to_a_private_game_is_told_what_an_unknown_id_tells(path, body):
    host, guest, stranger = register(), register(), register()
    game_id = _private_active_game(host, guest)
    answer = stranger.post(f"/api/games/{game_id}/{path}", body)
    _same_as_unknown(answer, game_id, stranger.post(f"/api/games/{UNKNOWN}/{path}", body))


def test_a_stranger_is_told_nothing_of_an_open_private_game_either():
    host, stranger = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True}).json()["id"]
    for path, body in (("cancel/", None), ("leave/", None), ("bots/", {"bot": "random"}), ("resign/", None)):
        answer = stranger.post(f"/api/games/{game_id}/{path}", body)
        _same_as_unknown(answer, game_id, stranger.post(f"/api/games/{UNKNOWN}/{path}", body))


def test_players_of_a_private_game_still_get_the_real_refusals():
    host, guest = register(), register()
    game_id = _private_active_game(host, guest)
    stale = host.post(f"/api/games/{game_id}/moves/", {"expected_seq": 99, "move": {"type": "roll"}})
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
    assert host.post(f"/api/games/{game_id}/cancel/").json()["code"] == "game_not_open"


def test_a_declined_invitee_gets_no_more_webhook_deliveries(loopback_allowed):
    host, invitee = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [invitee.username]}).json()["id"]
    hook = invitee.post("/api/webhooks/", {"url": "http://127.0.0.1:9/hook", "game": game_id})
    assert hook.status_code == 201, hook.content
    hook_services.fan_out(game_id=game_id)
    before = Delivery.objects.filter(endpoint_id=hook.json()["id"]).count()
    assert invitee.post(f"/api/games/{game_id}/decline/").status_code == 204
    third = register()
    host.post(f"/api/games/{game_id}/bots/", {"bot": "random"})  # the game starts: news an invitee would get
    hook_services.fan_out(game_id=game_id)
    assert Delivery.objects.filter(endpoint_id=hook.json()["id"]).count() == before
    assert third.post(f"/api/webhooks/", {"url": "http://127.0.0.1:9/hook", "game": game_id}).status_code == 404


def test_an_invitee_who_has_not_declined_still_hears_of_the_game(loopback_allowed):
    host, invitee = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [invitee.username]}).json()["id"]
    hook = invitee.post("/api/webhooks/", {"url": "http://127.0.0.1:9/hook", "game": game_id}).json()
    host.post(f"/api/games/{game_id}/bots/", {"bot": "random"})
    hook_services.fan_out(game_id=game_id)
    assert Delivery.objects.filter(endpoint_id=hook["id"]).exists()
