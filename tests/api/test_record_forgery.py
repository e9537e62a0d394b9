"""The forgeries issue 53 names, each against a real record: the seats swapped (in the record, or
in the log with the chain forged anew, which the printed last hash gives away), a result event
appended or made up, and records too deep, too large or malformed, which fail with a line, never
a traceback. And every way the players end a game (abort, cancel, agreed draw, abandonment,
takeback) still verifies."""

from __future__ import annotations

import copy
import datetime as dt
import json
import random
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import records, services
from games.models import Game
from rules import record_file
from rules import verify as verifier
from tests.api.conftest import register, start_game
from tests.api.test_game_record_api import _finished, _forged, _record

pytestmark = pytest.mark.django_db


def _user(player):
    return get_user_model().objects.get(username=player.username)


_made: dict[str, dict] = {}


@pytest.fixture
def finished_record(db):
    """A scavenge game played a little and resigned (made once per process, copied per test)."""
    if "resigned" not in _made:
        game_id, seated = _finished("scavenge", moves=12)
        _made["resigned"] = _record(game_id, seated[0])
    return copy.deepcopy(_made["resigned"])


def _failure(record) -> str:
    report = verifier.verify(record)
    assert not report.ok, "the forgery went unnoticed"
    return str(report.failure)


def _run(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rules.verify", *map(str, args)], capture_output=True, text=True,
                          cwd=settings.BASE_DIR, timeout=timeout)


def _seat_events(record: dict) -> list[dict]:
    return [e for e in record["events"] if e["kind"] == "system" and e["payload"].get("type") == "seat_taken"]


# --- who sat where ---------------------------------------------------------------------------


def test_two_players_names_swapped_in_the_seats_fail_naming_the_seat(finished_record):
    seats = finished_record["seats"]
    first, second = seats[0]["username"], seats[1]["username"]
    seats[0]["username"], seats[1]["username"] = second, first
    assert _failure(finished_record) == (f"the record's seats: seat 0 is {second} in the record but {first} in the log")


def test_a_bot_mark_added_to_a_seat_fails(finished_record):
    finished_record["seats"][1]["bot"] = {"name": "random", "level": 1}
    assert _failure(finished_record).startswith("the record's seats: seat 1 is bot random level 1 in the record")


def test_names_swapped_in_the_log_too_change_the_last_hash_the_players_saw(finished_record, tmp_path):
    """A forger who knows the seed may swap the names in the seating events as well and forge the
    chain anew: it verifies as a chain, but its last hash is not the one the players saw."""
    seen = finished_record["events"][-1]["hash"]
    forged = copy.deepcopy(finished_record)
    names = {seat["seat"]: seat["username"] for seat in finished_record["seats"]}
    for event in _seat_events(forged):
        for side in ("payload", "public_payload"):
            event[side]["username"] = names[1 - event["seat"]]
    for seat in forged["seats"]:
        seat["username"] = names[1 - seat["seat"]]
    _forged(forged)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    printed = _run(path)
    assert printed.returncode == 0, printed.stdout
    assert f"last hash {forged['events'][-1]['hash']}" in printed.stdout and seen not in printed.stdout
    compared = _run(path, "--hash", seen)
    assert compared.returncode == 1
    assert f"FAIL the last hash: is {forged['events'][-1]['hash']}, not the {seen} you saw" in compared.stdout


def test_the_real_record_prints_the_hash_the_players_saw(finished_record, tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(finished_record))
    seen = finished_record["events"][-1]["hash"]
    done = _run(path, "--hash", seen.upper())
    assert done.returncode == 0, done.stdout
    assert f"last hash {seen}" in done.stdout


# --- results the rules did not give ----------------------------------------------------------


def _append_system(record: dict, payload: dict, seat=None) -> dict:
    last = record["events"][-1]
    record["events"].append({**copy.deepcopy(last), "kind": "system", "seat": seat, "payload": payload,
                             "public_payload": payload, "private_digest": "x"})
    return _forged(record)


def test_a_result_event_appended_after_the_end_fails_naming_it(finished_record):
    winner = finished_record["result"]["winners"][0]
    loser = 1 - winner
    result = {"scores": [1 if s == loser else 0 for s in range(2)], "winners": [loser], "reason": "resigned"}
    _append_system(finished_record, {"type": "resign", "result": result})
    finished_record["result"] = result
    seq = finished_record["events"][-1]["seq"]
    assert _failure(finished_record) == f"event {seq}: comes after the game was over"


def test_a_made_up_result_event_instead_of_the_end_fails_naming_it(finished_record):
    del finished_record["events"][-1]  # the resignation
    result = {"scores": [1, 0], "winners": [0], "reason": "judged"}
    _append_system(finished_record, {"type": "judgement", "result": result})
    finished_record["result"] = result
    seq = finished_record["events"][-1]["seq"]
    assert _failure(finished_record) == (f"event {seq}: carries a result the rules did not produce "
                                         f'({{"reason":"judged","scores":[1,0],"winners":[0]}})')


