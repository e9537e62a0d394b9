"""Fault injection against a live server: `python -m bench.chaos`.

Starts what `make run` starts (deploy/supervisord.conf: the web server, two workers per queue, beat) on a
fresh PostgreSQL database and a Redis server of its own, then, while players keep moving through
the API (retrying a failed request with the same Idempotency-Key, as a careful client does):

- races: eight clients submit the same move at the same seq at once; five send one request with
  the same Idempotency-Key at once;
- worker kills: one of the deadlines and of the bots workers' pairs SIGKILLed (the supervisor
  restarts them); later one bots worker killed right after a move, and beat (`worker_kills`);
- five Redis outages: the server killed outright, three seconds down, then started empty;
- a PostgreSQL restart (`pg_ctlcluster ... restart`; `--no-postgres-restart` skips it);
- a hostile fuzz of `--fuzz` requests (2,000 by default): malformed and deep JSON, lone
  surrogates and NUL, oversized bodies, unknown fields, wrong types, other people's games,
  bad tokens, unknown routes and methods; 60 KiB bodies built to make a body check slow, timed
  against a benign body of the same size;
- a hostile webhook endpoint that answers a byte a second, following three players' games;
- a Redis outage of `--outage-seconds` (20) with games on step clocks falling due through it, the
  stream server, SMTP gateway and web server SIGKILLed, and a flood of 20 analyses beside a live
  bot game (`bench.chaos_phases`: how late the timeouts came after Redis's return, how soon each
  killed process answered again, the bot's reply time with and without the flood over the same
  positions in twin games, and how late step clocks' timeouts came while the flood ran).

Then it waits for the workers to catch up and counts:
- lost: an acknowledged move not in the log, a deadline not enforced, a bot turn not played, a
  fuzzed game that changed;
- doubled: more than one winner of a race, more than one event for one Idempotency-Key, more
  than one timeout for one deadline, a broken hash chain;
- 5xx: answers of 500 and up (the designed 503 `service_unavailable` while PostgreSQL restarts
  is counted apart), and answers that are not JSON;
- leaked: a seat's private move served to anyone else, or the seed, before the game ended.

It also reports how late the forfeits' timeouts came through the outages, and the longest
attempt at the dripping endpoint. All four counts must be zero (the exit code says so). Figures go to stdout and bench/results/chaos.md.
Needs PostgreSQL (`BENCH_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/scrapyard_chaos,
dropped and created afresh) and the `redis-server` program.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import chaos_phases
from bench.deadlines import fresh_database, machine

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results" / "chaos.md"
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/scrapyard_chaos"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- the server and its services ------------------------------------------------------------


class Redis:
    def __init__(self, workdir: Path):
        self.port, self.workdir, self.process = free_port(), workdir, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        until(lambda: subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                                     text=True).stdout.strip() == "PONG", 10)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


class Server:
    """supervisord with the deployment's configuration (that of the tree at `root`: this one, or
    an older one beside it), in a var directory of its own."""

    def __init__(self, var: Path, env: dict[str, str], root: Path = ROOT):
        self.var, self.env, self.port = var, env, int(env["PORT"])
        self.config = str(root / "deploy" / "supervisord.conf")
        self.process = subprocess.Popen(
            [str(BIN / "supervisord"), "--nodaemon", "--configuration", self.config],
            cwd=root, env=env, stdout=open(var / "supervisor.out", "wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def ctl(self, *args: str) -> str:
        return subprocess.run([str(BIN / "supervisorctl"), "--configuration", self.config, *args],
                              env=self.env, capture_output=True, text=True).stdout

    def kill_program(self, name: str) -> None:
        """SIGKILL a program and everything it started (a worker and its pool)."""
        pid = int(self.ctl("pid", name).strip() or 0)
        if pid:
            os.killpg(pid, signal.SIGKILL)

    def status(self) -> dict[str, str]:
        return {parts[0]: parts[1] for parts in (line.split() for line in self.ctl("status").splitlines()) if parts}

    def expected(self) -> dict[str, str]:
        """Every process of the deployment's configuration and the state it should be in: RUNNING,
        or STOPPED when it does not start by itself (the stream processes beside granian)."""
        import configparser

        config = configparser.RawConfigParser(strict=False)
        config.read(self.config)
        groups = {program: section.split(":", 1)[1] for section in config.sections() if section.startswith("group:")
                  for program in config.get(section, "programs").split(",")}
        expected = {}
        for section in config.sections():
            kind, _, name = section.partition(":")
            autostart = config.get(section, "autostart", fallback="true")
            if "%(ENV_" in autostart:
                autostart = self.env.get(autostart.split("%(ENV_")[1].split(")")[0], "true")
            state = "RUNNING" if autostart.strip().lower() == "true" else "STOPPED"
            numbers = range(int(config.get(section, "numprocs", fallback="1")))
            if kind == "program":
                group = f"{groups[name]}:" if name in groups else ""
                names = [f"{name}-{number}" for number in numbers] if len(numbers) > 1 else [name]
                expected.update((f"{group}{each}", state) for each in names)
            elif kind == "fcgi-program":
                for number in numbers:
                    expected[f"{name}:{name}-{number}"] = state
        return expected

    def all_running(self) -> bool:
        return self.status() == self.expected()

    def first_web(self) -> str:
        """The name supervisorctl gives the (first) web server: `web`, or `web:web-0` of the pair
        on the port supervisord holds."""
        return next(name for name in sorted(self.status()) if name == "web" or name.startswith("web:"))

    def stop(self) -> None:
        """SIGTERM; after 40 s, SIGKILL to supervisord and to each program's process group (every
        program has one of its own: killing supervisord's alone left the servers running)."""
        if self.process.poll() is None:
            groups = {int(pid) for pid in self.ctl("pid", "all").split() if pid.isdigit() and pid != "0"}
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(40)
                return  # supervisord stopped every program itself
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
            for group in groups:
                try:
                    os.killpg(group, signal.SIGKILL)
                except ProcessLookupError:
                    pass  # stopped in time


