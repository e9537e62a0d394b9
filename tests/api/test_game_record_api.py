"""A finished game's record (`GET /api/games/{id}/record`) and its verifier (`python -m
rules.verify`): real records of every game verify, in a process that imports nothing of Django;
each kind of tampering is caught and named, whether the chain is left broken or forged anew; a
private game's record is only for its players, and a running game has none."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

import rules
from games import services, store
from games.models import Game
from rules import record as chain
from rules.verify import verify
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db

SHIPPED = ["scavenge", "space_junkyard", "terrafex", "terrain_vague"]


def _user(player):
    return get_user_model().objects.get(username=player.username)


def _play(game_id: int, seated: list, rnd: random.Random, moves: int) -> None:
    """Random legal moves through the services (terrain_vague ends its steps at once, so that a
    few dozen moves reach the red turn's duels and their reveals)."""
    for _ in range(moves):
        game = Game.objects.get(pk=game_id)
        if game.status != "active":
            return
        state, game_rules = store.state_at(game), store.rules_of(game)
        seat = rnd.choice(game.to_act)
        legal = game_rules.legal_moves(state, seat)
        move = next((m for m in legal if m.get("type") == "end_step"), None) or rnd.choice(legal)
        if move.get("type") == "place_clubhouse":  # the largest home turf: no gang out on turn 1
            gang = state.seats[seat]
            move = max(legal, key=lambda m: game_rules.view(game_rules.apply(state, seat, m), seat)["home_turf"][gang])
        services.move_submit(game_id=game_id, user=_user(seated[seat]), move=move, expected_seq=game.seq)


def _finished(rules_id: str, moves: int = 60, options: dict | None = None) -> tuple[int, list]:
    game_id, seated = start_game(rules_id, 2, options)
    _play(game_id, seated, random.Random(rules_id), moves)
    if Game.objects.get(pk=game_id).status == "active":
        services.resign(game_id=game_id, user=_user(seated[0]))
    assert Game.objects.get(pk=game_id).status == "finished"
    return game_id, seated


def _record(game_id: int, player) -> dict:
    response = player.get(f"/api/games/{game_id}/record")
    assert response.status_code == 200, response.content
    return response.json()


def _verify_in_a_bare_process(path) -> subprocess.CompletedProcess:
    """`python -m rules.verify` with no Django settings, refusing any import of Django."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE", "REDIS"))}
    code = ("import sys, runpy; sys.argv = ['rules.verify', sys.argv[1]]\n"
            "try:\n    runpy.run_module('rules.verify', run_name='__main__')\n"
            "finally:\n    assert not [m for m in sys.modules if m.split('.')[0] in ('django', 'games', 'rest_framework')]")
    return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, env=env,
                          cwd=settings.BASE_DIR, timeout=120)


@pytest.mark.parametrize("rules_id", SHIPPED)
def test_a_real_record_of_each_game_verifies_without_the_server(rules_id, tmp_path):
    options = {"board": "random"} if rules_id == "terrain_vague" else None
    game_id, seated = _finished(rules_id, options=options)
    record = _record(game_id, seated[1])
    assert record["rules"] == {"id": rules_id, "version": rules.get(rules_id).version}
    assert chain.seed_commitment(record["seed"]) == record["seed_sha256"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = _verify_in_a_bare_process(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the seed matches its commitment" in done.stdout
    assert f"hash chain of {len(record['events'])} events" in done.stdout
    assert f"under {rules_id} version" in done.stdout and f"game {game_id} verifies" in done.stdout


def test_a_record_with_a_stand_in_bots_turns_verifies(tmp_path):
    """The `bot` policy's stand-in comes and goes by events of the log (`stand_in`, `stand_in_left`)."""
    import datetime as dt

    from games import time_controls, timeouts
    from games.models import Deadline

    first, second = register(), register()
    game_id = first.post("/api/games/", {"rules": "scavenge", "players": 2, "timeout_policy": "bot",
                                         "time_control": {"type": "step", "seconds": 60}}).json()["id"]
    second.post(f"/api/games/{game_id}/join/")
    game = Game.objects.get(pk=game_id)
    late = game.to_act[0]
    Deadline.objects.filter(game_id=game_id).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    timeouts.timeout_apply(game_id=game_id, seq=game.seq, seat=late)
    assert [first, second][late].post(f"/api/games/{game_id}/return/").status_code == 200
    services.resign(game_id=game_id, user=_user([first, second][1 - late]))
    record = _record(game_id, first)
    assert [e["payload"].get("type") for e in record["events"] if e["kind"] == "system" and e["seat"] == late][-2:] \
        == ["stand_in", "stand_in_left"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = _verify_in_a_bare_process(path)
    assert done.returncode == 0 and f"game {game_id} verifies" in done.stdout, done.stdout + done.stderr


# --- tampering -------------------------------------------------------------------------------


_made: dict[str, dict] = {}


@pytest.fixture
def duel_record(db):
    """A terrain_vague record through a red turn's duels (commitments, then their reveals); made
    once per process (in the first test's transaction, which rolls back) and copied by each test."""
    if "duel" not in _made:
        game_id, seated = _finished("terrain_vague", moves=60, options={"board": "random"})
        _made["duel"] = _record(game_id, seated[0])
    record = _made["duel"]
    assert any("revealed" in json.dumps(e["public_payload"]) for e in record["events"])
    return copy.deepcopy(record)


def _forged(record: dict) -> dict:
    """What a forger who knows the (published) seed does after editing: renumber the events,
    recompute every private digest and every hash, so that the chain itself holds."""
    previous = chain.GENESIS_HASH
    for seq, event in enumerate(record["events"], start=1):
        event["seq"], event["prev_hash"] = seq, previous
        if event["private_digest"]:
            event["private_digest"] = chain.private_digest(record["seed"], seq, event["payload"])
        content = chain.event_content(game=record["game"], **{k: event[k] for k in (
            "seq", "kind", "seat", "payload", "public_payload", "private_digest", "created_at")})
        event["hash"] = previous = chain.event_hash(previous, content)
    return record


def _failure(record: dict) -> str:
    report = verify(record)
    assert not report.ok, "the tampering went unnoticed"
    return str(report.failure)


def _moves(record: dict) -> list[int]:
    return [i for i, e in enumerate(record["events"]) if "move" in e["payload"]]


def _choice_pair(record: dict) -> tuple[int, int]:
    """Indexes of a duel's two choices: the one that commits, then the one that reveals both."""
    events = record["events"]
    resolving = next(i for i, e in enumerate(events) if "revealed" in e["public_payload"].get("move", {}))
    return resolving - 1, resolving


def test_the_untouched_record_verifies(duel_record):
    report = verify(copy.deepcopy(duel_record))
    assert report.ok, report.failure
    assert any("revealed secrets" in line and not line.startswith("0 ") for line in report.checked)


def test_an_edited_move_is_caught_by_its_event(duel_record):
    record = copy.deepcopy(duel_record)
    index = _moves(record)[3]
    event = record["events"][index]
    legal_elsewhere = {"type": "end_step"} if event["payload"]["move"] != {"type": "end_step"} else {"type": "bogus"}
    seq = event["seq"]
    event["payload"]["move"] = legal_elsewhere  # the secret side only: its digest tells
    assert _failure(copy.deepcopy(record)) == f"event {seq}: its private payload does not match its salted digest"
    event["public_payload"]["move"] = legal_elsewhere  # both sides: its hash tells
    assert _failure(copy.deepcopy(record)) == f"event {seq}: does not hash to its recorded hash (changed after it was written)"
    assert _failure(_forged(record)).startswith(f"event {seq}: ")  # the replay refuses or shows it


def test_a_removed_event_is_caught_by_its_place(duel_record):
    record = copy.deepcopy(duel_record)
    index = _moves(record)[5]
    seq = record["events"][index]["seq"]
    del record["events"][index]
    assert _failure(copy.deepcopy(record)).startswith(f"event {seq + 1}: is out of place")
    forged = _failure(_forged(record))
    assert forged.startswith("event ") and int(forged.split()[1].rstrip(":")) >= seq


def test_a_changed_seed_is_caught(duel_record):
    record = copy.deepcopy(duel_record)
    record["seed"] = "f" * 64
    assert _failure(copy.deepcopy(record)) == "the seed: does not match its commitment (seed_sha256)"
    record["seed_sha256"] = chain.seed_commitment(record["seed"])
    # every salt comes from the seed: the first event's digest no longer matches
    assert _failure(copy.deepcopy(record)) == "event 1: its private payload does not match its salted digest"
    assert _failure(_forged(copy.deepcopy(record))) == "event 1: published another seed commitment than the record's"
    record["events"][0]["payload"]["seed_sha256"] = record["seed_sha256"]
    record["events"][0]["public_payload"]["seed_sha256"] = record["seed_sha256"]
    assert _failure(_forged(record)).startswith("event ")  # other lots, salts and draws: the replay parts


def test_a_changed_result_is_caught_at_the_last_event(duel_record):
    record = copy.deepcopy(duel_record)
    record["result"] = {**record["result"], "winners": [1 - record["result"]["winners"][0]]}
    last = record["events"][-1]["seq"]
    assert _failure(record).startswith(f"event {last}: the replay ends in ")


def test_a_reordered_commitment_and_reveal_is_caught_by_its_event(duel_record):
    record = copy.deepcopy(duel_record)
    first, second = _choice_pair(record)
    events = record["events"]
    events[first], events[second] = events[second], events[first]
    seq = first + 1
    assert _failure(copy.deepcopy(record)) == f"event {seq + 1}: is out of place: event {seq} was expected here (an event removed or moved)"
    assert _failure(_forged(record)) == f"event {seq}: reveals a secret before its commitment was published"


def test_a_revealed_choice_that_differs_from_its_commitment_is_caught(duel_record):
    record = copy.deepcopy(duel_record)
    _, resolving = _choice_pair(record)
    revealed = record["events"][resolving]["public_payload"]["move"]["revealed"][0]
    revealed["attack"]["tiles"] = [t % 8 + 1 for t in revealed["attack"]["tiles"]]
    seq = record["events"][resolving]["seq"]
    assert _failure(_forged(record)).startswith(f"event {seq}: reveals ")


def test_the_command_names_the_first_failing_event_and_exits_non_zero(duel_record, tmp_path):
    record = copy.deepcopy(duel_record)
    record["result"] = {**record["result"], "reason": "made_up"}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = _verify_in_a_bare_process(path)
    assert done.returncode == 1
    assert f"FAIL event {record['events'][-1]['seq']}: the replay ends in" in done.stdout
    assert "ok   the seed matches its commitment" in done.stdout


# --- who gets a record ---------------------------------------------------------------------


def test_a_running_game_has_no_record_yet():
    game_id, seated = start_game("scavenge", 2)
    response = seated[0].get(f"/api/games/{game_id}/record")
    assert response.status_code == 409 and response.json()["code"] == "game_not_finished"
    assert "seed" not in response.content.decode().replace("its seed", "")


def test_a_private_record_is_only_for_its_players_and_hidden_like_an_unknown_id(client):
    seated = [register(), register()]
    created = seated[0].post("/api/games/", {"rules": "scavenge", "players": 2, "options": {}, "private": True})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    game = Game.objects.get(pk=game_id)
    services.game_join(game_id=game_id, user=_user(seated[1]), invitation=game.invitation_key)
    services.resign(game_id=game_id, user=_user(seated[0]))
    for player in seated:
        assert player.get(f"/api/games/{game_id}/record").status_code == 200
    unknown = Game.objects.order_by("-pk").first().pk + 1000
    stranger = register()
    for caller in (stranger.client, client):
        hidden = caller.get(f"/api/games/{game_id}/record")
        missing = caller.get(f"/api/games/{unknown}/record")
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json() == {**missing.json(), "detail": missing.json()["detail"].replace(str(unknown), str(game_id))}
        assert game.seed not in hidden.content.decode()


def test_a_public_finished_game_has_a_record_for_anyone(client):
    game_id, _ = _finished("scavenge", moves=10)
    response = client.get(f"/api/games/{game_id}/record/")
    assert response.status_code == 200 and response.json()["game"] == game_id


def test_the_schema_documents_the_record(client):
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = document["paths"]["/api/games/{game_id}/record/"]["get"]
    assert operation["operationId"] == "gameRecord"
    assert {"200", "404", "409"} <= set(operation["responses"])
