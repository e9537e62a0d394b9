"""The REST API end to end on Scavenge: accounts, lobby, seats, views, moves and the log, and
every error's status and code (bad input changes nothing)."""

from __future__ import annotations

import random

import pytest
from rest_framework.test import APIClient

from games.models import Event
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["detail"], body
    return body


def _off_list_square(moves: list[dict]) -> dict:
    listed = {tuple(m["to"]) for m in moves if m["type"] == "move" and isinstance(m.get("to"), list)}
    row, col = next((r, c) for r in range(10) for c in range(10) if (r, c) not in listed and not 4 <= r <= 5)
    return {"type": "move", "to": [row, col]}


# --- accounts ------------------------------------------------------------------------------


def test_account_create_gives_a_working_token():
    response = APIClient().post(
        "/api/accounts/",
        {"username": "ada", "password": "correct horse battery", "email": "ada@example.org"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["username"] == "ada"
    token = response.json()["token"]
    again = APIClient().post("/api/accounts/token/", {"username": "ada", "password": "correct horse battery"})
    assert again.json() == {"token": token}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/games/", {"mine": 1}).status_code == 200


def test_account_errors():
    register("bob")
    client = APIClient()
    _error(client.post("/api/accounts/", {"username": "bob", "password": "another fine pw"}), 409, "username_taken")
    _error(client.post("/api/accounts/", {"username": "cy", "password": "123"}), 400, "invalid_input")
    body = _error(client.post("/api/accounts/", {"username": "cy"}), 400, "invalid_input")
    assert "password" in body["fields"]
    _error(client.post("/api/accounts/", {"username": "cy", "password": "long enough pw", "email": "nope"}),
           400, "invalid_input")
    _error(client.post("/api/accounts/token/", {"username": "bob", "password": "wrong"}), 400, "invalid_credentials")
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token nonsense")
    _error(bad.post("/api/games/", {"rules": "scavenge", "players": 2}, format="json"), 401, "authentication_failed")


def test_malformed_json_is_a_json_error():
    response = APIClient().post("/api/accounts/", data="{not json", content_type="application/json")
    _error(response, 400, "malformed_json")


def test_unknown_url_is_a_json_404():
    response = APIClient().get("/api/no-such-thing/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


# --- lobby and seats -----------------------------------------------------------------------


def test_rules_catalogue_lists_options_and_defaults():
    games = {game["id"]: game for game in APIClient().get("/api/rules/").json()}
    scavenge = games["scavenge"]
    assert (scavenge["min_players"], scavenge["max_players"]) == (2, 4)
    option = next(o for o in scavenge["options"] if o["name"] == "straight_moves")
    assert option["type"] == "bool" and option["default"] is False


def test_create_join_and_start(player):
    created = player.post("/api/games/", {"rules": "scavenge", "players": 3, "options": {"straight_moves": True}})
    assert created.status_code == 201
    game = created.json()
    assert game["status"] == "open" and game["options"] == {"straight_moves": True, "first_player": "drawn"}
    assert game["seats"] == [{"seat": 0, "username": player.username, "bot": None}]
    assert game["to_act"] == [] and game["seed"] is None and len(game["seed_sha256"]) == 64
    second, third = register(), register()
    assert second.post(f"/api/games/{game['id']}/join/").json()["status"] == "open"
    _error(second.post(f"/api/games/{game['id']}/join/"), 409, "already_seated")
    started = third.post(f"/api/games/{game['id']}/join/").json()
    assert started["status"] == "active" and [s["seat"] for s in started["seats"]] == [0, 1, 2]
    assert started["your_seat"] == 2 and len(started["to_act"]) == 1
    _error(register().post(f"/api/games/{game['id']}/join/"), 409, "game_not_open")
    _error(register().post("/api/games/999999/join/"), 404, "game_not_found")


def test_create_errors_change_nothing(player):
    _error(APIClient().post("/api/games/", {"rules": "scavenge", "players": 2}, format="json"), 401,
           "not_authenticated")
    _error(player.post("/api/games/", {"rules": "chess", "players": 2}), 400, "unknown_rules")
    body = _error(player.post("/api/games/", {"rules": "scavenge", "players": 9}), 400, "invalid_option")
    assert body["option"] == "players"
    body = _error(player.post("/api/games/", {"rules": "scavenge", "players": 2, "options": {"x": 1}}), 400,
                  "unknown_option")
    assert body["option"] == "x"
    _error(player.post("/api/games/", {"rules": "scavenge", "players": 2, "options": {"straight_moves": "yes"}}),
           400, "invalid_option")
    _error(player.post("/api/games/", {"rules": "scavenge"}), 400, "invalid_input")
    assert player.get("/api/games/", mine=1).json()["count"] == 0


def test_list_filters_by_status_and_mine():
    active_id, seated = start_game("scavenge", 2)
    open_id = register().post("/api/games/", {"rules": "scavenge", "players": 2}).json()["id"]
    anyone = APIClient()
    active = anyone.get("/api/games/", {"status": "active"}).json()
    assert [g["id"] for g in active["results"]] == [active_id]
    assert [g["id"] for g in anyone.get("/api/games/", {"status": "open"}).json()["results"]] == [open_id]
    mine = seated[1].get("/api/games/", mine=1).json()
    assert [g["id"] for g in mine["results"]] == [active_id]
    _error(anyone.get("/api/games/", {"status": "sleeping"}), 400, "invalid_input")


# --- moves ---------------------------------------------------------------------------------


def test_move_errors_in_their_order_and_nothing_stored():
    game_id, seated = start_game("scavenge", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover, idle = seated[game["to_act"][0]], seated[1 - game["to_act"][0]]
    seq = game["seq"]
    events_before = Event.objects.filter(game_id=game_id).count()

    body = _error(mover.submit(game_id, "garbage", seq - 1), 409, "stale_seq")
    assert body["seq"] == seq  # stale is judged before the move is even looked at
    _error(register().submit(game_id, {"type": "stay"}, seq), 403, "not_a_player")
    _error(idle.submit(game_id, {"type": "stay"}, seq), 403, "not_your_turn")
    _error(mover.submit(game_id, "garbage", seq), 400, "malformed_move")
    _error(mover.post(f"/api/games/{game_id}/moves/", {"expected_seq": seq}), 400, "malformed_move")
    _error(mover.post(f"/api/games/{game_id}/moves/", {"move": {"type": "stay"}}), 400, "invalid_input")
    _error(mover.submit(game_id, {"type": "teleport"}, seq), 400, "unknown_move_type")
    moves = mover.get(f"/api/games/{game_id}/legal-moves/").json()["moves"]
    illegal = mover.submit(game_id, _off_list_square(moves), seq)
    assert illegal.status_code == 422 and illegal.json()["code"] not in ("", None)
    _error(mover.submit(999999, {"type": "stay"}, 0), 404, "game_not_found")

    assert Event.objects.filter(game_id=game_id).count() == events_before
    assert mover.get(f"/api/games/{game_id}/").json()["seq"] == seq


def test_idle_seat_lists_no_moves_and_a_stranger_none_at_all():
    game_id, seated = start_game("scavenge", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    idle = seated[1 - game["to_act"][0]]
    assert idle.get(f"/api/games/{game_id}/legal-moves/").json()["moves"] == []
    _error(register().get(f"/api/games/{game_id}/legal-moves/"), 403, "not_a_player")


def test_move_on_an_open_game_is_refused(player):
    game_id = player.post("/api/games/", {"rules": "scavenge", "players": 2}).json()["id"]
    seq = player.get(f"/api/games/{game_id}/").json()["seq"]
    _error(player.submit(game_id, {"type": "stay"}, seq), 409, "game_not_active")


def test_idempotency_key_replays_the_first_answer():
    game_id, seated = start_game("scavenge", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover = seated[game["to_act"][0]]
    move = mover.get(f"/api/games/{game_id}/legal-moves/").json()["moves"][0]
    first = mover.submit(game_id, move, game["seq"], **{"Idempotency-Key": "k-1"})
    assert first.status_code == 201
    retry = mover.submit(game_id, move, game["seq"], **{"Idempotency-Key": "k-1"})
    assert retry.status_code == 201 and retry.json() == first.json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert mover.get(f"/api/games/{game_id}/").json()["seq"] == game["seq"] + 1
    _error(mover.submit(game_id, {"type": "stay"}, game["seq"] + 1, **{"Idempotency-Key": "k-1"}), 422,
           "idempotency_key_reused")


def test_an_idempotent_retry_after_the_game_moved_on_gives_the_same_event_and_the_game_now():
    """docs/api.md: the retry's event is the first answer's; its `game` is the game as it is now
    (a client that lost the first answer plays on from there), not the game the first answer held."""
    game_id, seated = start_game("toy_race", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover_seat = game["to_act"][0]
    mover, other = seated[mover_seat], seated[1 - mover_seat]
    move = mover.get(f"/api/games/{game_id}/legal-moves/").json()["moves"][0]
    first = mover.submit(game_id, move, game["seq"], **{"Idempotency-Key": "k-2"})
    assert first.status_code == 201 and first.json()["game"]["to_act"] == [1 - mover_seat]
    other.play_first_legal(game_id)
    retry = mover.submit(game_id, move, game["seq"], **{"Idempotency-Key": "k-2"})
    assert retry.status_code == 201 and retry.headers["Idempotent-Replayed"] == "true"
    event = {key: value for key, value in retry.json().items() if key != "game"}
    assert event == {key: value for key, value in first.json().items() if key != "game"}
    now = mover.get(f"/api/games/{game_id}/").json()
    assert retry.json()["game"]["seq"] == now["seq"] == first.json()["seq"] + 1 and now["to_act"] == [mover_seat]


def test_events_and_state_at():
    game_id, seated = start_game("scavenge", 2)
    rnd = random.Random(3)
    for _ in range(4):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        seat = game["to_act"][0]
        move = rnd.choice(seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()["moves"])
        assert seated[seat].submit(game_id, move, game["seq"]).status_code == 201
    log = APIClient().get(f"/api/games/{game_id}/events/").json()
    kinds = [event["kind"] for event in log["events"]]
    assert kinds[0] == "created" and kinds[-4:] == ["move"] * 4
    assert [e["seq"] for e in log["events"]] == list(range(1, log["seq"] + 1))
    assert all(e["prev_hash"] == p["hash"] for p, e in zip(log["events"], log["events"][1:]))
    later = APIClient().get(f"/api/games/{game_id}/events/", {"after": log["seq"] - 2}).json()["events"]
    assert [e["seq"] for e in later] == [log["seq"] - 1, log["seq"]]
    early = seated[0].get(f"/api/games/{game_id}/state/", at=3).json()
    now = seated[0].get(f"/api/games/{game_id}/state/").json()
    assert early["seq"] == 3 and now["seq"] == log["seq"] and early["view"] != now["view"]
    _error(seated[0].get(f"/api/games/{game_id}/state/", at=0), 400, "event_out_of_range")
    _error(seated[0].get(f"/api/games/{game_id}/state/", at=log["seq"] + 1), 400, "event_out_of_range")


def test_health_reports_database_and_broker():
    response = APIClient().get("/api/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


def test_reads_carry_an_etag_and_answer_304_until_the_game_moves():
    game_id, players = start_game("toy_race", 2)
    reader = players[0]
    for path in (f"/api/games/{game_id}/", f"/api/games/{game_id}/legal-moves/", f"/api/games/{game_id}/events/"):
        first = reader.client.get(path)
        assert first.status_code == 200 and first["ETag"] and "private" in first["Cache-Control"]
        again = reader.client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b"", path
    other_seat = players[1].client.get(f"/api/games/{game_id}/")
    assert other_seat["ETag"] != reader.client.get(f"/api/games/{game_id}/")["ETag"]  # each seat's own view
    before = reader.client.get(f"/api/games/{game_id}/")
    game = before.json()
    mover = players[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    moved = reader.client.get(f"/api/games/{game_id}/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert moved.status_code == 200 and moved.json()["seq"] == game["seq"] + 1 and moved["ETag"] != before["ETag"]


def test_a_moves_answer_carries_the_game_after_it_and_the_movers_next_moves():
    game_id, players = start_game("terrafex", 2)  # a turn is several moves by one seat
    game = players[0].get(f"/api/games/{game_id}/").json()
    mover = players[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    answer = mover.submit(game_id, listed["moves"][0], listed["seq"]).json()
    after = answer["game"]
    assert after["seq"] == answer["seq"] == listed["seq"] + 1
    assert after == {**after, **{key: value for key, value in mover.get(f"/api/games/{game_id}/").json().items()
                                 if key in ("seq", "status", "to_act", "view", "your_seat")}}
    now = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    assert after["moves"] == now["moves"] and after["notation"] == now["notation"]
    assert after["your_turn"] == bool(now["moves"])


@pytest.mark.parametrize("rules_id", ["scavenge", "terrain_vague"])
def test_the_games_answer_holds_the_callers_legal_moves_and_nobody_elses(rules_id):
    """The seat to act reads its moves in the game's answer, as GET legal-moves lists them, in the
    reader's words; the other seat and a spectator read none."""
    game_id, seated = start_game(rules_id, 2)
    rnd = random.Random(3)
    for _ in range(12):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        if game["status"] != "active":
            break
        for seat, player in enumerate(seated):
            shown = player.get(f"/api/games/{game_id}/", HTTP_ACCEPT_LANGUAGE="nl").json()
            listed = player.get(f"/api/games/{game_id}/legal-moves/", HTTP_ACCEPT_LANGUAGE="nl").json()
            assert {key: shown[key] for key in ("moves", "notation", "words")} == \
                {key: listed[key] for key in ("moves", "notation", "words")}
            assert shown["your_turn"] == (seat in game["to_act"]) == bool(shown["moves"])
        stranger = APIClient().get(f"/api/games/{game_id}/").json()
        assert (stranger["your_turn"], stranger["moves"], stranger["notation"], stranger["words"]) == (False, [], [], [])
        mover = seated[rnd.choice(game["to_act"])]
        listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
        assert mover.submit(game_id, rnd.choice(listed["moves"]), listed["seq"]).status_code == 201


def test_the_log_after_a_number_past_any_seq_is_empty_on_every_database():
    """`?after=` beyond 64 bits reached the store's statement as a parameter SQLite refuses: 500."""
    game_id, players = start_game("scavenge", 2)
    answer = players[0].get(f"/api/games/{game_id}/events/", after=2**70)
    assert answer.status_code == 200, answer.content
    assert answer.json()["events"] == [] and answer.json()["seq"] >= 1