def until(predicate, timeout: float, interval: float = 0.2) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if predicate():
                return True
        except Exception:  # noqa: BLE001 - a probe that fails is a probe that says "not yet"
            pass
        time.sleep(interval)
    return False


def restart_postgres() -> None:
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True)


# --- the API, as clients use it --------------------------------------------------------------


class Tally:
    """Every answer the server gave, by what kind of answer it was."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.server_errors: list[str] = []
        self.outage_503 = 0
        self.not_json: list[str] = []
        self.postgres_down = threading.Event()

    def record(self, method: str, path: str, status: int, body: bytes, content_type: str) -> None:
        with self.lock:
            self.statuses[status] += 1
            is_json = content_type.startswith("application/json")
            code = None
            if is_json:
                try:
                    parsed = json.loads(body) if body else None
                except ValueError:
                    is_json = False
                else:
                    code = parsed.get("code") if isinstance(parsed, dict) else None
            if not is_json and status != 204:
                self.not_json.append(f"{method} {path} -> {status} {content_type} {body[:120]!r}")
            if status >= 500:
                if status == 503 and code == "service_unavailable":
                    self.outage_503 += 1
                else:
                    self.server_errors.append(f"{method} {path} -> {status} {body[:200]!r}")


class Api:
    def __init__(self, base: str, tally: Tally):
        self.base, self.tally = base, tally

    def call(self, method: str, path: str, body=None, token: str | None = None, raw: bytes | None = None,
             headers: dict | None = None, record: bool = True):
        """(status, parsed JSON or None); status 0 when the connection itself failed."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, content, kind = answer.status, answer.read(), answer.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, content, kind = error.code, error.read(), error.headers.get("Content-Type", "")
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return 0, None
        if record:
            self.tally.record(method, path, status, content, kind)
        try:
            return status, json.loads(content) if content else None
        except ValueError:
            return status, None

    def patient(self, method: str, path: str, body=None, token: str | None = None, headers=None, tries: int = 120):
        """The same request again while the answer is a 503 or no answer: what a careful client
        does during an outage (with the same Idempotency-Key, so a retry cannot double a move)."""
        for _ in range(tries):
            status, answer = self.call(method, path, body, token, headers=headers)
            if status not in (0, 502, 503, 504):
                return status, answer
            time.sleep(0.5)
        return status, answer


# --- the players ---------------------------------------------------------------------------


