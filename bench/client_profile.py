"""The server's CPU for a move made by each of `bench.p1`'s clients, in one process:
`python -m bench.client_profile [--moves N] [--client one|two|three|all] [--profile]`.

`bench.p1_profile` measures the move POST alone and `bench.reads` each read after a move; this
plays whole games as `bench.api_load`'s clients do (the same requests in the same order:
`one` POSTs only, `two` GETs the mover's legal moves then POSTs, `three` is the page's: GETs the
game as the mover, whose answer holds its legal moves (an older tree's answer does not: then it
GETs them), POSTs) through Django's whole request handler, and counts per move stored:

- web: this process's CPU (`time.process_time`, the test client's share included), and
  PostgreSQL: this connection's server process (from /proc), as `bench.p1_profile`;
- Python calls (cProfile, a count that does not move with the machine's load), and Redis
  round trips (a send of packed commands: a command, a pipeline) and SQL statements, per request kind.

`bench.p1`'s server runs a process per core, each with its own memory of what a seat sees
(`games.selectors.seen`) in front of the shared Redis: `--processes` (2 by default) gives each
request the memory of one of that many would-be processes in turn at random, so a read misses
this process's memory as often as there. Needs PostgreSQL and Redis as `bench.p1_profile`.
The module reads nothing of the tree beyond the API and `games.selectors.seen._memory`, so it
runs unchanged on an older checkout (`PYTHONPATH=that/tree that/tree/.venv/bin/python
bench/client_profile.py`) for a side-by-side count.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import random
import sys
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a file from another checkout: that checkout's bench
    sys.path.insert(0, os.getcwd())

from bench import p1


class _Processes:
    """`games.selectors.seen`'s memory as `count` processes would each hold their own: each
    request is served by one of them, chosen at random."""

    def __init__(self, count: int, rnd: random.Random):
        from games.selectors import seen

        self.seen, self.rnd = seen, rnd
        self.memories = [seen._memory] + [type(seen._memory)(seen._memory.size) for _ in range(count - 1)]

    def pick(self) -> None:
        self.seen._memory = self.rnd.choice(self.memories)


class _Counted:
    """Redis commands and SQL statements made by the requests of each kind."""

    def __init__(self):
        self.redis: Counter = Counter()
        self.sql: Counter = Counter()
        self.requests: Counter = Counter()
        self.kind = "?"

    def install(self) -> None:
        import redis.connection
        from django.db import connection

        # A round trip is one send of packed commands, whichever layer sends them (a client's
        # command, a pipeline, or the cache's own round trips on its connection: project.cache).
        original = self.original = redis.connection.AbstractConnection.send_packed_command
        counted = self

        def send_packed_command(redis_connection, *args, **options):
            counted.redis[counted.kind] += 1
            return original(redis_connection, *args, **options)

        redis.connection.AbstractConnection.send_packed_command = send_packed_command

        def wrapper(execute, sql, params, many, context):
            counted.sql[counted.kind] += 1
            return execute(sql, params, many, context)

        connection.execute_wrappers.append(wrapper)
        self.wrapper = wrapper

    def uninstall(self) -> None:
        import redis.connection
        from django.db import connection

        redis.connection.AbstractConnection.send_packed_command = self.original
        connection.execute_wrappers.remove(self.wrapper)


def play(database_url: str, client: str, moves: int, profile: bool, seed: int, processes: int,
         counted: _Counted | None = None, show: bool = False) -> dict[str, float]:
    import rules
    from consumers import after_commit

    players, game_id = p1._two_players_in_a_game(database_url)
    from django.db import connection

    def backend_of() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    backend = backend_of()
    scavenge, rnd = rules.catalog()["scavenge"], random.Random(seed)
    memories = _Processes(processes, random.Random(seed + 1))
    profiler = cProfile.Profile(time.process_time) if profile else None
    web = database = 0.0
    stored = 0
    known: dict | None = None

    def request(kind: str, method: str, seat: int, path: str, body=None):
        nonlocal web, database
        memories.pick()
        if counted is not None:
            counted.kind = kind
            counted.requests[kind] += 1
        cpu, pg = time.process_time(), p1._cpu_seconds({backend})
        if profiler:
            profiler.enable()
        if method == "GET":
            answer = players[seat].get(path)
        else:
            answer = players[seat].post(path, body, format="json")
        after_commit.drain()
        if profiler:
            profiler.disable()
        web += time.process_time() - cpu
        database += p1._cpu_seconds({backend}) - pg
        if counted is not None:
            counted.kind = "?"
        assert answer.status_code in (200, 201), (path, answer.status_code, answer.content)
        return answer.json()

    base = f"/api/games/{game_id}"
    while stored < moves:
        if known is None or client == "three":  # the web page's client reads the game before each move
            # ... as the mover, named by the last move's answer (its page hears it from the stream)
            reader = known["seat"] if known is not None else 0
            game = request("GET game", "GET", reader, f"{base}/")
            if client == "three" and game["status"] == "active" and reader not in game["to_act"]:  # a game's first move
                reader = game["to_act"][0]
                game = request("GET game", "GET", reader, f"{base}/")
            if game["status"] != "active":
                players, game_id = p1._two_players_in_a_game(database_url)
                backend, base, known = backend_of(), f"/api/games/{game_id}", None
                continue
            # The page takes the mover's legal moves from the game's answer (an older tree's has none:
            # asked for then); the other clients ask for them.
            known = {"seat": game["to_act"][0], "seq": game["seq"],
                     "moves": (game.get("moves") or None) if client == "three" else None}
        seat = known["seat"]
        if known["moves"] is None:
            listed = request("GET legal moves", "GET", seat, f"{base}/legal-moves/")
            known["moves"], known["seq"] = listed["moves"], listed["seq"]
        answer = request("POST move", "POST", seat, f"{base}/moves/",
                         {"move": rnd.choice(known["moves"]), "expected_seq": known["seq"]})
        stored += 1
        after = answer["game"]
        if after["status"] != "active":
            players, game_id = p1._two_players_in_a_game(database_url)
            backend, base, known = backend_of(), f"/api/games/{game_id}", None
            continue
        to_act = after["to_act"][0]
        if client == "one":  # as a good client: the other seat's moves from the view the answer gave
            mine = to_act == after["your_seat"]
            options = after["moves"] if mine else scavenge.legal_moves(
                scavenge.sample_state(after["view"], after["your_seat"], rnd), to_act)
            known = {"seat": to_act, "seq": after["seq"], "moves": options}
        elif client == "two" and after["your_turn"]:  # a plain client reads the moves the answer holds
            known = {"seat": after["your_seat"], "seq": after["seq"], "moves": after["moves"]}
        else:
            known = {"seat": to_act, "seq": after["seq"], "moves": None}
    calls = 0.0
    if profiler:
        calls = pstats.Stats(profiler, stream=io.StringIO()).total_calls / stored
        if show:
            for order in ("tottime", "cumulative"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(int(os.environ.get("PROFILE_LINES", "40")))
                print(out.getvalue())
    return {"moves": stored, "web_ms": web * 1000 / stored, "postgresql_ms": database * 1000 / stored, "calls": calls}


def migrated_bench_database() -> str:
    """The benchmark's database (BENCH_DATABASE_URL) and Redis (BENCH_REDIS_URL) made this
    process's, with no rate limit in the way, and migrated; its URL."""
    import subprocess

    url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/scrapyard_bench")
    os.environ.update({"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "project.settings"})
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    os.environ.setdefault("REDIS_URL", os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"], check=True,
                   env={**os.environ}, cwd=Path(p1.__file__).resolve().parent.parent)
    return url


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="server CPU per move for each of bench.p1's clients, in one process")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--client", choices=("one", "two", "three", "all"), default="all")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    arguments = parser.parse_args()
    url = migrated_bench_database()
    p1.vacuumed(url)
    from unittest import mock

    from consumers import after_commit

    tree = Path(p1.__file__).resolve().parent.parent.name
    for client in (("one", "two", "three") if arguments.client == "all" else (arguments.client,)):
        play(url, client, 30, False, 1, arguments.processes)  # warm: imports, the token cache, the rules' caches
        timed = play(url, client, arguments.moves, False, 2, arguments.processes)
        counted = _Counted()
        counted.install()
        # cProfile sees one thread: the after-commit job runs in the request's, decided as the thread's would be.
        with mock.patch.object(after_commit, "soon", lambda job, *args: after_commit._run(job, args)):
            profiled = play(url, client, 100, True, 3, arguments.processes, counted, show=arguments.profile)
        counted.uninstall()
        per_kind = ", ".join(f"{kind} {counted.requests[kind] / profiled['moves']:.2f} x "
                             f"(SQL {counted.sql[kind] / max(counted.requests[kind], 1):.2f}, "
                             f"Redis {counted.redis[kind] / max(counted.requests[kind], 1):.2f})"
                             for kind in sorted(counted.requests))
        print(f"[{tree}] client {client}: {timed['moves']} moves: web {timed['web_ms']:.2f} + PostgreSQL "
              f"{timed['postgresql_ms']:.2f} = {timed['web_ms'] + timed['postgresql_ms']:.2f} ms CPU a move; "
              f"{profiled['calls']:.0f} Python calls a move; {per_kind}; load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
