"""Scoped personal tokens: made, listed, used within their scopes only, expired and revoked."""

from __future__ import annotations

import datetime as dt
import hashlib
import time

import pytest
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import ApiToken
from games import time_controls
from tests.api.conftest import Player, register, start_game

pytestmark = pytest.mark.django_db


def _token(owner: Player, scopes: list[str], **extra) -> str:
    response = owner.post("/api/tokens/", {"scopes": scopes, **extra})
    assert response.status_code == 201, response.content
    return response.json()["token"]


def _as(owner: Player, key: str) -> Player:
    return Player(owner.username, key)


def test_a_token_is_shown_once_and_only_its_digest_is_kept(player):
    made = player.post("/api/tokens/", {"scopes": ["read"], "name": "phone"}).json()
    assert made["token"].startswith("sy_") and made["token"].startswith(made["prefix"])
    assert made["scopes"] == ["read"] and made["name"] == "phone" and made["expires_at"] is None
    listed = player.get("/api/tokens/").json()
    assert [token["id"] for token in listed] == [made["id"]]
    assert "token" not in listed[0]
    row = ApiToken.objects.get(pk=made["id"])
    assert made["token"] not in str(row.__dict__)
    assert row.key_digest == hashlib.sha256(made["token"].encode()).hexdigest()


def test_a_request_outside_the_tokens_scopes_is_refused_naming_the_scope():
    game_id, (first, second) = start_game("scavenge", 2)
    reader = _as(first, _token(first, ["read"]))
    assert reader.get(f"/api/games/{game_id}/").status_code == 200
    assert reader.get(f"/api/games/{game_id}/legal-moves/").status_code == 200
    refused = reader.submit(game_id, {"type": "stay"}, 1)
    assert refused.status_code == 403
    assert refused.json()["code"] == "missing_scope" and "'play'" in refused.json()["detail"]
    assert reader.get("/api/accounts/me/vacation/").json()["code"] == "missing_scope"
    assert reader.post("/api/tokens/", {"scopes": ["read"]}).json()["code"] == "missing_scope"
    player = _as(first, _token(first, ["play"]))
    assert player.get(f"/api/games/{game_id}/").json()["code"] == "missing_scope"
    assert player.post(f"/api/games/{game_id}/join/").json()["code"] != "missing_scope"  # play may try


def test_the_first_token_and_a_session_may_do_everything(player):
    assert player.post("/api/tokens/", {"scopes": ["read", "play", "bot", "webhooks", "account"]}).status_code == 201
    assert player.get("/api/accounts/me/vacation/").status_code == 200


def test_a_scoped_token_gives_another_only_scopes_it_holds(player):
    manager = _as(player, _token(player, ["account", "read"]))
    assert manager.post("/api/tokens/", {"scopes": ["read"]}).status_code == 201
    wider = manager.post("/api/tokens/", {"scopes": ["read", "play"]})
    assert wider.status_code == 403 and wider.json()["code"] == "missing_scope" and "'play'" in wider.json()["detail"]
    assert ApiToken.objects.filter(user__username=player.username).count() == 2


@pytest.mark.parametrize(
    "body",
    [{"scopes": []}, {"scopes": ["admin"]}, {"scopes": "read"}, {}, {"scopes": ["read"], "expires_at": "yesterday"},
     {"scopes": ["read"], "expires_at": "2001-01-01T00:00:00Z"}],
)
def test_bad_token_requests_are_refused_and_make_nothing(player, body):
    response = player.post("/api/tokens/", body)
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    assert not ApiToken.objects.exists()


def test_an_expired_token_stops_working(player, monkeypatch):
    expires = time_controls.now() + dt.timedelta(hours=1)
    reader = _as(player, _token(player, ["read"], expires_at=expires.isoformat()))
    assert reader.get("/api/games/").status_code == 200
    later = expires + dt.timedelta(seconds=1)
    monkeypatch.setattr(time_controls, "now", lambda: later)
    refused = reader.get("/api/games/")
    assert refused.status_code == 401 and refused.json()["code"] == "authentication_failed"
    assert player.get("/api/tokens/").json() == []  # no longer listed as live


def test_a_revoked_token_stops_working_at_once_and_only_its_owner_may_revoke_it(player):
    made = player.post("/api/tokens/", {"scopes": ["read"]}).json()
    reader = _as(player, made["token"])
    stranger = register()
    assert stranger.client.delete(f"/api/tokens/{made['id']}/").json()["code"] == "token_not_found"
    assert reader.get("/api/games/").status_code == 200
    assert player.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
    assert player.client.delete(f"/api/tokens/{made['id']}/").status_code == 204  # again: the same
    assert reader.get("/api/games/").status_code == 401
    assert player.client.delete(f"/api/tokens/{made['id'] + 1000}/").json()["code"] == "token_not_found"