class Book:
    """What the clients were told: acknowledged moves by game and seq, keys, race winners."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acknowledged: dict[tuple[int, int], dict] = {}
        self.keys: dict[str, set[int]] = {}
        self.race_winners: list[int] = []

    def ack(self, game_id: int, seq: int, move: dict, key: str) -> None:
        with self.lock:
            self.acknowledged[(game_id, seq)] = move
            self.keys.setdefault(key, set()).add(seq)


def register(api: Api, name: str) -> str:
    status, answer = api.patient("POST", "/api/accounts/", {"username": name, "password": f"pw-{uuid.uuid4().hex}"})
    assert status == 201, (status, answer)
    return answer["token"]


def create_game(api: Api, token: str, body: dict) -> dict:
    status, answer = api.patient("POST", "/api/games/", body, token)
    assert status == 201, (status, answer)
    return answer


def play_one(api: Api, book: Book, game_id: int, tokens: list[str], rng: random.Random) -> bool:
    """The seat to act (if a person) plays a legal move; False once the game is over."""
    status, game = api.patient("GET", f"/api/games/{game_id}/", token=tokens[0])
    if status != 200 or game["status"] != "active":
        return status == 200 and game["status"] == "open"
    for seat in game["to_act"]:
        if seat >= len(tokens) or tokens[seat] is None:
            continue  # a bot's turn
        status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=tokens[seat])
        if status != 200 or not legal["moves"]:
            continue
        move = rng.choice(legal["moves"])
        key = uuid.uuid4().hex
        status, answer = api.patient("POST", f"/api/games/{game_id}/moves/",
                                     {"move": move, "expected_seq": legal["seq"]}, tokens[seat],
                                     headers={"Idempotency-Key": key})
        if status == 201:
            book.ack(game_id, answer["seq"], move, key)
        return True
    return True


def players(api: Api, book: Book, games: list[tuple[int, list]], stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        for game_id, tokens in games:
            play_one(api, book, game_id, tokens, rng)
        time.sleep(0.05)


def race(api: Api, book: Book, game_id: int, tokens: list[str]) -> None:
    """Eight clients, one move, one seq: exactly one may win. Then five sends of one request
    with one Idempotency-Key: one event, and all five told the same seq."""
    status, game = api.patient("GET", f"/api/games/{game_id}/", token=tokens[0])
    if status != 200 or game["status"] != "active" or not game["to_act"]:
        return
    seat = game["to_act"][0]
    status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=tokens[seat])
    if status != 200 or not legal["moves"]:
        return
    body = {"move": legal["moves"][0], "expected_seq": legal["seq"]}
    keys = [uuid.uuid4().hex for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda key: api.patient("POST", f"/api/games/{game_id}/moves/", body, tokens[seat],
                                                        headers={"Idempotency-Key": key}), keys))
    winners = [(key, answer) for key, (status, answer) in zip(keys, answers) if status == 201]
    with book.lock:
        book.race_winners.append(len(winners))
    for key, answer in winners:
        book.ack(game_id, answer["seq"], body["move"], key)
    status, game = api.patient("GET", f"/api/games/{game_id}/", token=tokens[0])
    if status != 200 or game["status"] != "active" or not game["to_act"]:
        return
    seat = game["to_act"][0]
    status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=tokens[seat])
    if status != 200 or not legal["moves"]:
        return
    body, key = {"move": legal["moves"][0], "expected_seq": legal["seq"]}, uuid.uuid4().hex
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: api.patient("POST", f"/api/games/{game_id}/moves/", body, tokens[seat],
                                                      headers={"Idempotency-Key": key}), range(5)))
    for status, answer in answers:
        if status == 201:
            book.ack(game_id, answer["seq"], body["move"], key)


# --- the fuzz ------------------------------------------------------------------------------


def hostile_requests(count: int, target: int, token: str, stranger: str, rng: random.Random):
    """(method, path, raw body or None, token or None) tuples, none of which may change anything."""
    moves = f"/api/games/{target}/moves/"
    bodies = [
        b"{", b"[", b"nul", b'{"move": }', b"\xff\xfe\xfd", b'{"move": "\xed\xa0\x80"}',
        b'{"move": {"a": "\\ud800"}, "expected_seq": 1}', b'{"move": {"a": "\\u0000"}, "expected_seq": 1}',
        b"[" * 5000 + b"]" * 5000, b'{"a":' * 2000 + b"1" + b"}" * 2000,
        json.dumps({"move": {"x": "y" * 70_000}, "expected_seq": 1}).encode(),
        json.dumps({"move": {"pass": True, "extra": 1}, "expected_seq": 1}).encode(),
        json.dumps({"move": None, "expected_seq": 1}).encode(),
        json.dumps({"move": [], "expected_seq": -1}).encode(),
        json.dumps({"move": "x", "expected_seq": "1"}).encode(),
        json.dumps({"move": {}, "expected_seq": 10**30}).encode(),
        json.dumps({"expected_seq": 1}).encode(), json.dumps([1, 2, 3]).encode(), b"",
        json.dumps({"move": {"to": [1e308, -1e308]}, "expected_seq": 1}).encode(),
        *PATHOLOGICAL_BODIES,
    ]
    paths = [
        moves, f"/api/games/{target}/", f"/api/games/{target}/events/?after=-5", f"/api/games/{target}/events/?after=x",
        f"/api/games/{target}/state/?at=999999", f"/api/games/{target}/state/?at=-1", f"/api/games/{target}/join/",
        f"/api/games/{target}/bots/", f"/api/games/{target}/return/", "/api/games/99999999/moves/",
        "/api/games/?status=%00", "/api/games/?limit=-1&offset=abc", "/api/nope/", "/api/games/1/../../etc/passwd",
        "/api/accounts/token/", "/api/accounts/", "/api/rules/", "/api/games/%ff/",
    ]
    for n in range(count):
        path = rng.choice(paths)
        method = rng.choice(["POST", "POST", "GET", "PUT", "DELETE", "PATCH"])
        body = rng.choice(bodies) if method in ("POST", "PUT", "PATCH") else None
        who = rng.choice([token, stranger, None, "not-a-token", "x" * 500])
        yield method, path, body, who


# 60 KiB bodies that once cost the nesting check quadratic time (issue 30): unclosed strings of
# escaped quotes or backslashes, a quote before every bracket.
_SIZE = 60 * 1024
PATHOLOGICAL_BODIES = [b'"' + b'\\"' * (_SIZE // 2), b'"' + b"\\\\" * (_SIZE // 2), b'"[' * (_SIZE // 2), b'"\\' * (_SIZE // 2)]
BENIGN_BODY = json.dumps({"username": "x" * (_SIZE - 40), "password": "y"}).encode()


def body_check_ratio(api: Api, rounds: int = 5) -> tuple[float, float]:
    """The median time of an anonymous `POST /api/accounts/` with each pathological body over the
    median with a benign body of the same size, sent side by side; and the worst single answer."""
    def timed(body: bytes) -> float:
        started = time.perf_counter()
        api.call("POST", "/api/accounts/", raw=body)
        return time.perf_counter() - started

    benign, hostile = [], []
    for _ in range(rounds):
        benign.append(timed(BENIGN_BODY))
        hostile.extend(timed(body) for body in PATHOLOGICAL_BODIES)
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    return median(hostile) / median(benign), max(hostile)


class DrippingEndpoint:
    """A hostile webhook endpoint: it reads the POST, then answers a byte a second, for ever."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    @staticmethod
    def _drip(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000:
                    conn.sendall(bytes([byte]))
                    time.sleep(1)
            except OSError:
                return

    def close(self) -> None:
        self.listener.close()


def webhook_figures(endpoint_ids: list[int]) -> dict:
    from hooks.models import Attempt

    durations = list(Attempt.objects.filter(delivery__endpoint_id__in=endpoint_ids).values_list("duration_ms", flat=True))
    return {"attempts": len(durations), "longest_ms": max(durations, default=0)}


def deadline_lateness(forfeits: list[int], steps: list[float]) -> list[float]:
    """Seconds each forfeit's timeout came after its deadline (the last event before it plus
    the step's seconds)."""
    from games.models import Event

    late = []
    for game_id, seconds in zip(forfeits, steps):
        events = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("kind", "created_at"))
        for (_, before), (kind, at) in zip(events, events[1:]):
            if kind == "timeout":
                late.append((at - before).total_seconds() - seconds)
    return late


