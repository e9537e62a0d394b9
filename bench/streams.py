"""Live streams under load: latency from a move's commit to each open stream, and memory per stream.

Starts the stream server (uvicorn, `project.asgi`) on PostgreSQL and Redis as `make run` does,
opens `--streams` SSE streams (a few as each game's players, the rest as spectators) spread over
`--games` games, then plays `--moves` moves in this process, each timed at its commit; every
stream notes when each move's event reaches it. The same moves are first played with one stream
open, so the report gives the figures side by side in one run. Memory per stream is the stream
server's resident memory with all streams open, less its memory with none, over the count.

    .venv/bin/python -m bench.streams [--streams 1000] [--games 10] [--moves 30]

Needs PostgreSQL and Redis: `BENCH_DATABASE_URL` (default
postgres://postgres@127.0.0.1:5432/scrapyard_bench_streams, dropped and created afresh) and
`BENCH_REDIS_URL` (default redis://127.0.0.1:6379/12).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.deadlines import fresh_database, machine, percentile, setup_django

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "streams.md"
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/scrapyard_bench_streams"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def create_games(count: int) -> list[tuple[int, list[str]]]:
    """Two-player Terrafex games (no chance: every move is the first legal one), with tokens."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services

    users = get_user_model().objects
    games = []
    for n in range(count):
        players = [users.create_user(f"bench{n}x{i}", password="correct horse battery") for i in range(2)]
        game = services.game_create(creator=players[0], rules_id="terrafex", players=2, options={})
        services.game_join(game_id=game.pk, user=players[1])
        games.append((game.pk, [Token.objects.get_or_create(user=p)[0].key for p in players]))
    return games


def play(game_id: int) -> tuple[int, float]:
    """The first legal move of the seat to act; its seq and the wall-clock time of its commit."""
    from games import selectors, services, store

    game = selectors.game_get(game_id=game_id)
    seat = game.to_act[0]
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]
    user = game.seats.get(index=seat).user
    submitted = services.move_submit(game_id=game_id, user=user, move=move, expected_seq=game.seq)
    return submitted.event.seq, time.time()


class Stream:
    def __init__(self, game_id: int, token: str | None):
        self.game_id, self.token = game_id, token
        self.arrived: dict[int, float] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, port: int) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        auth = f"Authorization: Token {self.token}\r\n" if self.token else ""
        request = f"GET /api/games/{self.game_id}/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Accept: text/event-stream\r\n\r\n"
        self.writer.write(request.encode())
        await self.writer.drain()
        status = await self.reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"the stream server answered {status!r}: {await self.reader.read(2000)!r}")
        while (await self.reader.readline()) not in (b"\r\n", b""):
            pass

    async def follow(self) -> None:
        assert self.reader is not None
        while True:
            line = await self.reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                self.arrived.setdefault(int(line[4:]), time.time())

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def measure(port: int, games, streams: int, moves: int, server_pid: int) -> dict:
    opened = []
    before = rss_kib(server_pid)
    for n in range(streams):
        game_id, tokens = games[n % len(games)]
        token = tokens[n // len(games) % 2] if n < 4 * len(games) else None  # players first, then spectators
        stream = Stream(game_id, token)
        await stream.open(port)
        opened.append(stream)
    followers = [asyncio.create_task(stream.follow()) for stream in opened]
    await asyncio.sleep(2)  # every stream has read the log so far and waits
    after = rss_kib(server_pid)
    commits: dict[tuple[int, int], float] = {}
    watched = sorted({stream.game_id for stream in opened})
    for n in range(moves):
        game_id = watched[n % len(watched)]
        seq, committed = await asyncio.to_thread(play, game_id)
        commits[(game_id, seq)] = committed
        await asyncio.sleep(0.2)
    await asyncio.sleep(3)
    for task in followers:
        task.cancel()
    for stream in opened:
        stream.close()
    latencies, missing = [], 0
    for stream in opened:
        for (game_id, seq), committed in commits.items():
            if game_id != stream.game_id:
                continue
            if seq in stream.arrived:
                latencies.append((stream.arrived[seq] - committed) * 1000)
            else:
                missing += 1
    return {
        "streams": streams,
        "samples": len(latencies),
        "missing": missing,
        "p50_ms": percentile(latencies, 0.5),
        "p99_ms": percentile(latencies, 0.99),
        "kib_per_stream": (after - before) / max(1, streams) if streams > 1 else None,
    }


def start_server(db_url: str, redis_url: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url, "DJANGO_DEBUG": "0"}
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "project.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--no-access-log", "--timeout-graceful-shutdown", "2", "--backlog", "4096"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the stream server did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args(argv)
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    fresh_database(db_url)
    setup_django(db_url, redis_url)
    games = create_games(args.games)
    port = free_port()
    server = start_server(db_url, redis_url, port)
    try:
        one = asyncio.run(measure(port, games, 1, args.moves, server.pid))
        many = asyncio.run(measure(port, games, args.streams, args.moves, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=20)
    report(args, one, many)
    return 0 if many["missing"] == 0 else 1


def report(args, one: dict, many: dict) -> None:
    load = os.getloadavg()
    lines = [
        f"# Stream latency, {dt.date.today().isoformat()}",
        "",
        f"Machine: {machine()}; load average before the run {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}.",
        f"Command: `python -m bench.streams --streams {args.streams} --games {args.games} --moves {args.moves}`",
        "",
        "| open streams | samples | missing | commit -> client p50 | p99 | memory per stream |",
        "|---|---|---|---|---|---|",
    ]
    for run in (one, many):
        lines.append(
            f"| {run['streams']} | {run['samples']} | {run['missing']} | {run['p50_ms']:.1f} ms | "
            f"{run['p99_ms']:.1f} ms | "
            + (f"{run['kib_per_stream']:.1f} KiB |" if run["kib_per_stream"] is not None else "(warm-up run) |")
        )
    ratio = many["p50_ms"] / one["p50_ms"] if one["p50_ms"] else float("nan")
    lines += ["", f"p50 with {args.streams} streams / p50 with one: {ratio:.1f}x", ""]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
