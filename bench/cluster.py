"""Several nodes on one PostgreSQL (through PgBouncer) and one Redis: `python -m bench.cluster`.

Starts PgBouncer (deploy/pgbouncer, transaction pooling) in front of a fresh PostgreSQL database,
and `--nodes` (3) nodes on this machine, each a full set under its own supervisord
(deploy/supervisord.conf: web, stream server, a worker per queue, the SMTP gateway, beat on the
first two only) with its own var/ and ports; nginx (deploy/nginx.conf) in front of them all.

1. Scaling: `--clients` (64) clients play moves through nginx in front of the first 1, 2 and 3
   nodes in turn, `--seconds` each: moves/s and p99 side by side (bench.api_load).
2. A node killed under load: the clients play on through nginx (a careful client: the same
   Idempotency-Key again after a 502/503 or a dropped connection) while games against bots play
   out, games on 1-second step clocks time out (forfeit) and streams are read on other nodes
   than the one the moves went to. The first node (beat's likely lease holder) is SIGKILLed whole
   (every process of its session) and started again later. Then it counts, all of which must be
   zero: moves acknowledged then lost, moves doubled (one Idempotency-Key, two events), stream
   items missing after a reader reconnected to another node with Last-Event-ID, deadlines fired
   more or fewer than once, bot turns left undone, mails and webhook deliveries doubled.
   And the PostgreSQL connections at peak (sampled every 0.2 s) against PgBouncer's pool, and
   "too many clients" anywhere in the logs.

Figures go to stdout and bench/results/cluster.md. Needs PostgreSQL (`DATABASE_URL`'s server;
the database `<name>_cluster` is dropped and made afresh), Redis (`REDIS_URL`; its db is
flushed), Debian's pgbouncer and nginx.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench import api_load, chaos, proxy
from bench.chaos import Api, Book, Tally, until
from bench.deadlines import fresh_database, machine

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results" / "cluster.md"
WORK = ROOT / "var" / "bench-cluster"
BOT = "random"


class CarefulApi(Api):
    """bench.chaos's client, which also takes an answer cut short (its node died while sending
    it) as no answer: the caller sends the request again, with the same Idempotency-Key."""

    def call(self, *args, **kwargs):
        try:
            return super().call(*args, **kwargs)
        except http.client.HTTPException:
            return 0, None


def _url_with(url: str, *, port: int | None = None, name: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if port is not None:
        netloc = (netloc.rsplit("@", 1)[0] + "@" if "@" in netloc else "") + f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/{name}" if name else parts.path))


class Node:
    """One machine's worth of Scrapyard: supervisord in a session of its own, so that killing
    the node kills every process it started (the supervisor puts each program in a process
    group of its own, but they all stay in its session)."""

    def __init__(self, number: int, base_port: int, env: dict[str, str], beat: bool):
        self.number, self.beat = number, beat
        self.var = WORK / f"node{number}"
        self.var.mkdir(parents=True, exist_ok=True)
        self.web, self.streams, self.smtp = base_port + 10 * number, base_port + 10 * number + 1, base_port + 10 * number + 2
        self.env = {**env, "SCRAPYARD_VAR_DIR": str(self.var), "HOST": "127.0.0.1", "PORT": str(self.web),
                    "STREAM_PORT": str(self.streams), "SMTP_PORT": str(self.smtp),
                    "SCRAPYARD_STREAM_URL": f"http://127.0.0.1:{self.streams}"}
        self.config = str(ROOT / "deploy" / "supervisord.conf")
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        for stale in ("metrics", "supervisor.sock"):
            subprocess.run(["rm", "-rf", str(self.var / stale)])
        self.process = subprocess.Popen(
            [str(BIN / "supervisord"), "--nodaemon", "--configuration", self.config], cwd=ROOT, env=self.env,
            stdout=open(self.var / "supervisor.out", "ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )

    def ctl(self, *args: str) -> str:
        return subprocess.run([str(BIN / "supervisorctl"), "--configuration", self.config, *args], env=self.env,
                              capture_output=True, text=True).stdout

    def ready(self) -> bool:
        return all(_status(port, "/api/ready/") == 200 for port in (self.web, self.streams))

    def settle(self) -> None:
        if not self.beat:
            self.ctl("stop", "beat")

    def kill(self) -> int:
        """SIGKILL every process of the node's session at once; how many there were."""
        session = self.process.pid
        victims = [pid for pid in _pids() if _session(pid) == session]
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            pass
        return len(victims)

    def stop(self) -> None:
        """Stop it the supervisor's way, then make sure nothing of its session is left."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                pass
        self.kill()


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _status(port: int, path: str) -> int:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
        connection.request("GET", path)
        return connection.getresponse().status
    except OSError:
        return 0


# --- what the run watches ----------------------------------------------------------------------


class ConnectionWatch(threading.Thread):
    """PostgreSQL's connections to the bench database, and PgBouncer's waiting clients, sampled."""

    def __init__(self, direct_url: str, pgbouncer_port: int):
        super().__init__(daemon=True)
        self.direct_url, self.pgbouncer_port = direct_url, pgbouncer_port
        self.stop, self.peak, self.peak_waiting, self.peak_clients = threading.Event(), 0, 0, 0

    def run(self) -> None:
        import psycopg

        name = urlsplit(self.direct_url).path.lstrip("/")
        with psycopg.connect(_url_with(self.direct_url, name="postgres"), autocommit=True) as server, \
                psycopg.connect(f"host=127.0.0.1 port={self.pgbouncer_port} user=postgres dbname=pgbouncer",
                                autocommit=True, prepare_threshold=None) as bouncer:  # its console: simple queries
            while not self.stop.is_set():
                (count,) = server.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]).fetchone()
                self.peak = max(self.peak, count)
                cursor = bouncer.execute("SHOW POOLS")
                columns = [column.name for column in cursor.description]
                for row in cursor.fetchall():
                    pool = dict(zip(columns, row))
                    if pool["database"] == name:
                        self.peak_waiting = max(self.peak_waiting, pool["cl_waiting"])
                        self.peak_clients = max(self.peak_clients, pool["cl_active"] + pool["cl_waiting"])
                time.sleep(0.2)


class StreamReader(threading.Thread):
    """A game's stream read on one node; when that node goes away, read again on the next with
    Last-Event-ID. Records every seq it was given."""

    def __init__(self, game_id: int, token: str, ports: list[int]):
        super().__init__(daemon=True)
        self.game_id, self.token, self.ports = game_id, token, ports
        self.seqs: list[int] = []
        self.reconnects = 0
        self.stop = threading.Event()

    def run(self) -> None:
        turn, connected = 0, False
        while not self.stop.is_set():
            port = self.ports[turn % len(self.ports)]
            try:
                if self._read(port) == 0 and connected:
                    return  # nothing new, and closed: the game ended and its stream with it
                connected = True
            except (OSError, http.client.HTTPException, ValueError):
                turn += 1  # its node is gone: the next one
            self.reconnects += 1
            time.sleep(0.2)

    def _read(self, port: int) -> int:
        """Read until the stream closes; how many items it gave."""
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/x-ndjson"}
        if self.seqs:
            headers["Last-Event-ID"] = str(self.seqs[-1])
        connection.request("GET", f"/api/games/{self.game_id}/stream/", headers=headers)
        answer = connection.getresponse()
        if answer.status != 200:
            raise OSError(f"stream answered {answer.status}")
        given = 0
        while not self.stop.is_set():
            line = answer.readline()
            if not line:
                break
            if line.strip():
                item = json.loads(line)
                if item.get("type") == "game_full":
                    continue  # the game as it is now, first on every connection: not one of the log's events
                self.seqs.append(item["seq"])
                given += 1
        return given


class WebhookReceiver:
    """Counts each webhook-id received."""

    def __init__(self):
        self.ids: Counter = Counter()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.ids[self.headers.get("webhook-id", "")] += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"


# --- the load --------------------------------------------------------------------------------------


def make_accounts(count: int, with_email: int) -> list[str]:
    """Accounts and their tokens straight in the database (the API's password hashing would
    spend the bench's minutes)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    tokens = []
    for n in range(count):
        user = User.objects.create(username=f"node-bench-{n}", email=f"p{n}@example.org" if n < with_email else "",
                                   password="!")
        tokens.append(Token.objects.create(user=user).key)
    return tokens


def careful_player(api: Api, book: Book, tokens: list[str], stop: threading.Event, seed: int, games: list) -> None:
    """Plays its own two-seat game through the proxy, a new one when it ends; every move with an
    Idempotency-Key, sent again with the same key after a 502/503 or no answer."""
    rng = random.Random(seed)
    game_id = None
    while not stop.is_set():
        if game_id is None:
            status, game = api.patient("POST", "/api/games/", {"rules": "scavenge", "players": 2}, tokens[0])
            if status != 201:
                continue
            game_id = game["id"]
            api.patient("POST", f"/api/games/{game_id}/join/", token=tokens[1])
            games.append((game_id, tokens[0]))
        status, game = api.patient("GET", f"/api/games/{game_id}/", token=tokens[0])
        if status != 200 or game["status"] != "active":
            game_id = None if status == 200 and game["status"] == "finished" else game_id
            continue
        seat = game["to_act"][0]
        status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=tokens[seat])
        if status != 200 or not legal["moves"]:
            continue
        move, key = rng.choice(legal["moves"]), uuid.uuid4().hex
        status, answer = api.patient("POST", f"/api/games/{game_id}/moves/", {"move": move, "expected_seq": legal["seq"]},
                                     tokens[seat], headers={"Idempotency-Key": key})
        if status == 201:
            book.ack(game_id, answer["seq"], move, key)