def test_a_draw_nobody_offered_fails(finished_record):
    del finished_record["events"][-1]
    result = {"scores": [0.5, 0.5], "winners": [0, 1], "reason": "draw_agreed"}
    _append_system(finished_record, {"type": "draw_agreed", "result": result})
    finished_record["result"] = result
    seq = finished_record["events"][-1]["seq"]
    assert _failure(finished_record).startswith(f"event {seq}: carries a result: a draw, but no draw was offered")


def test_an_abort_with_a_winner_fails(finished_record):
    first_move = next(i for i, e in enumerate(finished_record["events"]) if e["kind"] == "move")
    del finished_record["events"][first_move:]  # before anyone moved: an abort may end it, with no winner
    result = {"scores": [1, 0], "winners": [0], "reason": "aborted"}
    _append_system(finished_record, {"type": "abort", "result": result}, seat=0)
    finished_record["result"] = result
    seq = finished_record["events"][-1]["seq"]
    assert _failure(finished_record).startswith(f"event {seq}: carries the result ")


# --- records no game makes: a FAIL line, never a traceback ------------------------------------


def test_a_deeply_nested_file_fails_with_a_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "scrapyard-game-record", "events": ' + "[" * 200_000 + "]" * 200_000 + "}")
    done = _run(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.startswith("FAIL the record: is nested more than")


def test_a_deep_value_inside_a_real_record_fails_with_a_line(finished_record, tmp_path):
    """Deep enough to pass the JSON reader, too deep for the checks' canonical JSON."""
    body = json.dumps(finished_record)
    marker = '"payload": {'
    at = body.index(marker) + len(marker)
    deep = body[:at] + '"x": ' + "[" * 900 + "]" * 900 + ", " + body[at:]
    path = tmp_path / "deep.json"
    path.write_text(deep)
    done = _run(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"FAIL the record: is nested more than {verifier.MAX_DEPTH} levels deep" in done.stdout


def test_verify_never_raises_on_a_value_deeper_than_the_stack():
    value: list = []
    for _ in range(100_000):
        value = [value]
    report = verifier.verify({"format": verifier.FORMAT, "events": value})
    assert str(report.failure).startswith("the record: is nested more than")


def test_a_huge_file_fails_without_being_read_whole(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as file:  # sparse: no disk taken
        file.truncate(verifier.MAX_BYTES + 1)
    done = _run(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == f"FAIL the record: is larger than {verifier.MAX_BYTES} bytes (--max-bytes allows more)\n"


@pytest.mark.parametrize("where", ["seats", "rules", "result"])
def test_a_lone_surrogate_is_printed_escaped_in_a_fail_line(finished_record, tmp_path, where):
    """A lone surrogate ("\\ud800") is valid JSON and a string no terminal encodes: printed as it
    was, it ended the check with a UnicodeEncodeError."""
    lone = "\ud800"
    if where == "seats":
        finished_record["seats"][0]["username"] = lone
    elif where == "rules":
        finished_record["rules"]["id"] = lone
    else:
        finished_record["result"]["reason"] = lone
    path = tmp_path / "lone.json"
    path.write_text(json.dumps(finished_record))  # ASCII: the surrogate as its escape
    done = _run(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines()[-1].startswith("FAIL "), done.stdout


def test_a_huge_record_of_empty_values_fails_in_bounded_time_and_memory(tmp_path):
    """Under the size limit, `[{},{},...]` is millions of values the JSON reader would build (3 GB
    for 63 MiB): they are counted in the raw bytes first, and refused."""
    path = tmp_path / "empties.json"
    count = verifier.MAX_BYTES // 3 - 1_000  # 63 MiB, as the issue's
    path.write_bytes(b"[" + b"{}," * (count - 1) + b"{}]")
    assert path.stat().st_size < verifier.MAX_BYTES
    limit = 768 * 1024 * 1024  # the reader would need several times this
    child = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))"
    done = subprocess.run([sys.executable, "-c", f"{child}; from rules.verify import main; raise SystemExit(main())",
                           str(path)], capture_output=True, text=True, cwd=settings.BASE_DIR, timeout=20)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == f"FAIL the record: holds more than {record_file.MAX_VALUES} values, more than any game makes\n"


def test_a_real_records_events_are_well_within_the_values_an_event_is_allowed(finished_record):
    raw = json.dumps(finished_record).encode()
    record_file.check_shape(raw)
    values = 1 + sum(raw.count(mark) for mark in (b",", b":", b"{", b"["))  # as check_shape counts them
    assert values < len(finished_record["events"]) * record_file.EVENT_VALUES / 2


def test_running_out_of_memory_reading_a_record_is_a_fail_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "record.json"
    path.write_text("{}")
    def short_of_memory(raw):
        raise MemoryError

    monkeypatch.setattr(verifier, "check_shape", short_of_memory)  # as the JSON reader would, on a big enough file
    assert verifier.main([str(path)]) == 1
    assert capsys.readouterr().out == "FAIL the record: is too large to read in the memory there is\n"


def test_values_within_the_limit_but_too_deep_fail_before_the_reader(tmp_path):
    path = tmp_path / "deep_enough.json"
    path.write_text("[" * (verifier.MAX_DEPTH + 1) + "]" * (verifier.MAX_DEPTH + 1))
    done = _run(path)
    assert done.returncode == 1
    assert done.stdout == f"FAIL the record: is nested more than {verifier.MAX_DEPTH} levels deep\n"


def test_malformed_files_fail_with_a_line(tmp_path):
    for name, body in {"not_json": b"{nope", "not_utf8": b"\xff\xfe{", "long_number": b"1" * 10_000,
                       "a_list": b"[1, 2]", "null": b"null"}.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(body)
        done = _run(path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, (name, done.stderr)
        assert done.stdout.startswith("FAIL the record: "), (name, done.stdout)


_JUNK = [None, True, -1, 10**30, 1.5, "", "x" * 70, [], {}, [None], {"move": None}, {"commitment": 1, "salt": []}]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*prefix, index))


def test_any_one_value_replaced_by_junk_gives_a_report_not_an_exception(finished_record):
    rnd = random.Random(53)
    paths = [path for path in _paths(finished_record) if path]
    for _ in range(400):
        damaged = copy.deepcopy(finished_record)
        path = rnd.choice(paths)
        holder = damaged
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = copy.deepcopy(rnd.choice(_JUNK))
        if rnd.random() < 0.5 and isinstance(damaged.get("events"), list) and damaged.get("seed"):
            try:
                _forged(damaged)
            except Exception:  # the forger's own tool chokes on it: the verifier must not
                pass
        report = verifier.verify(damaged)  # raises nothing
        assert report.ok or str(report.failure)


# --- every ending the players make still verifies ---------------------------------------------


def _verified(game_id: int) -> verifier.Report:
    report = verifier.verify(records.record_of(Game.objects.get(pk=game_id)))
    assert report.ok, report.failure
    return report


def test_an_aborted_game_verifies():
    game_id, seated = start_game("scavenge", 2)
    services.abort(game_id=game_id, user=_user(seated[1]))
    assert "ended by the event abort" in _verified(game_id).checked[-1]


def test_a_cancelled_game_with_a_seat_left_verifies():
    creator, other, third = register(), register(), register()
    game_id = creator.post("/api/games/", {"rules": "scavenge", "players": 3, "options": {}}).json()["id"]
    assert other.post(f"/api/games/{game_id}/join/").status_code == 201
    services.leave(game_id=game_id, user=_user(other))
    assert third.post(f"/api/games/{game_id}/join/").status_code == 201
    services.cancel(game_id=game_id, user=_user(creator))
    report = _verified(game_id)
    assert f"0: {creator.username}, 1: {third.username}" in report.checked[-2]


def test_an_agreed_draw_after_a_takeback_verifies():
    game_id, seated = _started_with_moves("terrafex", 3)
    game = Game.objects.get(pk=game_id)
    mover = _last_mover(game_id)
    services.takeback(game_id=game_id, user=_user(seated[mover]), action="request")
    services.takeback(game_id=game_id, user=_user(seated[1 - mover]), action="accept")
    services.draw(game_id=game_id, user=_user(seated[0]), action="offer")
    services.draw(game_id=game_id, user=_user(seated[1]), action="accept")
    assert Game.objects.get(pk=game.pk).result["reason"] == "draw_agreed"
    assert "ended by the event draw_agreed" in _verified(game_id).checked[-1]


def test_an_abandoned_game_verifies():
    game_id, _ = start_game("scavenge", 2)
    later = timezone.now() + dt.timedelta(days=61)
    idle, grace = dt.timedelta(days=60), dt.timedelta(days=7)
    assert services.abandoned_end(game_id=game_id, at=later, idle=idle, grace=grace) is not None
    assert services.abandoned_end(game_id=game_id, at=later + grace, idle=idle, grace=grace) is not None
    assert Game.objects.get(pk=game_id).result["reason"] == "abandoned"
    _verified(game_id)


def _started_with_moves(rules_id: str, moves: int):
    from tests.api.test_game_record_api import _play
    game_id, seated = start_game(rules_id, 2)
    _play(game_id, seated, random.Random(7), moves)
    return game_id, seated


def _last_mover(game_id: int) -> int:
    from games.models import Event
    return Event.objects.filter(game_id=game_id, kind="move").latest("seq").seat