def fuzz(api: Api, count: int, target: int, token: str, stranger: str, seed: int) -> int:
    sent = 0
    for method, path, body, who in hostile_requests(count, target, token, stranger, random.Random(seed)):
        api.call(method, path, token=who, raw=body)
        sent += 1
    return sent


# --- the checks ----------------------------------------------------------------------------


def setup_django(db_url: str) -> None:
    os.environ["DATABASE_URL"] = db_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    import django

    django.setup()


def count_lost(book: Book, forfeits: list[int], bot_games: list[int], target: int, target_seq: int) -> dict:
    from django.db import connections

    from games.models import Event, Game

    connections.close_all()  # PostgreSQL restarted under us
    lost = {"acknowledged moves": 0, "deadlines": 0, "bot turns": 0, "fuzzed game changed": 0}
    for (game_id, seq), move in book.acknowledged.items():
        event = Event.objects.filter(game_id=game_id, seq=seq).first()
        if event is None or event.payload.get("move") != move:
            lost["acknowledged moves"] += 1
    lost["deadlines"] = Game.objects.filter(pk__in=forfeits).exclude(status="finished").count()
    for game in Game.objects.filter(pk__in=bot_games, status="active").prefetch_related("seats"):
        if any(seat.index in game.to_act and seat.bot for seat in game.seats.all()):
            lost["bot turns"] += 1
    lost["fuzzed game changed"] = int(Game.objects.get(pk=target).seq != target_seq)
    return lost


def count_doubled(book: Book, forfeits: list[int]) -> dict:
    from django.db.models import Count

    from games import log
    from games.models import Event, Game

    doubled = {"race winners": sum(max(0, n - 1) for n in book.race_winners),
               "idempotency keys": sum(1 for seqs in book.keys.values() if len(seqs) > 1),
               "timeouts": Event.objects.filter(game_id__in=forfeits, kind="timeout").values("game_id")
               .annotate(n=Count("id")).filter(n__gt=1).count(),
               "chain breaks": 0}
    for game in Game.objects.all():
        doubled["chain breaks"] += len(log.chain_problems(game, list(Event.objects.filter(game=game).order_by("seq"))))
    return doubled


def count_leaked(api: Api, games: list[tuple[int, list]], anonymous_token: str) -> tuple[int, int]:
    """Private payloads served to another seat, a stranger or nobody, and seeds of running games;
    and how many (private event, viewer) pairs were looked at."""
    from games.models import Event, Game

    leaked = checked = 0
    for game_id, tokens in games:
        game = Game.objects.get(pk=game_id)
        if game.status == "finished":
            continue
        secrets = {e.seq: e for e in Event.objects.filter(game=game) if e.payload != e.public_payload}
        for viewer_seat, token in [*enumerate(tokens), (None, anonymous_token), (None, None)]:
            status, answer = api.call("GET", f"/api/games/{game_id}/events/", token=token)
            for event in answer["events"] if status == 200 else []:
                secret = secrets.get(event["seq"])
                if secret is not None and secret.seat != viewer_seat:
                    checked += 1
                    leaked += event["payload"] != secret.public_payload
            status, detail = api.call("GET", f"/api/games/{game_id}/", token=token)
            if status == 200 and detail.get("seed"):
                leaked += 1
    return leaked, checked


# --- streams that must follow their callers (issue 30) -------------------------------------


