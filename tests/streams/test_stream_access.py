"""Streams follow their callers: a seat left, a token revoked, a session ended, an invitation
declined change what an open stream sends (or end it with `stream_end`), in SSE and NDJSON alike;
and the game stream starts with the full state (`game_full`)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import AsyncClient, Client, override_settings

from rules.terrain_vague import wrestling
from tests.api.conftest import register, start_game
from tests.streams.test_game_stream import _move, _read, _run, _sse_all, _to_act

pytestmark = [pytest.mark.django_db(transaction=True)]
SSE, NDJSON = "text/event-stream", "application/x-ndjson"


def _all(text: str, kind: str) -> list[dict]:
    if kind == SSE:
        return _sse_all(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _events(text: str, kind: str) -> list[dict]:
    return [item for item in _all(text, kind) if "type" not in item]


def _ended(text: str, kind: str) -> dict | None:
    return next((item for item in _all(text, kind) if item.get("type") == "stream_end"), None)


async def _open(path: str, token: str | None, kind: str):
    headers = {"Accept": kind}
    if token:
        headers["Authorization"] = f"Token {token}"
    response = await AsyncClient().get(path, headers=headers)
    assert response.status_code == 200, response.content
    return response


def _has_full(kind):
    return lambda text: any(item.get("type") == "game_full" for item in _all(text, kind))


# Needs a state item after each move (each move's notice): on the embedded default a re-check sends
# the moves since the last one together, with one state after the last, which the read stops before.
@pytest.mark.redis
@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_a_stream_opened_in_a_seat_shows_the_next_occupant_nothing_secret_after_its_caller_leaves(kind):
    host, bob, carol, dave = register(), register(), register(), register()
    created = host.post("/api/games/", {"rules": "terrain_vague", "players": 3, "options": {"board": "random"}})
    game_id = created.json()["id"]
    assert bob.post(f"/api/games/{game_id}/join/").status_code == 201
    bobs_seat = bob.get(f"/api/games/{game_id}/").json()["your_seat"]

    def leave_and_play():
        assert bob.post(f"/api/games/{game_id}/leave/").status_code in (200, 204)
        left_at = host.get(f"/api/games/{game_id}/").json()["seq"]
        for player in (carol, dave):
            assert player.post(f"/api/games/{game_id}/join/").status_code == 201
        players = {host.get(f"/api/games/{game_id}/").json()["your_seat"]: host}
        for player in (carol, dave):
            players[player.get(f"/api/games/{game_id}/").json()["your_seat"]] = player
        for _ in range(200):  # until the seat's new occupant makes a secret wrestling choice
            game = host.get(f"/api/games/{game_id}/").json()
            if game["status"] != "active":
                break
            mover = game["to_act"][0]
            played = _move(players[mover], game_id)
            if mover == bobs_seat and played["payload"]["move"].get("type") in wrestling.SECRET_TYPES:
                break
        occupant = players[bobs_seat]
        public = {e["seq"]: e for e in register().client.__class__().get(f"/api/games/{game_id}/events/").json()["events"]}
        occupants = {e["seq"]: e for e in occupant.get(f"/api/games/{game_id}/events/").json()["events"]}
        return left_at, public, occupants

    async def scenario():
        stream = await _open(f"/api/games/{game_id}/stream/", bob.token, kind)
        await _read(stream, _has_full(kind))
        left_at, public, occupants = await sync_to_async(leave_and_play)()
        last = max(public)
        text = await _read(stream, lambda t: any(e["seq"] == last for e in _events(t, kind)))
        return text, left_at, public, occupants

    text, left_at, public, occupants = _run(scenario)
    secret = [seq for seq, event in occupants.items() if event["seat"] == bobs_seat and event != public[seq]]
    assert secret, "the new occupant made no secret move: the test proves nothing"
    after_leaving = [event for event in _events(text, kind) if event["seq"] >= left_at]
    assert [event["seq"] for event in after_leaving] == [seq for seq in sorted(public) if seq >= left_at]
    assert after_leaving == [json.loads(json.dumps(public[event["seq"]])) for event in after_leaving]
    states = [item for item in _all(text, kind) if item.get("type") == "game_state" and item["seq"] >= left_at]
    assert states and all(state["legal_moves"] is None for state in states)  # the seat's moves are its occupant's


def _revoke(owner, token_id: int) -> None:
    assert owner.client.delete(f"/api/tokens/{token_id}/").status_code == 204


@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_a_stream_ends_when_its_token_is_revoked_and_sends_nothing_after(kind):
    game_id, players = start_game("scavenge", 2)
    owner = players[0]
    made = owner.post("/api/tokens/", {"scopes": ["read"]}).json()

    async def scenario():
        stream = await _open(f"/api/games/{game_id}/stream/", made["token"], kind)
        feed = await _open("/api/stream/", made["token"], kind)
        await _read(stream, _has_full(kind))
        await sync_to_async(_revoke)(owner, made["id"])
        ended = await _read(stream, lambda t: _ended(t, kind) is not None, limit=5)
        feed_ended = await _read(feed, lambda t: _ended(t, kind) is not None, limit=5)
        played = await sync_to_async(lambda: _move(_to_act(players, game_id), game_id))()
        after = await _read(stream, lambda t: False, limit=1)  # the stream is over: nothing more comes
        return ended, feed_ended, played, after

    ended, feed_ended, played, after = _run(scenario)
    assert _ended(ended, kind) == {"type": "stream_end", "reason": "token_revoked"}
    assert _ended(feed_ended, kind) == {"type": "stream_end", "reason": "token_revoked"}
    assert not any(event["seq"] == played["seq"] for event in _events(ended + after, kind))
    assert after == ""


@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_a_declined_invitees_streams_of_a_private_game_end(kind):
    host, friend = register(), register()
    created = host.post("/api/games/", {"rules": "scavenge", "players": 3, "private": True, "invitees": [friend.username]})
    game_id = created.json()["id"]

    async def scenario():
        stream = await _open(f"/api/games/{game_id}/stream/", friend.token, kind)
        chat = await _open(f"/api/games/{game_id}/chat/stream/", friend.token, kind)
        await _read(stream, _has_full(kind))
        declined = await sync_to_async(friend.post)(f"/api/games/{game_id}/decline/")
        assert declined.status_code in (200, 204), declined.content
        ended = await _read(stream, lambda t: _ended(t, kind) is not None, limit=5)
        await sync_to_async(host.post)(f"/api/games/{game_id}/chat/", {"text": "still there?"})
        chat_ended = await _read(chat, lambda t: _ended(t, kind) is not None, limit=5)
        return ended, chat_ended

    ended, chat_ended = _run(scenario)
    assert _ended(ended, kind) == {"type": "stream_end", "reason": "access_lost"}
    assert _ended(chat_ended, kind) == {"type": "stream_end", "reason": "access_lost"}
    assert "still there?" not in chat_ended


@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_the_game_streams_first_item_is_the_full_state_as_the_caller_sees_it(kind):
    game_id, players = start_game("terrain_vague", 2)
    seated = players[0]
    detail = seated.get(f"/api/games/{game_id}/").json()
    legal = seated.get(f"/api/games/{game_id}/legal-moves/").json()

    async def scenario():
        stream = await _open(f"/api/games/{game_id}/stream/", seated.token, kind)
        watcher = await _open(f"/api/games/{game_id}/stream/", None, kind)
        return await _read(stream, _has_full(kind)), await _read(watcher, _has_full(kind))

    text, watched = _run(scenario)
    first, spectators = _all(text, kind)[0], _all(watched, kind)[0]
    if kind == SSE:
        assert text.startswith(f"id: {detail['seq']}\nevent: game_full\ndata: ")  # Last-Event-ID resumes from it
    assert first["type"] == "game_full" and first["seq"] == detail["seq"]
    assert first["legal_moves"] == legal
    for said in (first, spectators):  # a state item: who is to act, the clocks, the status, for everyone
        assert {key: said[key] for key in ("seq", "status", "to_act", "deadline", "result")} == {
            key: detail[key] for key in ("seq", "status", "to_act", "deadline", "result")}
        assert [entry["due_at"] for entry in said["deadlines"]] == [entry["due_at"] for entry in detail["deadlines"]]
    assert {key: value for key, value in first["game"].items() if key != "deadlines"} == {
        key: value for key, value in detail.items() if key != "deadlines"
    }
    assert spectators["legal_moves"] is None and spectators["game"]["your_seat"] is None
    assert spectators["game"]["view"] != first["game"]["view"]  # each caller's own view


def _signed_in_browser(player) -> Client:
    browser = Client()
    browser.force_login(get_user_model().objects.get(username=player.username))
    return browser


async def _open_in_browser(path: str, browser: Client, kind: str):
    client = AsyncClient()
    client.cookies = browser.cookies
    response = await client.get(path, headers={"Accept": kind})
    assert response.status_code == 200, response.content
    return response


@pytest.mark.redis  # the logout's notice; without Redis a re-check finds the session gone, as the next test finds a flushed one
@pytest.mark.parametrize("kind", [SSE, NDJSON])
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60, SCRAPYARD_TOKEN_CACHE_SECONDS=60)
def test_a_browser_sessions_streams_end_when_it_logs_out_and_send_nothing_after(kind):
    """Nothing is read again for a minute here: the logout itself ends the streams."""
    game_id, players = start_game("scavenge", 2)
    browser = _signed_in_browser(players[0])

    async def scenario():
        stream = await _open_in_browser(f"/api/games/{game_id}/stream/", browser, kind)
        chat = await _open_in_browser(f"/api/games/{game_id}/chat/stream/", browser, kind)
        feed = await _open_in_browser("/api/stream/", browser, kind)
        await _read(stream, _has_full(kind))
        await _read(feed, lambda t: '"game_started"' in t)
        out = await sync_to_async(browser.post)("/logout/")
        assert out.status_code in (200, 302), out.content
        ended = [await _read(one, lambda t: _ended(t, kind) is not None, limit=5) for one in (stream, chat, feed)]
        played = await sync_to_async(lambda: _move(_to_act(players, game_id), game_id))()
        after = await _read(stream, lambda t: False, limit=1)
        return ended, played, after

    ended, played, after = _run(scenario)
    for text in ended:
        assert _ended(text, kind) == {"type": "stream_end", "reason": "session_ended"}
    assert not any(event["seq"] == played["seq"] for event in _events(ended[0] + after, kind))
    assert after == ""


@pytest.mark.parametrize("kind", [SSE, NDJSON])
@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.1, SCRAPYARD_TOKEN_CACHE_SECONDS=0.2)
def test_a_browser_sessions_streams_end_when_it_is_flushed_without_a_logout(kind):
    """A session deleted behind the stream's back (an administrator's flush, an expiry) is found
    when the stream reads it again."""
    game_id, players = start_game("scavenge", 2)
    browser = _signed_in_browser(players[0])

    async def scenario():
        stream = await _open_in_browser(f"/api/games/{game_id}/stream/", browser, kind)
        feed = await _open_in_browser("/api/stream/", browser, kind)
        await _read(stream, _has_full(kind))
        await sync_to_async(lambda: Session.objects.all().delete())()
        return [await _read(one, lambda t: _ended(t, kind) is not None, limit=5) for one in (stream, feed)]

    for text in _run(scenario):
        assert _ended(text, kind) == {"type": "stream_end", "reason": "session_ended"}


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=60)  # only the push or the first pass's check can end it
@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_an_invitation_declined_while_the_stream_opens_still_ends_it(kind, monkeypatch):
    """The decline's notice lands after the stream read the game but before it watches the game's
    channel: the hub counts no notice for a game nobody watches, so the stream checks access on
    its first pass rather than trusting the version it read before the full state."""
    from streams import views

    host, friend = register(), register()
    created = host.post("/api/games/", {"rules": "scavenge", "players": 3, "private": True, "invitees": [friend.username]})
    game_id = created.json()["id"]
    read_full = views._game_full

    def full_then_declined(**arguments):
        full = read_full(**arguments)
        assert friend.post(f"/api/games/{game_id}/decline/").status_code in (200, 204)
        return full

    monkeypatch.setattr(views, "_game_full", full_then_declined)

    async def scenario():
        stream = await _open(f"/api/games/{game_id}/stream/", friend.token, kind)
        return await _read(stream, lambda t: _ended(t, kind) is not None, limit=5)

    assert _ended(_run(scenario), kind) == {"type": "stream_end", "reason": "access_lost"}


@pytest.mark.parametrize("header", ["Token", "Bearer ", "bearer  "])
def test_a_token_keyword_without_a_token_is_a_json_401_on_each_stream(header):
    """A bot whose token variable is empty sends `Bearer ` alone. Each stream refuses it as the API
    refuses it (401, JSON): it was a 500, the refusal's gettext `_` having been shadowed by the
    header's split."""
    game_id, _ = start_game("toy_race", 2)
    paths = ["/api/stream/", f"/api/games/{game_id}/stream/", f"/api/games/{game_id}/chat/stream/"]

    async def scenario():
        return [await AsyncClient(raise_request_exception=False).get(path, headers={"Authorization": header})
                for path in paths]

    for answer in _run(scenario):
        assert answer.status_code == 401 and answer["Content-Type"] == "application/json", answer
        assert json.loads(answer.content)["code"] == "authentication_failed"
    assert Client().get(f"/api/games/{game_id}/", HTTP_AUTHORIZATION=header).status_code == 401  # as the API


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Digest username=\"x\""])
def test_another_schemes_authorization_is_not_read_by_a_stream_as_by_the_api(header):
    """A password-protected proxy in front of a club's server adds `Basic` to every request the
    browser makes: the API reads the session beside it, and the streams refused the page (401).
    Both now read another scheme as no token: the session's player is served, a stranger is a
    stranger."""
    game_id, players = start_game("toy_race", 2)
    user = get_user_model().objects.get(username=players[0].username)
    browser = Client()
    browser.force_login(user)
    paths = ["/api/stream/", f"/api/games/{game_id}/stream/", f"/api/games/{game_id}/chat/stream/"]

    async def scenario():
        client = AsyncClient()
        client.cookies = browser.cookies
        signed_in = [await client.get(path, headers={"Authorization": header}) for path in paths]
        stranger = await AsyncClient(raise_request_exception=False).get("/api/stream/", headers={"Authorization": header})
        return signed_in, stranger

    signed_in, stranger = _run(scenario)
    assert [answer.status_code for answer in signed_in] == [200, 200, 200], [answer.content[:200] for answer in signed_in]
    assert stranger.status_code == 401 and json.loads(stranger.content)["code"] == "not_authenticated"
    mine = browser.get(f"/api/games/{game_id}/", HTTP_AUTHORIZATION=header).json()
    assert mine["your_seat"] is not None


@override_settings(SCRAPYARD_STREAM_RECHECK_SECONDS=0.2)
def test_a_stream_ends_when_its_token_expires_while_it_is_open():
    """Expiry is not a revocation (nothing is published): each stream finds it at its next
    re-check, and ends as docs/streams.md says, with `token_revoked`."""
    import datetime as dt

    from django.utils import timezone

    from accounts.models import ApiToken

    game_id, players = start_game("scavenge", 2)
    made = players[0].post("/api/tokens/", {"scopes": ["read"]}).json()
    ApiToken.objects.filter(pk=made["id"]).update(expires_at=timezone.now() + dt.timedelta(seconds=1.5))
    paths = [f"/api/games/{game_id}/stream/", f"/api/games/{game_id}/chat/stream/", "/api/stream/"]

    async def scenario():
        streams = [await _open(path, made["token"], NDJSON) for path in paths]
        return [await _read(stream, lambda t: _ended(t, NDJSON) is not None, limit=8) for stream in streams]

    for text in _run(scenario):
        assert _ended(text, NDJSON) == {"type": "stream_end", "reason": "token_revoked"}