def clock_games(api: Api, tokens: list[str], stop: threading.Event, made: list[int]) -> None:
    """A game on a 1-second step clock every half second, nobody moving: its deadline forfeits."""
    n = 0
    while not stop.is_set():
        pair = tokens[n % len(tokens)], tokens[(n + 1) % len(tokens)]
        status, game = api.patient("POST", "/api/games/", {"rules": "scavenge", "players": 2, "timeout_policy": "forfeit",
                                                          "time_control": {"type": "step", "seconds": 1}}, pair[0])
        if status == 201 and api.patient("POST", f"/api/games/{game['id']}/join/", token=pair[1])[0] == 201:
            made.append(game["id"])
        n += 1
        time.sleep(0.5)


def bot_games(api: Api, tokens: list[str], count: int) -> list[tuple[int, list]]:
    """Games of a person against one of the server's bots (the bots workers play its turns)."""
    made = []
    for n in range(count):
        status, game = api.patient("POST", "/api/games/", {"rules": "scavenge", "players": 2, "bots": [
            {"seat": 1, "bot": BOT}]}, tokens[n])
        if status == 201:
            made.append((game["id"], [tokens[n], None]))
    return made


# --- counting ---------------------------------------------------------------------------------------


def count(book: Book, clocks: list[int], bots: list[int], readers: list[StreamReader], receiver: WebhookReceiver,
          nodes: list[Node]) -> dict:
    from django.db import connections
    from django.db.models import Count

    from games.models import Event, Game

    connections.close_all()
    figures = {}
    lost = 0
    for (game_id, seq), move in book.acknowledged.items():
        event = Event.objects.filter(game_id=game_id, seq=seq).first()
        lost += event is None or event.payload.get("move") != move
    figures["moves acknowledged then lost"] = lost
    figures["moves doubled (one Idempotency-Key, two events)"] = sum(1 for seqs in book.keys.values() if len(seqs) > 1)
    missing = 0
    for reader in readers:
        final = Game.objects.get(pk=reader.game_id).seq
        got = set(reader.seqs)
        missing += sum(1 for seq in range(1, final + 1) if seq not in got)
    figures["stream items missing after reconnecting elsewhere"] = missing
    figures["stream items given twice"] = sum(len(reader.seqs) - len(set(reader.seqs)) for reader in readers)
    timeouts = dict(Event.objects.filter(game_id__in=clocks, kind="timeout").values("game_id").annotate(n=Count("id"))
                    .values_list("game_id", "n"))
    figures["deadlines fired more than once"] = sum(1 for n in timeouts.values() if n > 1)
    figures["deadlines not fired"] = sum(1 for game_id in clocks if timeouts.get(game_id, 0) == 0)
    figures["bot turns left undone"] = bots_to_act(bots)
    written = Counter()
    for node in nodes:
        for eml in (node.var / "mail").glob("*.eml"):
            for line in eml.read_text(errors="replace").splitlines():
                if line.lower().startswith("message-id:"):
                    written[line.split(":", 1)[1].strip()] += 1
                    break
    figures["mails doubled"] = sum(1 for n in written.values() if n > 1)
    figures["webhook deliveries doubled"] = sum(1 for n in receiver.ids.values() if n > 1)
    figures["(mails written)"] = len(written)
    figures["(webhook deliveries received)"] = len(receiver.ids)
    figures["(bot games finished)"] = Game.objects.filter(pk__in=bots, status="finished").count()
    return figures