def _stream_lines(port: int, path: str, token: str):
    """An NDJSON stream asked for on the API's own port (the web server hands it over), as lines."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Authorization": f"Token {token}", "Accept": "application/x-ndjson"})
    answer = connection.getresponse()
    if answer.status != 200:
        raise RuntimeError(f"stream {path}: {answer.status} {answer.read()[:200]!r}")
    def lines():
        while True:
            line = answer.readline()
            if not line:
                return
            if line.strip():
                yield json.loads(line)
    return connection, lines()


def revoked_stream_leaks(after: list[dict], seq_at_revocation: int) -> list[dict]:
    """What a stream whose token was revoked wrongly sent, of the items read after the revocation
    (`after`): any event recorded after it (seq above `seq_at_revocation`), and anything but
    `stream_end` `token_revoked` as its last item (the stream went on). Events up to that seq
    are not counted: the token could read them before it was revoked, and a stream may still be
    sending them when the revocation is answered (a stream used to replay the log from its start
    after `game_full`, which bench.chaos counted as a leak: decision 0023)."""
    wrong = [item for item in after if "kind" in item and item.get("seq", 0) > seq_at_revocation]
    if not after or after[-1] != {"type": "stream_end", "reason": "token_revoked"}:
        wrong.append(after[-1] if after else {"type": "ended without stream_end"})
    return wrong


def stream_attacks(api: Api, port: int, tokens: list[str]) -> tuple[int, int]:
    """A stream kept open after its token is revoked, and a stream kept open after its caller
    left the seat whose next occupant then makes a secret choice: (leaks, attacks)."""
    from games.models import Event

    leaks = 0
    # Revoked token: no event recorded after the revocation may come, and the stream must end.
    game_id = create_game(api, tokens[0], {"rules": "scavenge", "players": 2})["id"]
    made = api.patient("POST", "/api/tokens/", {"scopes": ["read"]}, token=tokens[0])[1]
    connection, items = _stream_lines(port, f"/api/games/{game_id}/stream/", made["token"])
    assert next(items)["type"] == "game_full"
    api.patient("DELETE", f"/api/tokens/{made['id']}/", token=tokens[0])
    seq_at_revocation = api.patient("GET", f"/api/games/{game_id}/", token=tokens[0])[1]["seq"]
    api.patient("POST", f"/api/games/{game_id}/join/", token=tokens[1])  # news the stream must not send
    try:
        after = list(items)
    except (TimeoutError, OSError):
        after = [{"type": "still open"}]
    connection.close()
    wrong = revoked_stream_leaks(after, seq_at_revocation)
    if wrong:
        print(f"stream attack (revoked token), game {game_id}: after the revocation at seq {seq_at_revocation} "
              f"the stream sent {wrong}", flush=True)
    leaks += bool(wrong)
    # Stale seat: join seat 1, open the stream, leave; the seat's next occupant's secrets stay hidden.
    host, leaver, *others = tokens[2:6]
    game_id = create_game(api, host, {"rules": "terrain_vague", "players": 3, "options": {"board": "random"}})["id"]
    api.patient("POST", f"/api/games/{game_id}/join/", token=leaver)
    connection, items = _stream_lines(port, f"/api/games/{game_id}/stream/", leaver)
    next(items)
    api.patient("POST", f"/api/games/{game_id}/leave/", token=leaver)
    for token in others:
        api.patient("POST", f"/api/games/{game_id}/join/", token=token)
    seats = {api.patient("GET", f"/api/games/{game_id}/", token=t)[1]["your_seat"]: t for t in [host, *others]}
    secret_seq = None
    for _ in range(300):
        game = api.patient("GET", f"/api/games/{game_id}/", token=host)[1]
        if game["status"] != "active":
            break
        mover = game["to_act"][0]
        listed = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=seats[mover])[1]
        status, played = api.patient("POST", f"/api/games/{game_id}/moves/",
                                     {"move": listed["moves"][0], "expected_seq": listed["seq"]}, token=seats[mover])
        if status == 201 and mover == 1 and listed["moves"][0].get("type") in ("choose_digits", "choose_bars"):
            secret_seq = played["seq"]
            break
    seen = {}
    for item in items:
        if "seq" in item and "kind" in item:
            seen[item["seq"]] = item
        if secret_seq is None or item.get("seq") == secret_seq or item.get("type") == "stream_end":
            break
    connection.close()
    for event in Event.objects.filter(game_id=game_id, seq__in=list(seen)):
        if event.payload != event.public_payload and seen[event.seq]["payload"] != event.public_payload:
            leaks += 1
            print(f"stream attack (stale seat), game {game_id}: seq {event.seq} came with its private payload "
                  f"{seen[event.seq]['payload']!r}", flush=True)
    return leaks, 2 if secret_seq is not None else 1


# --- the run -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz", type=int, default=2000, help="hostile requests (at least 2,000)")
    parser.add_argument("--outages", type=int, default=5, help="Redis outages")
    parser.add_argument("--no-postgres-restart", action="store_true")
    parser.add_argument("--outage-seconds", type=float, default=20, help="the long Redis outage with step clocks")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file")
    parser.add_argument("--web-kills", action="store_true",
                        help="only the web server's SIGKILLs, this tree beside --before's, under the players' load")
    parser.add_argument("--before", default="ef0e3b1",
                        help="--web-kills: the tree to compare with (a git revision; by default the last before "
                             "the port held by supervisord)")
    parser.add_argument("--rounds", type=int, default=1, help="--web-kills: rounds of both trees in turn")
    args = parser.parse_args(argv)
    if args.web_kills:
        return web_kills(args)
    began = time.monotonic()

    work = Path(tempfile.mkdtemp(prefix="scrapyard-chaos-"))
    var = work / "var"
    var.mkdir()
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    fresh_database(db_url)
    redis = Redis(work)
    redis.start()
    env = {
        **os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis.url, "SCRAPYARD_VAR_DIR": str(var),
        "SCRAPYARD_BIN": str(BIN), "HOST": "127.0.0.1", "PORT": str(free_port()),
        "STREAM_PORT": str(free_port()), "SMTP_PORT": str(free_port()), "SCRAPYARD_STREAM_HANDOFF": str(var / "streams.sock"),
        # make run's: granian serves the streams itself, and the stream processes stay stopped.
        "SCRAPYARD_WEB_SERVER": os.environ.get("SCRAPYARD_WEB_SERVER", "granian"),
        "SCRAPYARD_STREAM_PROCESS": "true" if os.environ.get("SCRAPYARD_WEB_SERVER") == "gunicorn" else "false",
        "SCRAPYARD_WEB_PROCESSES": "3", "SCRAPYARD_WEB_THREADS": "4", "SCRAPYARD_DEADLINE_PROCESSES": "2", "SCRAPYARD_BOT_PROCESSES": "2",
        "SCRAPYARD_DEFAULT_PROCESSES": "2", "SCRAPYARD_MAIL_PROCESSES": "2", "SCRAPYARD_WEBHOOK_PROCESSES": "2", "SCRAPYARD_FEED_PROCESSES": "2",
        "SCRAPYARD_ANALYSIS_PROCESSES": "2", "SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK": "1", "SCRAPYARD_BOT_STALLED_SECONDS": "3",
        "SCRAPYARD_BOT_GAMES_PER_ACCOUNT": "2",
        # The flood: one account queues 20 analyses (the quota's refusals are the tests' business).
        "SCRAPYARD_ANALYSIS_PER_ACCOUNT": "20",
        # The fuzz comes from one address and the players from a few accounts: limits would only
        # turn it into 429s, which the rate-limit tests cover.
        "SCRAPYARD_RATE_ACCOUNT": "1000000", "SCRAPYARD_RATE_ADDRESS": "1000000",
        "SCRAPYARD_RATE_LOGIN": "1000000", "SCRAPYARD_RATE_LOGIN_ADDRESS": "1000000",
        "PYTHONUNBUFFERED": "1",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    server = Server(var, env)
    tally = Tally()
    api = Api(f"http://127.0.0.1:{env['PORT']}", tally)
    stop = threading.Event()
    try:
        if not until(lambda: server.all_running() and api.call("GET", "/api/health/", record=False)[0] == 200, 240):
            raise SystemExit("the server did not come up:\n" + (var / "supervisor.out").read_text()[-3000:])
        print(f"server up in {time.monotonic() - began:.0f} s", flush=True)
        os.environ["REDIS_URL"] = redis.url  # this process's own after-commit sends go to the server's Redis
        setup_django(db_url)
        tokens = [register(api, f"chaos{n}") for n in range(12)]
        names = [f"chaos{n}" for n in range(12)]
        stranger = register(api, "stranger")

        person_games = []
        for n, rules_id in enumerate(["scavenge", "terrafex", "terrain_vague", "space_junkyard"] * 2):
            pair = [tokens[n % 12], tokens[(n + 1) % 12]]
            game = create_game(api, pair[0], {"rules": rules_id, "players": 2})
            api.patient("POST", f"/api/games/{game['id']}/join/", token=pair[1])
            person_games.append((game["id"], pair))
        bot_games = []
        for n in range(6):
            game = create_game(api, tokens[n], {"rules": ["scavenge", "terrafex"][n % 2], "players": 2,
                                                "bots": [{"seat": 1, "bot": "mcts", "level": 1}]})
            bot_games.append((game["id"], [tokens[n], None]))
        slow = DrippingEndpoint()  # every event of three players' games goes to it
        slow_hooks = [api.patient("POST", "/api/webhooks/", {"url": f"http://127.0.0.1:{slow.port}/hook"},
                                  token=tokens[n])[1]["id"] for n in range(3)]
        forfeits, steps = [], []
        for n in range(10):
            game = create_game(api, tokens[n], {"rules": "scavenge", "players": 2, "timeout_policy": "forfeit",
                                                "time_control": {"type": "step", "seconds": 8 + 7 * n}})
            api.patient("POST", f"/api/games/{game['id']}/join/", token=tokens[(n + 5) % 12])
            forfeits.append(game["id"])
            steps.append(8 + 7 * n)
        target = create_game(api, tokens[11], {"rules": "scavenge", "players": 2})
        api.patient("POST", f"/api/games/{target['id']}/join/", token=tokens[10])
        target_seq = api.patient("GET", f"/api/games/{target['id']}/", token=tokens[11])[1]["seq"]
        book = Book()
        print(f"{len(person_games)} games of people, {len(bot_games)} against bots, {len(forfeits)} on the clock",
              flush=True)

        crowd = [threading.Thread(target=players, args=(api, book, person_games + bot_games, stop, seed), daemon=True)
                 for seed in range(3)]
        for thread in crowd:
            thread.start()
        fuzzer = ThreadPoolExecutor(1)
        fuzzed = fuzzer.submit(fuzz, api, args.fuzz, target["id"], tokens[11], stranger, 7)

        for round_ in range(3):
            for game_id, pair in person_games[:4]:
                race(api, book, game_id, pair)
        print(f"races: {len(book.race_winners)}, winners {Counter(book.race_winners)}", flush=True)
        for name in ("workers:deadlines-0", "workers:bots-0", "workers:deadlines-1", "workers:bots-1"):
            server.kill_program(name)  # one of a pair each time (docs/decisions/0035)
            time.sleep(2)
        print("workers killed 4 times", flush=True)
        for outage in range(args.outages):
            redis.kill()
            time.sleep(3)
            redis.start()
            time.sleep(4)
        print(f"{args.outages} Redis outages", flush=True)
        workers_back = chaos_phases.workers_settled(sum(name.startswith("workers:") for name in server.expected()))
        print(f"every worker answering a ping {workers_back} s after the outages", flush=True)
        outage = chaos_phases.redis_outage_with_step_clock(redis, names, args.outage_seconds)
        print(*chaos_phases.outage_lines(outage), sep="\n", flush=True)
        killed = chaos_phases.supervised_kills(server, env, until)
        print(*chaos_phases.kill_lines(killed), sep="\n", flush=True)
        workers_killed = chaos_phases.worker_kills(server, api, tokens[0], names, random.Random(13))
        print(*chaos_phases.worker_kill_lines(workers_killed), sep="\n", flush=True)
        if not args.no_postgres_restart:
            tally.postgres_down.set()
            restart_postgres()
            tally.postgres_down.clear()
            print("PostgreSQL restarted", flush=True)
        sent = fuzzed.result()
        print(f"{sent} hostile requests sent", flush=True)
        ratio, slowest = body_check_ratio(api)
        print(f"pathological bodies: {ratio:.2f} times a benign body's time, slowest {slowest * 1000:.0f} ms", flush=True)
        time.sleep(5)
        stop.set()
        for thread in crowd:
            thread.join(60)

        from django.db import connections

        connections.close_all()
        flood = chaos_phases.analysis_flood(api, tokens, names, random.Random(11))
        print(*chaos_phases.flood_lines(flood), sep="\n", flush=True)
        bot_ids = [game_id for game_id, _ in bot_games]

        def settled() -> bool:
            left = count_lost(book, forfeits, bot_ids, target["id"], target_seq)
            return left["deadlines"] == 0 and left["bot turns"] == 0

        until(settled, 120, 1.0)  # the workers catch up with what the outages held back
        lost = count_lost(book, forfeits, bot_ids, target["id"], target_seq)
        lost["deadlines through the long outage"] = outage["missing"]
        doubled = count_doubled(book, forfeits)
        doubled["timeouts through the long outage"] = outage["doubled"]
        leaked, secrets_checked = count_leaked(api, person_games + bot_games, stranger)
        late = sorted(deadline_lateness(forfeits, steps))
        hooks = webhook_figures(slow_hooks)
        slow.close()
        stream_leaks, stream_attacked = stream_attacks(api, int(env["PORT"]), tokens)
        leaked += stream_leaks
        print(f"stream attacks: {stream_attacked} (revoked token, stale seat), {stream_leaks} leaked", flush=True)
        still_up = server.all_running()
    finally:
        stop.set()
        server.stop()
        if redis.process.poll() is None:
            redis.kill()
    edges = [
        f"pathological 60 KiB bodies (unclosed escaped quotes and backslashes, a quote before every bracket) "
        f"on anonymous POST /api/accounts/: {ratio:.2f} times the median time of a benign body of the same size, "
        f"slowest answer {slowest * 1000:.0f} ms",
        f"a webhook endpoint answering a byte a second: {hooks['attempts']} attempts, the longest "
        f"{hooks['longest_ms']} ms (deadline 10 s a delivery, on the webhooks queue)",
        f"forfeits on the clock through the outages: timeouts late by median {late[len(late) // 2] if late else 0:.1f} s, "
        f"at most {max(late, default=0):.1f} s (SCRAPYARD_CLOCKS_RESEND 30 s, OVERDUE_RESEND 3 s)",
        f"after the SIGKILLs of one deadlines and one bots worker of their pairs (twice) and the short outages, every worker answered a ping "
        f"{workers_back} s later; then the long outage:",
        *chaos_phases.outage_lines(outage), *chaos_phases.kill_lines(killed),
        *chaos_phases.worker_kill_lines(workers_killed), *chaos_phases.flood_lines(flood),
    ]
    return report(args, tally, book, lost, doubled, (leaked, secrets_checked), sent, still_up,
                  time.monotonic() - began, edges)


def server_environment(db_url: str, redis_url: str, var: Path) -> dict[str, str]:
    """What `make run` exports, for a server of this run's on free ports."""
    return {
        **os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url, "SCRAPYARD_VAR_DIR": str(var),
        "SCRAPYARD_BIN": str(BIN), "HOST": "127.0.0.1", "PORT": str(free_port()), "STREAM_PORT": str(free_port()),
        "SMTP_PORT": str(free_port()), "SCRAPYARD_WEB_SERVER": "granian", "SCRAPYARD_STREAM_PROCESS": "false",
        "SCRAPYARD_WEB_PROCESSES": "3", "SCRAPYARD_WEB_THREADS": "4", "SCRAPYARD_DEADLINE_PROCESSES": "2",
        "SCRAPYARD_BOT_PROCESSES": "2", "SCRAPYARD_DEFAULT_PROCESSES": "2", "SCRAPYARD_MAIL_PROCESSES": "2",
        "SCRAPYARD_WEBHOOK_PROCESSES": "2", "SCRAPYARD_FEED_PROCESSES": "2", "SCRAPYARD_ANALYSIS_PROCESSES": "2", "SCRAPYARD_RATE_ACCOUNT": "1000000", "SCRAPYARD_RATE_ADDRESS": "1000000",
        "SCRAPYARD_RATE_LOGIN": "1000000", "SCRAPYARD_RATE_LOGIN_ADDRESS": "1000000", "PYTHONUNBUFFERED": "1",
    }


