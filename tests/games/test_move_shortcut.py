"""A token caller's move is answered by `games.move_shortcut`, past URL resolution, the browser
middleware and DRF's dispatch; every answer it gives, and every refusal, must be the one the
full chain gives (issue 35). Each request here is sent twice, the shortcut off and on, on a game
the first answer did not change (a refusal changes nothing) or as a replay of the same stored
move, and the two answers compared whole: status, headers and body."""

from __future__ import annotations

import json
from typing import Any

import pytest

from django.core.cache import cache

from games import apis
from games.models import Event, Game
from project import throttles
from tests.api.conftest import Player, register, start_game

pytestmark = pytest.mark.django_db


def _raw_post(player: Player, game_id: int, body: bytes, content_type: str = "application/json", **headers):
    return player.client.post(f"/api/games/{game_id}/moves/", body, content_type=content_type, headers=headers)


def _both(settings, send) -> tuple[Any, Any]:
    settings.SCRAPYARD_MOVE_SHORTCUT = False
    whole_way = send()
    settings.SCRAPYARD_MOVE_SHORTCUT = True
    shortcut = send()
    return whole_way, shortcut


def _same(whole_way, shortcut) -> None:
    assert shortcut.status_code == whole_way.status_code, (shortcut.content, whole_way.content)
    assert _headers(shortcut) == _headers(whole_way)
    assert shortcut.content == whole_way.content


def _headers(answer, leave_out: tuple[str, ...] = ()) -> dict[str, str]:
    """The answer's headers; `RateLimit` by name only, since its count of requests left is one
    less for the second of two requests (its policy is compared whole)."""
    return {name: "(counted)" if name == "RateLimit" else value
            for name, value in answer.headers.items() if name not in leave_out}


def _game() -> tuple[int, Game, Player, Player]:
    game_id, players = start_game("scavenge", 2)
    game = Game.objects.get(pk=game_id)
    mover = players[game.to_act[0]]
    waiting = next(player for player in players if player is not mover)
    return game_id, game, mover, waiting


def _legal(player: Player, game_id: int) -> dict:
    return player.get(f"/api/games/{game_id}/legal-moves/").json()["moves"][0]


def test_a_token_callers_move_is_answered_without_the_view_and_with_it_when_the_shortcut_is_off(settings, monkeypatch):
    game_id, game, mover, _ = _game()
    move = _legal(mover, game_id)

    def not_here(*args, **kwargs):
        raise AssertionError("the view was asked")

    monkeypatch.setattr(apis.MoveSubmitApi, "post", not_here)
    answer = mover.submit(game_id, move, game.seq)
    assert answer.status_code == 201, answer.content
    assert Event.objects.filter(game_id=game_id).count() == game.seq + 1
    settings.SCRAPYARD_MOVE_SHORTCUT = False
    with pytest.raises(AssertionError, match="the view was asked"):
        mover.submit(game_id, move, game.seq)


def test_a_played_move_and_its_replay_are_answered_alike(settings):
    game_id, game, mover, waiting = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq}).encode()
    settings.SCRAPYARD_MOVE_SHORTCUT = False
    first = _raw_post(mover, game_id, body, **{"Idempotency-Key": "k-1"})
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    whole_way, shortcut = _both(settings, lambda: _raw_post(mover, game_id, body, **{"Idempotency-Key": "k-1"}))
    assert shortcut.status_code == 201 and shortcut.headers["Idempotent-Replayed"] == "true"
    _same(whole_way, shortcut)
    # A new move through the shortcut: the view's headers, and an answer of the same shape.
    played = waiting.submit(game_id, _legal(waiting, game_id), game.seq + 1)
    assert played.status_code == 201, played.content
    assert _headers(played, ("Content-Length",)) == _headers(first, ("Content-Length",))
    assert played.json().keys() == first.json().keys()
    assert played.json()["game"].keys() == first.json()["game"].keys()


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("stale", 409, "stale_seq"),
        ("unknown move type", 400, "unknown_move_type"),
        ("move is not an object", 400, "malformed_move"),
        ("unknown field in the move", 400, "unknown_field"),
        ("unknown field in the body", 400, "unknown_field"),
        ("no expected_seq", 400, "invalid_input"),
        ("a list", 400, "invalid_input"),
        ("not JSON", 400, "malformed_json"),
        ("not UTF-8", 400, "invalid_unicode"),
        ("too deep", 400, "too_deep"),
        ("NUL in a string", 400, "invalid_unicode"),
        ("not your turn", 403, "not_your_turn"),
        ("not a player", 403, "not_a_player"),
        ("no such game", 404, "game_not_found"),
        ("key too long", 400, "invalid_input"),
        ("key used for another move", 422, "idempotency_key_reused"),
    ],
)
def test_every_refusal_is_the_views_own(settings, case, status, code):
    game_id, game, mover, waiting = _game()
    legal = _legal(mover, game_id)
    sender, target, headers = mover, game_id, {}
    body: Any = {"move": legal, "expected_seq": game.seq}
    if case == "stale":
        body["expected_seq"] = game.seq + 5
    elif case == "unknown move type":
        body["move"] = {**legal, "type": "no-such-move"}
    elif case == "move is not an object":
        body["move"] = [legal]
    elif case == "unknown field in the move":
        body["move"] = {**legal, "sneaky": 1}
    elif case == "unknown field in the body":
        body["sneaky"] = 1
    elif case == "no expected_seq":
        del body["expected_seq"]
    elif case == "a list":
        body = [body]
    elif case == "not your turn":
        sender = waiting
    elif case == "not a player":
        sender = register()
    elif case == "no such game":
        target = game_id + 10_000
    elif case == "key too long":
        headers = {"Idempotency-Key": "k" * 201}
    elif case == "key used for another move":
        settings.SCRAPYARD_MOVE_SHORTCUT = False
        played = _raw_post(mover, game_id, json.dumps(body).encode(), **{"Idempotency-Key": "used"})
        assert played.status_code == 201
        game.refresh_from_db()
        body, headers = {"move": played.json()["game"]["moves"][0] if played.json()["game"]["moves"] else legal,
                         "expected_seq": game.seq}, {"Idempotency-Key": "used"}
    raw = {
        "not JSON": b'{"move": ',
        "not UTF-8": b'{"move": "\xff", "expected_seq": 0}',
        "too deep": b"[" * 200 + b"]" * 200,
        "NUL in a string": b'{"move": {"type": "a\\u0000"}, "expected_seq": 0}',
    }.get(case) or json.dumps(body).encode()
    seq_before = Game.objects.get(pk=game_id).seq
    whole_way, shortcut = _both(settings, lambda: _raw_post(sender, target, raw, **headers))
    assert whole_way.status_code == status, whole_way.content
    if code is not None:
        assert whole_way.json()["code"] == code
    _same(whole_way, shortcut)
    assert Game.objects.get(pk=game_id).seq == seq_before  # refused twice, changed nothing


