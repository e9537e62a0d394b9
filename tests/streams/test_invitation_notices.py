"""Invitations to a private game (made, declined, cancelled, accepted) are told on the invitee's
and the inviter's account feeds and to their webhooks (issue 51, 4): until now only polling
`GET /api/invitations/` showed them."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, override_settings

from hooks import services as hook_services
from hooks.models import Delivery
from tests.api.conftest import register
from tests.streams.test_game_stream import _read, _run

pytestmark = [pytest.mark.django_db(transaction=True)]

TYPES = ["invitation_created", "invitation_declined", "invitation_cancelled", "invitation_accepted"]


def _notices(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _private(host, *invitees) -> int:
    created = host.post("/api/games/", {"rules": "scavenge", "players": 3, "private": True,
                                        "invitees": [invitee.username for invitee in invitees]})
    assert created.status_code == 201, created.content
    return created.json()["id"]


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_the_invitee_and_the_inviter_hear_every_turn_of_an_invitation():
    host, ann, ben, cy = register(), register(), register(), register()
    state = {}

    def invite():
        state["game"] = _private(host, ann, ben, cy)

    def answer():
        game = state["game"]
        assert ann.post(f"/api/games/{game}/decline/").status_code == 204
        assert host.client.delete(f"/api/games/{game}/invitations/{ben.username}/").status_code == 204
        assert cy.post(f"/api/games/{game}/join/").status_code == 201

    async def scenario():
        feeds = {}
        for name, player in (("host", host), ("ann", ann), ("ben", ben), ("cy", cy)):
            headers = {"Authorization": f"Token {player.token}", "Accept": "application/x-ndjson"}
            feeds[name] = await AsyncClient().get("/api/stream/", headers=headers)
        await sync_to_async(invite)()
        created = {name: await _read(feed, lambda t: "invitation_created" in t, limit=10) for name, feed in feeds.items()}
        await sync_to_async(answer)()
        ends = ("invitation_declined", "invitation_cancelled", "invitation_accepted")
        host_text = await _read(feeds["host"], lambda t: all(end in t for end in ends), limit=10)
        told = {name: await _read(feeds[name], lambda t: '"invitation_' in t, limit=10) for name in ("ann", "ben", "cy")}
        return created, host_text, told

    created, host_text, told = _run(scenario)
    game = state["game"]
    host_told = _notices(created["host"] + "\n" + host_text)
    assert sorted(notice["invitee"] for notice in host_told if notice["type"] == "invitation_created") == sorted(
        [ann.username, ben.username, cy.username])  # each once
    for name, player in (("ann", ann), ("ben", ben), ("cy", cy)):
        (notice,) = [notice for notice in _notices(created[name]) if notice["type"] == "invitation_created"]
        assert notice["game"] == game and notice["invitee"] == player.username and notice["inviter"] == host.username
    assert {(notice["type"], notice["invitee"]) for notice in host_told if notice["type"] != "invitation_created"} == {
        ("invitation_declined", ann.username), ("invitation_cancelled", ben.username), ("invitation_accepted", cy.username)}
    assert [notice["type"] for notice in _notices(told["ann"]) if notice["type"].startswith("invitation_")] == ["invitation_declined"]
    assert [notice["type"] for notice in _notices(told["ben"]) if notice["type"].startswith("invitation_")] == ["invitation_cancelled"]
    assert "invitation_accepted" in [notice["type"] for notice in _notices(told["cy"])]


def test_invitations_reach_the_invitees_and_the_inviters_webhooks(loopback_allowed, django_capture_on_commit_callbacks):
    host, ann, ben = register(), register(), register()
    for player in (host, ann, ben):
        answer = player.post("/api/webhooks/", {"url": "http://127.0.0.1:9/hook", "events": TYPES})
        assert answer.status_code == 201, answer.content
    with django_capture_on_commit_callbacks(execute=True):
        game = _private(host, ann, ben)
    with django_capture_on_commit_callbacks(execute=True):
        assert ann.post(f"/api/games/{game}/decline/").status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        assert ben.post(f"/api/games/{game}/join/").status_code == 201
    told = {(row.endpoint.owner.username, row.type, row.payload["data"]["invitee"])
            for row in Delivery.objects.select_related("endpoint__owner")}
    assert told == {
        (host.username, "invitation_created", ann.username), (host.username, "invitation_created", ben.username),
        (ann.username, "invitation_created", ann.username), (ben.username, "invitation_created", ben.username),
        (host.username, "invitation_declined", ann.username), (ann.username, "invitation_declined", ann.username),
        (host.username, "invitation_accepted", ben.username), (ben.username, "invitation_accepted", ben.username),
    }
    assert all(row.game_id == game and row.payload["data"]["game"] == game for row in Delivery.objects.all())
    hook_services.fan_out(game_id=game)  # the game's own news is told as before
    assert not Delivery.objects.exclude(type__startswith="invitation_").exists()  # none subscribed


def test_the_invitation_types_are_in_the_schema(client):
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    schemas = document["components"]["schemas"]
    assert schemas["InvitationNotice"]["properties"]["type"]["enum"] == TYPES
    assert {"$ref": "#/components/schemas/InvitationNotice"} in schemas["AccountStreamItem"]["oneOf"]
    events = schemas["WebhookCreateInputRequest"]["properties"]["events"]["items"]
    named = events.get("enum") or schemas[events["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert set(TYPES) <= set(named)
    assert "delete" in document["paths"]["/api/games/{game_id}/invitations/{username}/"]


def test_an_invitee_who_joined_and_left_may_join_again():
    host, ann = register(), register()
    game = _private(host, ann)
    assert ann.post(f"/api/games/{game}/join/").status_code == 201
    assert ann.post(f"/api/games/{game}/leave/").status_code in (200, 204)
    assert ann.get(f"/api/games/{game}/").status_code == 200
    assert ann.post(f"/api/games/{game}/join/").status_code == 201