def web_kills(args) -> int:
    """`--web-kills`: the web server (granian, make run's) SIGKILLed under the players' load, the
    tree at `--before` and this one in turn, each under its own deploy/supervisord.conf: first the
    first web program's process group (its main process and workers), then its main process
    alone. A probe opens a new connection every 0.2 s from 12 s before each kill to 60 s after."""
    began = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="scrapyard-web-kills-"))
    before = work / "before"
    before.mkdir()
    archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    fresh_database(db_url)
    redis = Redis(work)
    redis.start()
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env=server_environment(db_url, redis.url, work))
    shapes = {f"before ({args.before})": before, "after (this tree)": ROOT}
    figures: dict[str, list[dict]] = {shape: [] for shape in shapes}
    tally, book, games = Tally(), Book(), None
    try:
        for round_ in range(args.rounds):
            for shape, root in shapes.items():
                var = work / f"var-{len(figures[shape])}-{round_}-{root.name}"
                var.mkdir()
                env = server_environment(db_url, redis.url, var)
                server = Server(var, env, root)
                api = Api(f"http://127.0.0.1:{env['PORT']}", tally)
                stop = threading.Event()
                try:
                    def up(server=server, api=api) -> bool:
                        return server.all_running() and api.call("GET", "/api/health/", record=False)[0] == 200

                    if not until(up, 300):
                        log = (var / "supervisor.out").read_text()[-3000:]
                        raise SystemExit(f"{shape}: the server did not come up:\n{log}")
                    if games is None:
                        tokens = [register(api, f"killed{n}") for n in range(8)]
                        games = []
                        for n, rules_id in enumerate(["scavenge", "terrafex"] * 3):
                            game = create_game(api, tokens[n], {"rules": rules_id, "players": 2})
                            api.patient("POST", f"/api/games/{game['id']}/join/", token=tokens[n + 1])
                            games.append((game["id"], [tokens[n], tokens[n + 1]]))
                    crowd = [threading.Thread(target=players, args=(api, book, games, stop, seed), daemon=True)
                             for seed in range(3)]
                    for thread in crowd:
                        thread.start()
                    time.sleep(5)
                    for kind, whole_group in (("main process and workers", True), ("main process alone", False)):
                        until(server.all_running, 300)
                        kill = chaos_phases.web_kill(server, server.port, server.first_web(), whole_group)
                        kill["kind"] = f"{kind}, round {round_ + 1}"
                        figures[shape].append(kill)
                        print(shape, kill, flush=True)
                finally:
                    stop.set()
                    server.stop()
    finally:
        if redis.process.poll() is None:
            redis.kill()
    lines = chaos_phases.web_kill_lines(figures)
    load = os.getloadavg()[0]
    print(*lines, sep="\n")
    if not args.no_write:
        RESULTS.with_name("chaos-web-kills.md").write_text(
            "# The web server SIGKILLed (`python -m bench.chaos --web-kills`)\n\n"
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}; load average {load:.1f} at the end; "
            f"{time.monotonic() - began:.0f} s.\n\nCommand: `python -m bench.chaos --web-kills --before {args.before} "
            f"--rounds {args.rounds}`\n\n" + "\n".join(lines) + "\n")
    return 0


