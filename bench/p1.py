"""P1, the API's moves per second against what the same PostgreSQL can commit:
`python -m bench.p1` (or `python -m bench.run api`).

- pgbench, run here: 16 clients, one fsync'd single-row INSERT per transaction, on the same
  database; interleaved with the API run (16 clients, one POST per move, `bench.api_load`),
  three pairs; moves/s, pgbench tps and their ratio, median of the three.
- CPU per move: the web server's processes, PostgreSQL's and the load generator's, from /proc,
  over the API runs, divided by the moves stored.
- SQL statements per move POST and per game GET, counted in process (Django's query log) on the
  same database, the token already read.
- Scaling: moves/s, p50 and p99 at 1, 4, 16 and 64 clients; and the three-request loop of the
  first benchmark (GET game, GET moves, POST) at 16 clients, for comparison.
- `--peer`: pgbench, Scrapyard and boardgame.io (`bench/peer/`, its own server with FlatFile
  storage, 16 two-player matches and clients) side by side, two rounds; each Scrapyard window
  sits between its own pgbench and boardgame.io windows.

The web server is the one `make run` starts (granian serving `project.front`, a process per core,
4 threads each, statements prepared where the connection keeps them). Needs PostgreSQL (`BENCH_DATABASE_URL`, default
postgres://postgres@127.0.0.1:5432/scrapyard_bench) and pgbench on the PATH.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bench import api_load, db

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")
PAIRS, PGBENCH_SECONDS, API_SECONDS, SCALING_SECONDS = 3, 10, 20, 15


def web_server(database_url: str, port: int, server: str | None = None, environment: dict[str, str] | None = None,
               *, processes: int | None = None, threads: int = 4, argv: list[str] | None = None,
               tree: Path = ROOT) -> subprocess.Popen:
    """The web server on the bench database: `server` as `project.serve` starts it (`make run`'s
    by default), `processes` x `threads`, or the command `argv` (after `python -m`); from the
    checkout `tree` (its own .venv) when another commit is measured; `environment` adds settings."""
    # Redis as a deployment has it (rate-limit counts, stream notices); the account's rate limit
    # raised, so the figure is the server's, not the limit's (32 accounts moving ~20 times a second).
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "project.settings",
           "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"),
           "SCRAPYARD_RATE_ACCOUNT": "1000000", "SCRAPYARD_WEB_THREADS": str(threads), **(environment or {})}
    from project import serve

    if argv is None and server == "uvicorn":  # measured, not served: project.front under uvicorn
        argv = ["uvicorn", "project.front:application", "--host", "127.0.0.1", "--port", str(port),
                "--workers", str(processes or os.cpu_count() or 1)]
    if argv is None:
        argv = serve.command(server or serve.DEFAULT, "127.0.0.1", port, processes or os.cpu_count() or 1, threads)
    python = sys.executable if tree == ROOT else str(tree / ".venv" / "bin" / "python")
    return subprocess.Popen([python, "-m", *argv, "--log-level", "warning"], cwd=tree, env=env)


# --- CPU from /proc --------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the state on (the name may hold spaces)


def _cpu_seconds(pids: set[int]) -> float:
    total = 0.0
    for pid in pids:
        fields = _stat(pid)
        if fields:
            total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return total


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _children(parent: int) -> set[int]:
    return {pid for pid in _all_pids() if (fields := _stat(pid)) and int(fields[1]) == parent}


def _postgres_pids() -> set[int]:
    found = set()
    for pid in _all_pids():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip().startswith("postgres"):
                found.add(pid)
        except OSError:
            pass
    return found


class CpuMeter:
    """CPU seconds of the web server, PostgreSQL and this process between `start` and `stop`,
    counted per process: one that starts meanwhile counts whole, one that ends meanwhile (its
    last figures unknown) counts nothing."""

    def __init__(self, server: subprocess.Popen):
        self.server = server

    def _now(self) -> dict[str, dict[int, float]]:
        web = {self.server.pid} | _children(self.server.pid)
        return {"web": {pid: _cpu_seconds({pid}) for pid in web},
                "database": {pid: _cpu_seconds({pid}) for pid in _postgres_pids()},
                "load": {0: time.process_time()}}

    def start(self) -> None:
        self.before = self._now()

    def stop(self) -> dict[str, float]:
        after = self._now()
        return {part: sum(seconds - self.before[part].get(pid, 0.0) for pid, seconds in after[part].items())
                for part in after}


# --- pgbench ---------------------------------------------------------------------------------


def pgbench_tps(database_url: str, clients: int = 16, seconds: int = PGBENCH_SECONDS) -> float:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_p1_inserts (id bigserial PRIMARY KEY, v integer NOT NULL, "
                     "at timestamptz NOT NULL DEFAULT now())")
    url = urlparse(database_url)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write("INSERT INTO bench_p1_inserts (v) VALUES (1);\n")
    command = ["pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(seconds), "-f", script.name,
               "-h", url.hostname or "127.0.0.1", "-p", str(url.port or 5432), "-U", url.username or "postgres",
               url.path.lstrip("/")]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    os.unlink(script.name)
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    if found is None:
        raise RuntimeError(f"pgbench said: {done.stdout}{done.stderr}")
    return float(found[1])


def vacuumed(database_url: str) -> None:
    """VACUUM ANALYZE the bench database before a measurement, as autovacuum keeps a deployment's.
    Where autovacuum is off (CI's PostgreSQL here), every deadline row a move replaced stayed
    behind as a dead row (128,000 after a few runs), and each run measured a staler database."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


# --- accounts and statements, in this process -------------------------------------------------------


def _django(database_url: str) -> None:
    os.environ.update({"DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "project.settings"})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _new_token() -> str:
    """A new account's token, made here in the database (sign-up is rate-limited per address and
    hashes a password slowly on purpose; neither is what this measures)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=get_user_model().objects.create_user(f"b{os.urandom(6).hex()}")).key


def accounts(database_url: str, pairs: int) -> list[list[str]]:
    """Pairs of account tokens, for the load generator's clients."""
    _django(database_url)
    return [[_new_token(), _new_token()] for _ in range(pairs)]


def _two_players_in_a_game(database_url: str) -> tuple[list[Any], int]:
    """Two of Django's test clients, signed in, seated in a new two-seat Scavenge game."""
    _django(database_url)
    from rest_framework.test import APIClient

    players = []
    for _ in range(2):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {_new_token()}")
        players.append(client)
    game_id = players[0].post("/api/games/", {"rules": "scavenge", "players": 2}, format="json").json()["id"]
    players[1].post(f"/api/games/{game_id}/join/", format="json")
    return players, game_id


def _round_trips(connection: Any, call: Any) -> tuple[Any, int]:
    """`call()`'s answer, and the round trips its queries took on `connection` (PostgreSQL): the
    server's ReadyForQuery messages in libpq's trace. Django's query log cannot tell: it notes a
    BEGIN and a COMMIT of its own whether or not they went alone (`games.concurrency.VersionCheck`)."""
    from psycopg import pq

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile("w+") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            answer = call()
        finally:
            pgconn.untrace()
        trace.seek(0)
        return answer, sum(1 for line in trace if line.startswith("B\t") and "\tReadyForQuery\t" in line)


def statements_per_move(database_url: str, moves: int = 30) -> dict[str, float]:
    """SQL statements of a move POST and of a game GET, and a move POST's round trips, through
    Django's own test client in this process, on the bench database (the token already read, as
    in a running server)."""
    players, game_id = _two_players_in_a_game(database_url)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    posts, gets, trips = [], [], []
    game = players[0].get(f"/api/games/{game_id}/").json()
    listed = players[game["to_act"][0]].get(f"/api/games/{game_id}/legal-moves/").json()
    after = {"to_act": game["to_act"], "seq": listed["seq"], "moves": listed["moves"]}
    for _ in range(moves):
        mover = players[after["to_act"][0]]
        if not after.get("moves"):
            after["moves"] = mover.get(f"/api/games/{game_id}/legal-moves/").json()["moves"]
        body = {"move": after["moves"][0], "expected_seq": after["seq"]}
        with CaptureQueriesContext(connection) as queries:
            answer, round_trips = _round_trips(connection, lambda: mover.post(
                f"/api/games/{game_id}/moves/", body, format="json"))
        assert answer.status_code == 201, answer.content
        posts.append(len(queries.captured_queries))
        trips.append(round_trips)
        after = answer.json()["game"]
        if after["status"] != "active":
            break
        with CaptureQueriesContext(connection) as queries:
            players[0].get(f"/api/games/{game_id}/")
        gets.append(len(queries.captured_queries))
    return {"post": statistics.mean(posts), "post_max": max(posts), "get": statistics.mean(gets),
            "round_trips": statistics.mean(trips)}


# --- the whole measure ----------------------------------------------------------------------------


def measure(database_url: str, port: int = 8765) -> list[str]:
    server = web_server(database_url, port)
    base = f"http://127.0.0.1:{port}"
    try:
        api_load.wait_for(f"{base}/api/health/")
        tokens = accounts(database_url, 64)
        meter = CpuMeter(server)
        pairs = []
        for number in range(PAIRS):
            tps = pgbench_tps(database_url)
            meter.start()
            result = api_load.run(base, tokens, "one", 16, API_SECONDS, seed=number)
            cpu = meter.stop()
            pairs.append((result, tps, cpu))
            print(f"pair {number + 1}: {result.per_second:.0f} moves/s, pgbench {tps:.0f} tps", flush=True)
        three_meter = CpuMeter(server)
        three_meter.start()
        three = api_load.run(base, tokens, "three", 16, API_SECONDS, seed=9)
        three_cpu = three_meter.stop()
        scaling = [api_load.run(base, tokens, "one", clients, SCALING_SECONDS, seed=20 + clients)
                   for clients in (1, 4, 16, 64)]
    finally:
        server.terminate()
        server.wait(timeout=30)
    statements = statements_per_move(database_url)
    return _report(pairs, three, three_cpu, scaling, statements)


def _cpu_row(label: str, result: api_load.Result, cpu: dict[str, float]) -> str:
    per = {part: seconds * 1000 / max(result.moves, 1) for part, seconds in cpu.items()}
    return (f"| {label} | {per['web']:.2f} | {per['database']:.2f} | {per['load']:.2f} | "
            f"{sum(per.values()):.2f} | {result.requests / max(result.moves, 1):.2f} |")


def _report(pairs, three, three_cpu, scaling, statements) -> list[str]:
    rows = ["### P1: moves/s against pgbench (16 clients each, interleaved, median of three pairs)", "",
            "| pair | moves/s | POST p50 ms | POST p99 ms | pgbench tps | moves / pgbench tps |", "|---|---|---|---|---|---|"]
    ratios = []
    for number, (result, tps, _) in enumerate(pairs, start=1):
        ratios.append(result.per_second / tps)
        rows.append(f"| {number} | {result.per_second:,.0f} | {result.p50_ms:.1f} | {result.p99_ms:.1f} | {tps:,.0f} | "
                    f"{100 * ratios[-1]:.2f}% |")
    median_moves = statistics.median(result.per_second for result, _, _ in pairs)
    median_tps = statistics.median(tps for _, tps, _ in pairs)
    rows.append(f"| **median** | **{median_moves:,.0f}** | | | **{median_tps:,.0f}** | **{100 * statistics.median(ratios):.2f}%** |")
    rows += ["", "### CPU per move (ms, from /proc) and requests per move", "",
             "| client | web | PostgreSQL | load generator | total | requests/move |", "|---|---|---|---|---|---|"]
    for number, (result, _, cpu) in enumerate(pairs, start=1):
        rows.append(_cpu_row(f"one request a move, pair {number}", result, cpu))
    rows.append(_cpu_row("three requests a move (GET, GET, POST)", three, three_cpu))
    rows += ["", f"SQL statements: a move POST {statements['post']:.2f} on average (at most {statements['post_max']}, "
             f"a snapshot every 32nd move adds none: it joins the write), a game GET {statements['get']:.2f}; a move POST's "
             f"round trips to PostgreSQL {statements['round_trips']:.2f} on average.", "",
             "### Scaling (one request a move)", "",
             "| clients | moves | moves/s | POST p50 ms | POST p99 ms | conflicts | errors |", "|---|---|---|---|---|---|---|"]
    for result in scaling:
        rows.append(f"| {result.clients} | {result.moves} | {result.per_second:,.0f} | {result.p50_ms:.1f} | "
                    f"{result.p99_ms:.1f} | {result.conflicts} | {result.errors} |")
    rows.append(f"| 16, three requests a move | {three.moves} | {three.per_second:,.0f} | {three.p50_ms:.1f} | "
                f"{three.p99_ms:.1f} | {three.conflicts} | {three.errors} |")
    return rows


# (label, server, processes, threads, settings): `make run`'s first, then the other servers and
# shapes; prepared statements as each finds out (straight to PostgreSQL here: prepared), and the
# default once without them, so that lever is measured in the same run.
WEB_CONFIGS = [
    ("granian + project.front, 2 x 4 threads (make run's)", "granian", 2, 4, {}),
    ("granian + project.front, 2 x 4, statements not prepared", "granian", 2, 4,
     {"SCRAPYARD_DB_PREPARED_STATEMENTS": "off"}),
    ("uvicorn + project.front, 2 x 4 threads", "uvicorn", 2, 4, {}),
    ("granian WSGI alone, 2 x 4 (no streams: behind a proxy)", "granian-wsgi", 2, 4, {}),
    ("gunicorn gthread, 2 x 4, keep-alive (with the stream handoff)", "gunicorn", 2, 4, {}),
]


def _granian_wsgi(port: int, processes: int, threads: int) -> list[str]:
    """granian serving the WSGI application alone, as a node behind a proxy did (no streams)."""
    return ["granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port), "--workers", str(processes),
            "--blocking-threads", str(threads), "project.wsgi:application"]


def web_configs(database_url: str, port: int = 8766, seconds: float = 12, rounds: int = 3) -> list[str]:
    """The web server's shapes side by side: 16 clients, one request a move, on each, `rounds`
    times in turn (a shared machine's speed drifts: compare within a round)."""
    tokens = accounts(database_url, 16)
    rows = ["| round | web server | moves/s | POST p50 ms | POST p99 ms | CPU/move web ms | PostgreSQL ms | web + PostgreSQL ms |",
            "|---|---|---|---|---|---|---|---|"]
    for number in range(rounds):
        for name, server, processes, threads, environment in WEB_CONFIGS:
            argv = _granian_wsgi(port, processes, threads) if server == "granian-wsgi" else None
            process = web_server(database_url, port, server, environment, processes=processes, threads=threads, argv=argv)
            try:
                api_load.wait_for(f"http://127.0.0.1:{port}/api/health/")
                meter = CpuMeter(process)
                meter.start()
                result = api_load.run(f"http://127.0.0.1:{port}", tokens, "one", 16, seconds, seed=number)
                cpu = meter.stop()
            finally:
                process.terminate()
                process.wait(timeout=30)
            web, database = (cpu[part] * 1000 / max(result.moves, 1) for part in ("web", "database"))
            rows.append(f"| {number + 1} | {name} | {result.per_second:,.0f} | {result.p50_ms:.0f} | {result.p99_ms:.0f} | "
                        f"{web:.2f} | {database:.2f} | {web + database:.2f} |")
            print(rows[-1], flush=True)
    return rows


PEER = ROOT / "bench" / "peer"


def boardgame_io(clients: int, seconds: float, port: int = 8790) -> dict[str, Any]:
    """One run of the boardgame.io peer (`bench/peer/peer.js`: its own server, FlatFile storage,
    one two-player match per client); its figures as it prints them."""
    import json

    if not (PEER / "node_modules" / "boardgame.io").exists():
        raise SystemExit("the peer is not installed: cd bench/peer && npm ci")
    done = subprocess.run(["node", "peer.js", "--clients", str(clients), "--seconds", str(seconds), "--port", str(port)],
                          cwd=PEER, capture_output=True, text=True, timeout=seconds + 120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# Scrapyard's shapes beside the peer: `make run`'s (granian serving `project.front`, the move's
# statements prepared where the connection keeps them: straight to PostgreSQL here), and gunicorn
# with nothing prepared, as `make run` served before (docs/decisions/0026), so each lever is
# measured in the same run. (The locking read's lever was settled and retired: docs/decisions/0002.)
PEER_SERVERS = [
    ("granian + project.front, prepared (make run)", "granian", {}),
    ("gunicorn, not prepared (make run before)", "gunicorn", {"SCRAPYARD_DB_PREPARED_STATEMENTS": "off"}),
]
# The three clients (`bench.api_load`): the one that knows the rules and only posts, a plain REST
# client (GET legal moves, POST the move), the web page's (GET the game as the mover, its legal
# moves in the answer, POST; a tree from before that GETs the moves too, as its page did).
PEER_CLIENTS = [("rules-aware (POST)", "one"), ("plain REST (GET moves, POST)", "two"),
                ("web page (GET game with its moves, POST)", "page")]


@dataclass
class Scrapyard:
    """A web server measured beside the peer: its label, its process, its port and accounts."""

    label: str
    process: subprocess.Popen
    port: int
    tokens: list[list[str]]


def _tokens_in(tree: Path, database_url: str, pairs: int) -> list[list[str]]:
    """Account tokens made by the checkout `tree` in its own database (another commit's schema)."""
    import json

    code = ("import json, os, sys; sys.path.insert(0, '.'); import django; django.setup(); "
            "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
            "new = lambda: Token.objects.create(user=get_user_model().objects.create_user('b' + os.urandom(6).hex())).key; "
            f"print(json.dumps([[new(), new()] for _ in range({pairs})]))")
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "project.settings"}
    done = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-c", code], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _before(tree: Path, database_url: str, port: int) -> Scrapyard:
    """The checkout `tree` (another commit, e.g. issue 50's "before") as its `make run` served it
    (its own `project.serve` defaults), on a database of its own migrated by it, and a Redis
    database of its own (its cached views must not meet this tree's: game ids overlap)."""
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "project.settings"}
    subprocess.run([str(tree / ".venv" / "bin" / "python"), "manage.py", "migrate", "--noinput", "--verbosity", "0"],
                   cwd=tree, env=env, check=True)
    vacuumed(database_url)
    code = ("import json, sys; sys.path.insert(0, '.'); from project import serve; "
            f"print(json.dumps(serve.from_environment({{'HOST': '127.0.0.1', 'PORT': '{port}', "
            f"'SCRAPYARD_WEB_PROCESSES': '{os.cpu_count() or 1}', 'SCRAPYARD_WEB_THREADS': '4'}})))")
    import json

    argv = json.loads(subprocess.run([str(tree / ".venv" / "bin" / "python"), "-c", code], cwd=tree, env=env,
                                     capture_output=True, text=True, check=True).stdout)
    redis = os.environ.get("BENCH_BEFORE_REDIS_URL", "redis://127.0.0.1:6379/6")
    process = web_server(database_url, port, argv=argv, tree=tree, environment={"REDIS_URL": redis})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True, check=False).stdout.strip()
    return Scrapyard(f"{commit} as its make run served it ({argv[0]})", process, port,
                     _tokens_in(tree, database_url, 16))


def peer(database_url: str, port: int = 8768, rounds: int = 2, seconds: float = 15, peer_port: int = 8790,
         before: Path | None = None, before_database_url: str | None = None) -> list[str]:
    """Side by side, `rounds` times for each web server (`PEER_SERVERS`, on `port`, `port + 1`,
    ...; and the checkout `before` on its own database when given): pgbench, then each of the
    three clients (`PEER_CLIENTS`) against Scrapyard under that server (every move committed with
    fsync), then the boardgame.io peer, 16 clients and 16 two-player games each. Each row's
    ratios are between neighbouring windows."""
    tokens = accounts(database_url, 16)
    servers = [Scrapyard(label, web_server(database_url, port + number, server=name, environment=environment),
                         port + number, tokens)
               for number, (label, name, environment) in enumerate(PEER_SERVERS)]
    rows = [("| round | web server | client | load (1 min) | pgbench tps | Scrapyard moves/s | P1 ratio | POST p50 / p99 ms | "
             "server CPU/move web + PostgreSQL ms | its load generator's ms | boardgame.io moves/s | its p50 / p99 ms | "
             "its server CPU/move ms | Scrapyard / boardgame.io |"),
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    try:
        if before is not None:
            servers.append(_before(before, before_database_url, port + len(servers)))
        for server in servers:
            api_load.wait_for(f"http://127.0.0.1:{server.port}/api/health/")
        for number in range(rounds):
            # Every other round in the reverse order: whichever runs first in a round meets what the
            # round before left the machine and PostgreSQL busy with (a checkpoint, autovacuum).
            for server in (servers if number % 2 == 0 else servers[::-1]):
                # Each server's windows between its own pgbench and boardgame.io windows: on a shared
                # machine whose speed drifts from minute to minute, a ratio holds only between neighbours.
                load = os.getloadavg()[0]
                tps = pgbench_tps(database_url, seconds=8)
                measured = []
                for client, mode in PEER_CLIENTS:
                    meter = CpuMeter(server.process)
                    meter.start()
                    result = api_load.run(f"http://127.0.0.1:{server.port}", server.tokens, mode, 16, seconds,
                                          seed=40 + number)
                    measured.append((client, result, {part: cpu * 1000 / max(result.moves, 1)
                                                      for part, cpu in meter.stop().items()}))
                theirs = boardgame_io(16, seconds, port=peer_port)
                for client, result, per in measured:
                    rows.append(f"| {number + 1} | {server.label} | {client} | {load:.1f} | {tps:,.0f} | "
                                f"{result.per_second:,.0f} | {100 * result.per_second / tps:.2f}% | "
                                f"{result.p50_ms:.1f} / {result.p99_ms:.1f} | "
                                f"{per['web']:.2f} + {per['database']:.2f} = {per['web'] + per['database']:.2f} | "
                                f"{per['load']:.2f} | {theirs['moves_per_second']:,.0f} | "
                                f"{theirs['p50_ms']:.1f} / {theirs['p99_ms']:.1f} | "
                                f"{theirs['server_cpu_ms_per_move']:.2f} | "
                                f"{result.per_second / max(theirs['moves_per_second'], 1e-9):.2f}x |")
                    print(rows[-1], flush=True)
    finally:
        for server in servers:
            server.process.terminate()
            server.process.wait(timeout=30)
    return rows


def three_requests(database_url: str, port: int = 8767, sync: bool = False) -> list[str]:
    """The three-request loop alone, three pairs against pgbench, and the statements of one
    GET-GET-POST cycle: what can be measured on a commit from before a move's answer carried the
    game (copy this file and api_load.py into a checkout of it). `sync`: the web server as
    `make run` shipped it then (gunicorn's sync workers, 2)."""
    tokens = accounts(database_url, 16)
    server = web_server(database_url, port, argv=["gunicorn", "project.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2"]
                        if sync else None)
    rows = ["| pair | moves/s | POST p50 ms | POST p99 ms | pgbench tps | ratio | CPU/move web + PostgreSQL + load = total ms |",
            "|---|---|---|---|---|---|---|"]
    try:
        api_load.wait_for(f"http://127.0.0.1:{port}/api/health/")
        for number in range(PAIRS):
            tps = pgbench_tps(database_url)
            meter = CpuMeter(server)
            meter.start()
            result = api_load.run(f"http://127.0.0.1:{port}", tokens, "three", 16, API_SECONDS, seed=number)
            per = {part: seconds * 1000 / result.moves for part, seconds in meter.stop().items()}
            rows.append(f"| {number + 1} | {result.per_second:,.0f} | {result.p50_ms:.1f} | {result.p99_ms:.1f} | {tps:,.0f} | "
                        f"{100 * result.per_second / tps:.2f}% | {per['web']:.2f} + {per['database']:.2f} + "
                        f"{per['load']:.2f} = {sum(per.values()):.2f} |")
            print(rows[-1], flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    clients, game_id = _two_players_in_a_game(database_url)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    posts, reads = [], []
    for _ in range(20):
        with CaptureQueriesContext(connection) as game_read:
            game = clients[0].get(f"/api/games/{game_id}/").json()
        mover = clients[game["to_act"][0]]
        with CaptureQueriesContext(connection) as moves_read:
            listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
        with CaptureQueriesContext(connection) as post:
            mover.post(f"/api/games/{game_id}/moves/", {"move": listed["moves"][0], "expected_seq": listed["seq"]}, format="json")
        posts.append(len(post.captured_queries))
        reads.append(len(game_read.captured_queries) + len(moves_read.captured_queries))
    rows += ["", f"SQL statements: a move POST {statistics.mean(posts):.2f} (at most {max(posts)}), "
             f"its two GETs {statistics.mean(reads):.2f}."]
    return rows


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="P1: the API's moves per second against pgbench")
    parser.add_argument("--web-configs", action="store_true", help="compare the web server's shapes instead")
    parser.add_argument("--three", action="store_true", help="only the three-request loop (for an older commit)")
    parser.add_argument("--sync", action="store_true", help="with --three: gunicorn's sync workers, as shipped before")
    parser.add_argument("--peer", action="store_true", help="pgbench, Scrapyard and the boardgame.io peer side by side")
    parser.add_argument("--port", type=int, default=8768, help="with --peer: Scrapyard's port (another run may hold 8768)")
    parser.add_argument("--peer-port", type=int, default=8790, help="with --peer: boardgame.io's port")
    parser.add_argument("--rounds", type=int, default=2, help="with --peer: how many rounds, in alternate order")
    parser.add_argument("--before", type=Path, help="with --peer: also another commit's checkout (with its own .venv), "
                        "as its make run served it, on the database BENCH_BEFORE_DATABASE_URL")
    arguments = parser.parse_args()
    url = db.migrated()
    vacuumed(url)
    if arguments.three:
        rows = three_requests(url, sync=arguments.sync)
    elif arguments.peer:
        before_url = os.environ.get("BENCH_BEFORE_DATABASE_URL", url + "_before")
        if arguments.before is not None:
            db.ensure(before_url)
        rows = peer(url, port=arguments.port, rounds=arguments.rounds, peer_port=arguments.peer_port,
                    before=arguments.before, before_database_url=before_url)
    else:
        rows = web_configs(url) if arguments.web_configs else measure(url)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