def bots_to_act(bots: list[int]) -> int:
    """Games against a bot where the bot is to act (its person stopped playing at the end)."""
    from games.models import Game

    return sum(
        any(seat.index in game.to_act and seat.bot for seat in game.seats.all())
        for game in Game.objects.filter(pk__in=bots, status="active").prefetch_related("seats")
    )


def settled(clocks: list[int], bots: list[int]) -> bool:
    from django.db import connections

    from games.models import Event

    connections.close_all()
    clocks_done = Event.objects.filter(game_id__in=clocks, kind="timeout").values("game_id").distinct().count()
    return clocks_done == len(clocks) and bots_to_act(bots) == 0


def grep_logs(paths: list[Path], needle: str) -> int:
    found = 0
    for path in paths:
        for log in path.glob("*.log") if path.is_dir() else [path]:
            try:
                found += log.read_text(errors="replace").count(needle)
            except OSError:
                pass
    return found


# --- the run ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds of each scaling step")
    parser.add_argument("--kill-after", type=float, default=20.0, help="seconds of load before the kill")
    parser.add_argument("--down", type=float, default=15.0, help="seconds the killed node stays down")
    parser.add_argument("--after", type=float, default=20.0, help="seconds of load after it is back")
    parser.add_argument("--web-server", choices=("granian", "gunicorn"), default="granian",
                        help="each node's web server (project/serve.py); behind nginx no stream reaches it")
    parser.add_argument("--base-port", type=int, default=18100)
    parser.add_argument("--pgbouncer-port", type=int, default=int(os.environ.get("PGBOUNCER_PORT", "6432")))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    began = time.monotonic()
    load_before = os.getloadavg()

    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/scrapyard")
    direct = _url_with(base_url, port=urlsplit(base_url).port or 5432, name=urlsplit(base_url).path.lstrip("/") + "_cluster")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(args.pgbouncer_port)]).returncode == 0:
        raise SystemExit(f"port {args.pgbouncer_port} is taken: the bench starts a PgBouncer of its own there")
    subprocess.run(["rm", "-rf", str(WORK)])
    WORK.mkdir(parents=True)
    fresh_database(direct)
    bouncer_env = {**os.environ, "PGBOUNCER_PORT": str(args.pgbouncer_port),
                   "POSTGRES_PORT": str(urlsplit(direct).port or 5432)}
    subprocess.run([str(ROOT / "deploy" / "pgbouncer"), "start", str(WORK / "pgbouncer")], env=bouncer_env, check=True)
    through = _url_with(direct, port=args.pgbouncer_port)
    import redis

    redis.Redis.from_url(redis_url).flushdb()

    receiver = WebhookReceiver()
    env = {
        **os.environ, "DATABASE_URL": through, "REDIS_URL": redis_url, "SCRAPYARD_BIN": str(BIN),
        "SCRAPYARD_REDIS_NAMESPACE": "bench-cluster", "SCRAPYARD_METRICS_TOKEN": "bench", "SCRAPYARD_PROXIES": "1",
        # Sized for a shared 2-core machine: three nodes' processes take turns on it.
        "SCRAPYARD_WEB_PROCESSES": "2", "SCRAPYARD_WEB_THREADS": "4", "SCRAPYARD_DEADLINE_PROCESSES": "1",
        # nginx routes the streams to the stream servers: no node hands a stream's socket over.
        "SCRAPYARD_WEB_SERVER": args.web_server, "SCRAPYARD_STREAM_HANDOFF": "",
        "SCRAPYARD_BOT_PROCESSES": "1", "SCRAPYARD_DEFAULT_PROCESSES": "1", "SCRAPYARD_MAIL_PROCESSES": "1",
        "SCRAPYARD_WEBHOOK_PROCESSES": "1", "SCRAPYARD_FEED_PROCESSES": "1", "SCRAPYARD_ANALYSIS_PROCESSES": "1",
        "SCRAPYARD_CLOCKS_RESEND": "5", "SCRAPYARD_BOT_STALLED_SECONDS": "5", "SCRAPYARD_BOT_GAMES_PER_ACCOUNT": "4",
        "SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK": "1",
        "SCRAPYARD_RATE_ACCOUNT": "1000000", "SCRAPYARD_RATE_ADDRESS": "1000000",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "PYTHONUNBUFFERED": "1",
    }
    env.pop("CI", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update({"DATABASE_URL": through, "REDIS_URL": redis_url, "SCRAPYARD_REDIS_NAMESPACE": "bench-cluster",
                       "DJANGO_SETTINGS_MODULE": "project.settings", "SCRAPYARD_VAR_DIR": str(WORK / "bench")})
    import django

    django.setup()

    nodes = [Node(n, args.base_port, env, beat=n < 2) for n in range(args.nodes)]
    proxies, watch, stop = [], ConnectionWatch(direct, args.pgbouncer_port), threading.Event()
    try:
        for node in nodes:
            node.start()
        if not until(lambda: all(node.ready() for node in nodes), 180, 1.0):
            raise SystemExit("the nodes did not come up; see var/bench-cluster/node*/supervisor.out")
        for node in nodes:
            node.settle()
        print(f"{len(nodes)} nodes ready in {time.monotonic() - began:.0f} s", flush=True)
        watch.start()
        for k in range(1, len(nodes) + 1):
            port = args.base_port + 90 + k
            proxies.append((port, proxy.start(WORK / f"nginx{k}", listen=port, api=[n.web for n in nodes[:k]],
                                              streams=[n.streams for n in nodes[:k]])))
        tokens = make_accounts(2 * args.clients + 8, with_email=8)
        pairs = [tokens[2 * n:2 * n + 2] for n in range(args.clients)]

        # The scaling clients play as api_load's do, unaware that the server plays a forced move
        # itself for an account with an address (mail's default): they get accounts without one.
        addressless = [tokens[8 + 2 * n:8 + 2 * n + 2] for n in range(args.clients)]
        scaling = []
        for k, (port, _) in enumerate(proxies, start=1):
            result = api_load.run(f"http://127.0.0.1:{port}", addressless, "one", args.clients, args.seconds, seed=k)
            scaling.append((k, result, os.getloadavg()[0]))
            print(f"{k} node(s): {result.per_second:.0f} moves/s, p50 {result.p50_ms:.0f} ms, p99 {result.p99_ms:.0f} ms, "
                  f"conflicts {result.refusals or 0}", flush=True)

        # --- the kill ---
        tally = Tally()
        api = CarefulApi(f"http://127.0.0.1:{proxies[-1][0]}", tally)
        for token in tokens[:4]:  # the first clients' games are mailed (they have addresses) and hooked
            status, _ = api.patient("POST", "/api/webhooks/", {"url": receiver.url}, token)
            assert status == 201, status
        book, person_games, clocks = Book(), [], []
        crowd = [threading.Thread(target=careful_player, args=(api, book, pair, stop, n, person_games), daemon=True)
                 for n, pair in enumerate(pairs)]
        against_bots = bot_games(api, tokens[-8:], 8)
        bots = [game_id for game_id, _ in against_bots]
        bot_player = threading.Thread(target=chaos.players, args=(api, book, against_bots, stop, 99), daemon=True)
        clock = threading.Thread(target=clock_games, args=(api, tokens[-8:], stop, clocks), daemon=True)
        for thread in [*crowd, bot_player, clock]:
            thread.start()
        until(lambda: len(person_games) >= args.clients, 60, 0.5)
        stream_ports = [node.streams for node in nodes]
        readers = []
        for n, (game_id, token) in enumerate(person_games[:16]):
            # Streams on the first node (the one to die) or another, never where the moves go
            # (those go through nginx); each reconnects to the next node when its node dies.
            ports = stream_ports[n % 2:] + stream_ports[:n % 2]
            readers.append(StreamReader(game_id, token, ports))
        for reader in readers:
            reader.start()
        time.sleep(args.kill_after)
        killed = nodes[0].kill()
        killed_at = time.monotonic()
        print(f"node 1 killed ({killed} processes)", flush=True)
        time.sleep(args.down)
        nodes[0].start()
        until(nodes[0].ready, 120, 0.5)
        print(f"node 1 back after {time.monotonic() - killed_at:.0f} s", flush=True)
        time.sleep(args.after)
        stop.set()
        for thread in [*crowd, bot_player, clock]:
            thread.join(120)
        moves_during = len(book.acknowledged)
        until(lambda: settled(clocks, bots), 90, 1.0)
        # Each reader has what its game's log has, or gives up.
        until(lambda: all(max(reader.seqs, default=0) >= _seq_of(reader.game_id) for reader in readers), 30, 0.5)
        for reader in readers:
            reader.stop.set()
        time.sleep(5)  # the webhook and mail sweeps' last round
        figures = count(book, clocks, bots, readers, receiver, nodes)
        figures["(reconnects of stream readers)"] = sum(reader.reconnects for reader in readers)
        figures["(moves acknowledged during the kill run)"] = moves_during
        figures["(games on 1-second clocks)"] = len(clocks)
        proxy_answers = [e for e in tally.server_errors if " -> 502 " in e or " -> 504 " in e]
        figures["(502/504 from nginx: the node died under the request; sent again)"] = len(proxy_answers)
        figures["answers 500 or other 5xx from a node"] = len(tally.server_errors) - len(proxy_answers)
        for sample in [e for e in tally.server_errors if e not in proxy_answers][:5]:
            print(f"5xx: {sample}", flush=True)
        watch.stop.set()
        too_many = grep_logs([WORK / "pgbouncer" / "pgbouncer.log", *(node.var for node in nodes)], "too many clients")
        too_many += grep_logs([Path(f"/var/log/postgresql/{name}") for name in os.listdir("/var/log/postgresql")]
                              if os.path.isdir("/var/log/postgresql") else [], "too many clients already")
    finally:
        stop.set()
        watch.stop.set()
        for node in nodes:
            node.stop()
        for _, process in proxies:
            process.terminate()
        subprocess.run([str(ROOT / "deploy" / "pgbouncer"), "stop", str(WORK / "pgbouncer")], env=bouncer_env)
    return report(args, scaling, figures, watch, too_many, load_before, time.monotonic() - began)


def _seq_of(game_id: int) -> int:
    from django.db import connections

    from games.models import Game

    connections.close_all()
    return Game.objects.get(pk=game_id).seq


def report(args, scaling, figures: dict, watch: ConnectionWatch, too_many: int, load_before, seconds: float) -> int:
    zero = {name: value for name, value in figures.items() if not name.startswith("(")}
    lines = [
        f"# bench.cluster, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC", "",
        f"Machine: {machine()}; load average before the run {load_before[0]:.1f} (shared with other work).",
        f"{args.nodes} nodes (each: {args.web_server} 2 processes x 4 threads, uvicorn, a worker per queue, the SMTP "
        f"gateway; beat on two), one PgBouncer (transaction pooling, pool 20), one Redis, nginx in front; "
        f"{args.clients} clients. Whole run {seconds:.0f} s.", "",
        "| nodes | moves/s | p50 ms | p99 ms | conflicts | errors | load average after |", "|---|---|---|---|---|---|---|",
        *(f"| {k} | {r.per_second:.0f} | {r.p50_ms:.0f} | {r.p99_ms:.0f} | {r.conflicts} | {r.errors} | {load:.1f} |"
          for k, r, load in scaling),
        "", f"Node 1 SIGKILLed whole after {args.kill_after:.0f} s of load, started again {args.down:.0f} s later:", "",
        "| count | value |", "|---|---|", *(f"| {name} | {value} |" for name, value in figures.items()),
        f"| PostgreSQL connections at peak (pool 20 + reserve 5) | {watch.peak} |",
        f"| PgBouncer clients at peak (waiting at peak) | {watch.peak_clients} ({watch.peak_waiting}) |",
        f"| \"too many clients\" in any log | {too_many} |", "",
    ]
    text = "\n".join(lines)
    print(text, flush=True)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text)
    failed = any(value for value in zero.values()) or too_many or watch.peak > 25
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