def report(args, tally: Tally, book: Book, lost: dict, doubled: dict, leaks: tuple[int, int], sent: int,
           still_up: bool, seconds: float, edges: list[str] = ()) -> int:
    leaked, secrets_checked = leaks
    server_errors = len(tally.server_errors) + len(tally.not_json)
    totals = {"lost": sum(lost.values()), "doubled": sum(doubled.values()), "5xx": server_errors, "leaked": leaked}
    requests = sum(tally.statuses.values())
    lines = [
        f"lost {totals['lost']} {lost}",
        f"doubled {totals['doubled']} {doubled}",
        f"5xx {totals['5xx']} (500s and others: {len(tally.server_errors)}, not JSON: {len(tally.not_json)}); "
        f"designed 503 service_unavailable while PostgreSQL restarted: {tally.outage_503}",
        f"leaked {leaked} ({secrets_checked} private moves of running games read by other seats, a stranger "
        "and nobody; and every running game's seed)",
        f"{requests} requests answered ({sent} hostile), {len(book.acknowledged)} moves acknowledged, "
        f"{len(book.race_winners)} races; statuses {dict(sorted(tally.statuses.items()))}",
        f"every supervised process running at the end: {still_up}; {seconds:.0f} s",
        *edges,
    ]
    for line in lines:
        print(line)
    for example in (tally.server_errors + tally.not_json)[:10]:
        print("  ", example)
    ok = not any(totals.values()) and still_up and sent >= 2000
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            "# Fault injection (`python -m bench.chaos`)\n\n"
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}; load average "
            f"{os.getloadavg()[0]:.1f} at the end.\n\n"
            f"Command: `python -m bench.chaos --fuzz {args.fuzz} --outages {args.outages} --outage-seconds {args.outage_seconds:g}"
            f"{' --no-postgres-restart' if args.no_postgres_restart else ''}`\n\n"
            "| lost | doubled | 5xx | leaked |\n|---|---|---|---|\n"
            f"| {totals['lost']} | {totals['doubled']} | {totals['5xx']} | {totals['leaked']} |\n\n"
            + "".join(f"- {line}\n" for line in lines)
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
