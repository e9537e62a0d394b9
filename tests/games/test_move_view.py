"""A token caller's move goes the one way every request goes: the middleware, URL resolution and
DRF's dispatch on `apikit.views.ScopedApi` (issue 50: no shortcut in front of the view). The
generic path is made cheap instead: a plain JSON body read in one step (`ApiRequest`), no
QueryDict or Accept parsing for a request without them, DRF's Allow and Vary worked out once per
view class. These tests hold the answers to what they were: every refusal its stable code, the
headers of a view's answer, and a body DRF's way when it is not plain JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework import negotiation

from games.models import Event, Game
from project import throttles
from tests.api.conftest import Player, register, start_game

pytestmark = pytest.mark.django_db


def _raw_post(player: Player, game_id: int, body: bytes, content_type: str = "application/json", **headers):
    return player.client.post(f"/api/games/{game_id}/moves/", body, content_type=content_type, headers=headers)


def _game() -> tuple[int, Game, Player, Player]:
    game_id, players = start_game("scavenge", 2)
    game = Game.objects.get(pk=game_id)
    mover = players[game.to_act[0]]
    waiting = next(player for player in players if player is not mover)
    return game_id, game, mover, waiting


def _legal(player: Player, game_id: int) -> dict:
    return player.get(f"/api/games/{game_id}/legal-moves/").json()["moves"][0]


def test_a_plain_json_move_is_read_without_drfs_parser_selection(monkeypatch):
    game_id, game, mover, _ = _game()
    move = _legal(mover, game_id)

    def not_here(*args, **kwargs):
        raise AssertionError("DRF chose a parser")

    monkeypatch.setattr(negotiation.DefaultContentNegotiation, "select_parser", not_here)
    answer = mover.submit(game_id, move, game.seq)
    assert answer.status_code == 201, answer.content
    assert Event.objects.filter(game_id=game_id).count() == game.seq + 1
    # A body with a charset parameter is DRF's to read: its parser selection is asked.
    body = json.dumps({"move": move, "expected_seq": game.seq + 1}).encode()
    with pytest.raises(AssertionError, match="DRF chose a parser"):
        _raw_post(mover, game_id, body, content_type="application/json; charset=utf-8")


def test_a_move_with_a_charset_is_played_as_a_plain_one():
    game_id, game, mover, _ = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq}).encode()
    answer = _raw_post(mover, game_id, body, content_type="application/json; charset=utf-8")
    assert answer.status_code == 201, answer.content


def test_a_played_move_and_its_replay_carry_the_views_headers():
    game_id, game, mover, waiting = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq}).encode()
    first = _raw_post(mover, game_id, body, **{"Idempotency-Key": "k-1"})
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    replay = _raw_post(mover, game_id, body, **{"Idempotency-Key": "k-1"})
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == first.json()
    for answer in (first, replay):
        assert answer.headers["Allow"] == "POST, OPTIONS"
        assert answer.headers["Vary"] == "Accept, Accept-Language"  # its errors' detail follows the reader's language
        assert answer.headers["Content-Language"] == "en"
        assert answer.headers["Content-Type"] == "application/json"
        assert int(answer.headers["Content-Length"]) == len(answer.content)
        assert answer.headers["X-Frame-Options"] == "DENY" and "Content-Security-Policy" in answer.headers
        assert answer.headers["RateLimit-Policy"].startswith('"account"')
    played = waiting.submit(game_id, _legal(waiting, game_id), game.seq + 1)
    assert played.status_code == 201, played.content
    assert played.json().keys() == first.json().keys()


def test_an_indented_answer_is_still_given_when_asked_for():
    game_id, game, mover, _ = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq + 3}).encode()
    answer = _raw_post(mover, game_id, body, Accept="application/json; indent=2")
    assert answer.status_code == 409
    assert answer.content.startswith(b"{\n  ")


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
        ("empty body", 400, "invalid_input"),
        ("form body", 415, "unsupported_media_type"),
    ],
)
def test_every_refusal_keeps_its_code_and_changes_nothing(case, status, code):
    game_id, game, mover, waiting = _game()
    legal = _legal(mover, game_id)
    sender, target, headers, content_type = mover, game_id, {}, "application/json"
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
    elif case == "form body":
        content_type = "application/x-www-form-urlencoded"
    elif case == "key used for another move":
        played = _raw_post(mover, game_id, json.dumps(body).encode(), **{"Idempotency-Key": "used"})
        assert played.status_code == 201
        game.refresh_from_db()
        body, headers = {"move": played.json()["game"]["moves"][0] if played.json()["game"]["moves"] else legal,
                         "expected_seq": game.seq}, {"Idempotency-Key": "used"}
    raws = {
        "not JSON": b'{"move": ',
        "not UTF-8": b'{"move": "\xff", "expected_seq": 0}',
        "too deep": b"[" * 200 + b"]" * 200,
        "NUL in a string": b'{"move": {"type": "a\\u0000"}, "expected_seq": 0}',
        "empty body": b"",
        "form body": b"expected_seq=0",
    }
    raw = raws[case] if case in raws else json.dumps(body).encode()
    seq_before = Game.objects.get(pk=game_id).seq
    answer = _raw_post(sender, target, raw, content_type=content_type, **headers)
    assert answer.status_code == status, answer.content
    assert answer.json()["code"] == code
    assert Game.objects.get(pk=game_id).seq == seq_before


def test_the_rate_limit_counts_every_move_and_refuses_with_its_code(settings):
    game_id, game, mover, _ = _game()
    stale = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq + 1}).encode()
    settings.SCRAPYARD_RATE_LIMITS = {**settings.SCRAPYARD_RATE_LIMITS, "account": 4}
    cache.clear()  # the setup's requests were counted (and some ahead) under the suite's high limit
    throttles.forget_allowances()
    answers = [_raw_post(mover, game_id, stale) for _ in range(6)]
    assert [answer.status_code for answer in answers] == [409, 409, 409, 409, 429, 429]
    assert answers[4].json()["code"] == "rate_limited" and "Retry-After" in answers[4].headers


@pytest.mark.parametrize("case", ["read-only token", "revoked token", "malformed token header", "query string"])
def test_a_caller_that_may_not_move_is_refused(case):
    game_id, game, mover, _ = _game()
    body = json.dumps({"move": _legal(mover, game_id), "expected_seq": game.seq + 3}).encode()
    sender = mover
    if case in ("read-only token", "revoked token"):
        made = mover.post("/api/tokens/", {"scopes": ["read"] if case == "read-only token" else ["play"]}).json()
        sender = Player(mover.username, made["token"])
        if case == "revoked token":
            assert mover.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
    elif case == "malformed token header":
        sender = Player(mover.username, "")
    answer = sender.client.post(f"/api/games/{game_id}/moves/" + ("?x=1" if case == "query string" else ""),
                                body, content_type="application/json")
    assert answer.status_code == (409 if case == "query string" else 403 if case == "read-only token" else 401)


def test_a_move_reads_its_headers_from_the_environ(monkeypatch):
    """`request.headers` is built from every entry of the environ (under granian, the server's
    whole process environment): a move never builds it, the token and the Idempotency-Key are
    read from the environ."""
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