def test_an_account_holds_a_bounded_number_of_live_tokens(player, monkeypatch):
    monkeypatch.setattr(accounts, "TOKENS_PER_ACCOUNT", 2)
    _token(player, ["read"])
    _token(player, ["read"])
    refused = player.post("/api/tokens/", {"scopes": ["read"]})
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_tokens"
    assert ApiToken.objects.count() == 2


def _hearing_revocations() -> None:
    from accounts import auth

    deadline = time.monotonic() + 5
    while not auth.hearing_revocations():
        assert time.monotonic() < deadline, "the revocation listener never subscribed"
        time.sleep(0.01)


def _until(condition, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _revoked_by_another_process(key: str) -> None:
    """What another web process's revocation leaves: the row revoked and, once committed, its
    digest published (this process's memory is not touched directly)."""
    import redis
    from django.conf import settings

    from accounts import auth

    digest = hashlib.sha256(key.encode()).hexdigest()
    ApiToken.objects.filter(key_digest=digest).update(revoked_at=time_controls.now())
    redis.Redis.from_url(settings.REDIS_URL).publish(auth.revocation_channel(), digest)


@pytest.mark.redis
def test_a_process_reads_a_token_once_and_hears_of_a_revocation_elsewhere_at_once(player, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.SCRAPYARD_TOKEN_CACHE_SECONDS = 10
    _hearing_revocations()
    key = _token(player, ["read"])
    reader = _as(player, key)
    assert reader.get("/api/games/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert reader.get("/api/games/").status_code == 200
    assert not any("apitoken" in query["sql"].lower() for query in queries.captured_queries)
    _revoked_by_another_process(key)
    # Heard within moments (a Redis message), not at the end of the 10 s this process keeps tokens.
    assert _until(lambda: reader.get("/api/games/").status_code == 401, seconds=1.0)
    assert reader.get("/api/games/").json()["code"] == "authentication_failed"


@pytest.mark.redis
def test_a_process_that_cannot_hear_revocations_keeps_no_tokens(player, settings):
    from accounts import auth

    settings.SCRAPYARD_TOKEN_CACHE_SECONDS = 10
    _hearing_revocations()
    key = _token(player, ["read"])
    reader = _as(player, key)
    assert reader.get("/api/games/").status_code == 200
    auth._hearing.clear()  # the listener lost Redis
    try:
        ApiToken.objects.filter(key_digest=auth.key_digest(key)).update(revoked_at=time_controls.now())  # unheard
        assert reader.get("/api/games/").status_code == 401
    finally:
        auth._hearing.set()


@pytest.mark.redis
def test_a_revoked_token_never_mints_even_before_its_revocation_is_heard(player, settings):
    from accounts import auth

    settings.SCRAPYARD_TOKEN_CACHE_SECONDS = 10
    _hearing_revocations()
    key = _token(player, ["account", "read"])
    manager = _as(player, key)
    assert manager.get("/api/tokens/").status_code == 200  # now kept in this process's memory
    ApiToken.objects.filter(key_digest=auth.key_digest(key)).update(revoked_at=time_controls.now())  # not yet heard
    minted = manager.post("/api/tokens/", {"scopes": ["read"]})
    assert minted.status_code == 401 and minted.json()["code"] == "authentication_failed"
    assert ApiToken.objects.filter(user__username=player.username).count() == 1


def test_the_first_token_can_be_rotated_and_revoked(player):
    old = player.token
    rotated = player.client.post("/api/accounts/me/token/")
    assert rotated.status_code == 200, rotated.content
    new = rotated.json()["token"]
    assert new != old
    assert _as(player, old).get("/api/games/").status_code == 401
    assert _as(player, new).get("/api/accounts/me/").status_code == 200
    reader = _as(player, _token(_as(player, new), ["read"]))
    assert reader.client.post("/api/accounts/me/token/").json()["code"] == "missing_scope"
    assert reader.client.delete("/api/accounts/me/token/").json()["code"] == "missing_scope"
    assert _as(player, new).client.delete("/api/accounts/me/token/").status_code == 204
    assert _as(player, new).get("/api/games/").status_code == 401
    again = player.client.__class__().post(
        "/api/accounts/token/", {"username": player.username, "password": "correct horse battery"}, format="json"
    )
    assert again.status_code == 200 and again.json()["token"] not in (old, new)
    assert _as(player, again.json()["token"]).get("/api/games/").status_code == 200


def test_each_request_gets_its_own_copy_of_the_cached_account(player, settings):
    from accounts import auth

    settings.SCRAPYARD_TOKEN_CACHE_SECONDS = 10
    first = auth.ScopedTokenAuthentication().authenticate_credentials(player.token)
    second = auth.ScopedTokenAuthentication().authenticate_credentials(player.token)
    assert first[0] == second[0] and first[0] is not second[0]
    first[0].first_name = "changed by one request"
    assert second[0].first_name == "" and auth.ScopedTokenAuthentication().authenticate_credentials(player.token)[0].first_name == ""


def test_head_needs_the_scope_get_needs(player):
    reader = _as(player, _token(player, ["read"]))
    for method in ("get", "head"):
        refused = getattr(reader.client, method)("/api/accounts/me/")
        assert refused.status_code == 403, method
    assert reader.client.head("/api/games/").status_code == 200
    assert _as(player, _token(player, ["account"])).client.head("/api/accounts/me/").status_code == 200


def test_an_etag_is_keyed_with_the_server_secret_so_it_confirms_no_guess_of_the_body(player, settings):
    game_id, (first, _) = start_game("scavenge", 2)
    me = player.client.get("/api/accounts/me/")
    board = first.client.get(f"/api/games/{game_id}/board.txt", HTTP_ACCEPT="text/plain, */*")
    assert me.status_code == 200 and board.status_code == 200
    for answer in (me, board):
        unkeyed = {hashlib.sha256(answer.content).hexdigest()[:32], hashlib.md5(answer.content).hexdigest()}
        assert answer["ETag"].strip('"') not in unkeyed
    settings.SECRET_KEY = "another secret"
    # The same bodies, another key: other ETags (the key, not the body alone, decides them).
    assert player.client.get("/api/accounts/me/")["ETag"] != me["ETag"]
    assert first.client.get(f"/api/games/{game_id}/board.txt", HTTP_ACCEPT="text/plain, */*")["ETag"] != board["ETag"]
    assert player.client.get("/api/accounts/me/", HTTP_IF_NONE_MATCH=me["ETag"]).status_code == 200


@pytest.mark.parametrize("header, answer", [
    ("Token", "Invalid token header. No credentials provided."),
    ("Token two words", "Invalid token header. Token string should not contain spaces."),
    ("Token nosuchkey", "Invalid token."),
])
def test_a_malformed_token_header_is_refused_as_drf_refuses_it(player, header, answer):
    """The header is read from the environ (`accounts.auth`), with DRF's own refusals."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    refused = client.get("/api/tokens/")
    assert refused.status_code == 401 and refused.json()["detail"] == answer, refused.content
    client.credentials(HTTP_AUTHORIZATION=f"token {player.token}")  # the keyword in any case, as DRF reads it
    assert client.get("/api/tokens/").status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {player.token}")  # the same keys as Bearer (RFC 6750)
    assert client.get("/api/tokens/").status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Basic {player.token}")  # another scheme: no caller at all
    assert client.get("/api/tokens/").status_code == 401


def test_cancelling_an_invitation_needs_play_and_a_read_token_changes_nothing():
    host, friend = register(), register()
    game_id = host.post("/api/games/", {"rules": "toy_race", "players": 2, "private": True,
                                        "invitees": [friend.username]}).json()["id"]
    path = f"/api/games/{game_id}/invitations/{friend.username}/"
    refused = _as(host, _token(host, ["read"])).client.delete(path)
    assert refused.status_code == 403, refused.content
    assert refused.json()["code"] == "missing_scope" and "'play'" in refused.json()["detail"]
    assert [entry["game"] for entry in friend.get("/api/invitations/").json()] == [game_id]
    assert _as(host, _token(host, ["play"])).client.delete(path).status_code == 204
    assert friend.get("/api/invitations/").json() == []


def test_muting_an_account_in_chat_is_an_account_setting():
    """`POST /api/accounts/me/mutes/` changes what the account reads in every game's chat, as its
    other settings under `/api/accounts/me/` do: scope `account`, not `play`."""
    player, other = register(), register()
    mute = {"username": other.username}
    refused = _as(player, _token(player, ["read", "play"])).post("/api/accounts/me/mutes/", mute)
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope"
    assert "'account'" in refused.json()["detail"]
    muted = _as(player, _token(player, ["account"])).post("/api/accounts/me/mutes/", mute)
    assert muted.status_code == 204, muted.content