def test_the_rate_limit_is_the_one_the_view_counts_and_refuses_alike(settings):
    game_id, game, mover, _ = _game()
    stale = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq + 1}).encode()
    settings.SCRAPYARD_RATE_LIMITS = {**settings.SCRAPYARD_RATE_LIMITS, "account": 4}
    cache.clear()  # the setup's requests were counted (and some ahead) under the suite's high limit
    throttles.forget_allowances()
    answers = []
    for shortcut in (False, True, False, True, False, True):
        settings.SCRAPYARD_MOVE_SHORTCUT = shortcut
        answers.append(_raw_post(mover, game_id, stale))
    # Both paths count in the one counter: four requests pass (refused as stale), then 429s.
    assert [answer.status_code for answer in answers] == [409, 409, 409, 409, 429, 429]
    whole_way, shortcut = answers[4], answers[5]
    assert shortcut.json() == whole_way.json() and shortcut.json()["code"] == "rate_limited"
    assert dict(shortcut.headers).keys() == dict(whole_way.headers).keys() and "Retry-After" in shortcut.headers


@pytest.mark.parametrize("case", ["read-only token", "revoked token", "malformed token header", "text/html accepted",
                                  "form body", "query string", "empty body"])
def test_what_the_shortcut_leaves_to_the_view_is_answered_as_before(settings, case):
    game_id, game, mover, _ = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq + 3}).encode()
    sender, content_type, headers, path_suffix = mover, "application/json", {}, ""
    if case in ("read-only token", "revoked token"):
        made = mover.post("/api/tokens/", {"scopes": ["read"] if case == "read-only token" else ["play"]}).json()
        sender = Player(mover.username, made["token"])
        if case == "revoked token":
            assert mover.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
    elif case == "malformed token header":
        sender = Player(mover.username, "")
    elif case == "text/html accepted":
        headers = {"Accept": "application/json; indent=2"}
    elif case == "form body":
        content_type, body = "application/x-www-form-urlencoded", b"expected_seq=0"
    elif case == "empty body":
        body = b""
    whole_way, shortcut = _both(
        settings,
        lambda: sender.client.post(f"/api/games/{game_id}/moves/{path_suffix}" + ("?x=1" if case == "query string" else ""),
                                   body, content_type=content_type, headers=headers),
    )
    assert whole_way.status_code >= 400
    _same(whole_way, shortcut)


def test_the_shortcut_reads_its_headers_from_the_environ(settings, monkeypatch):
    """`request.headers` is built from every entry of the environ (under granian, the server's
    whole process environment): a shortcut's move never builds it, the token and the
    Idempotency-Key read from the environ as the view would read them."""
    from django.http import request as django_request

    built = []
    original = django_request.HttpRequest.headers.func

    def counted(request):
        built.append(request.path)
        return original(request)

    monkeypatch.setattr(django_request.HttpRequest, "headers", property(counted))
    game_id, game, mover, _ = _game()
    move = _legal(mover, game_id)
    built.clear()
    first = mover.submit(game_id, move, game.seq, **{"Idempotency-Key": "environ-1"})
    replay = mover.submit(game_id, move, game.seq, **{"Idempotency-Key": "environ-1"})
    assert first.status_code == 201 and replay.status_code == 201, (first.content, replay.content)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert built == []
