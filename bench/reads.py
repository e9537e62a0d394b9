"""The CPU of the reads a client makes between moves: `python -m bench.reads [--rounds N]
[--server | --configs [--batch N]]`.

`bench.p1_profile` measures the move POST; the clients people use also read: the web page reads
the game and its legal moves before each move, a plain REST client its legal moves, a spectator
polls the game. Two seated players play Scavenge through Django's whole request handler (as
`bench.p1_profile` does, on PostgreSQL: `BENCH_DATABASE_URL`); after each move (not counted)
every read below is made once, and its CPU is counted: this process's (`time.process_time`, the
test client's own share included) plus this connection's PostgreSQL server process (from /proc).

- `game, first`: the mover's GET of the game at the new seq (the move's answer has seen it);
- `game, again`: the same GET again (a poll with nothing new);
- `game, other seat`: the waiting seat's GET, the first read of its view at that seq;
- `game, spectator`: an account without a seat;
- `legal moves`: the seat to act; `state`, `board.txt`: the mover.

`--server` measures the same reads as issue 57 counts them: through `make run`'s web server
(`bench.p1.web_server`) from this process over a keep-alive connection, each read's CPU the
server's own (every thread of its processes) and PostgreSQL's (every process), read from
`/proc/<pid>/task/<tid>/schedstat`, the scheduler's nanoseconds, not /proc's 10 ms ticks. The
load generator's CPU is not in it. An `idle` row is the same window with no request (a sleep as
long as a read's answer took): what the processes spend meanwhile on their own, already in every
row. `spectator polling` is a spectator's GET of the game repeated 20 times with nothing new,
back to back: the server's caches and the CPU's warm, as under a steady load of polls (the
other rows each follow a move and the meter's own reading of /proc, so they find them colder).
"""

from __future__ import annotations

import os
import random
import time

from pathlib import Path

from bench import api_load, db, p1
from bench.p1_profile import _backend_cpu

READS = ("game, first", "game, again", "game, other seat", "game, spectator", "legal moves", "state", "board.txt")


def _backend_of(connection) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def play(database_url: str, rounds: int, seed: int = 1) -> dict[str, tuple[float, float]]:
    """Each read's mean (web ms, PostgreSQL ms) over `rounds` moves."""
    players, game_id = p1._two_players_in_a_game(database_url)  # sets Django up
    from django.db import connection
    from rest_framework.test import APIClient

    from consumers import after_commit

    spectator = APIClient()
    spectator.credentials(HTTP_AUTHORIZATION=f"Token {p1._new_token()}")
    backend = _backend_of(connection)
    rnd = random.Random(seed)
    totals = {name: [0.0, 0.0] for name in READS}
    done = 0
    while done < rounds:
        game = players[0].get(f"/api/games/{game_id}/").json()
        if game["status"] != "active":
            players, game_id = p1._two_players_in_a_game(database_url)
            backend = _backend_of(connection)
            continue
        seat = game["to_act"][0]
        listed = players[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        answer = players[seat].post(f"/api/games/{game_id}/moves/",
                                    {"move": rnd.choice(listed["moves"]), "expected_seq": listed["seq"]}, format="json")
        assert answer.status_code == 201, answer.content
        after_commit.drain()
        after = answer.json()["game"]
        if after["status"] != "active":
            continue
        to_act = after["to_act"][0]
        reads = {
            "game, first": (players[seat], f"/api/games/{game_id}/"),
            "game, again": (players[seat], f"/api/games/{game_id}/"),
            "game, other seat": (players[1 - seat], f"/api/games/{game_id}/"),
            "game, spectator": (spectator, f"/api/games/{game_id}/"),
            "legal moves": (players[to_act], f"/api/games/{game_id}/legal-moves/"),
            "state": (players[seat], f"/api/games/{game_id}/state/"),
            "board.txt": (players[seat], f"/api/games/{game_id}/board.txt"),
        }
        for name, (client, path) in reads.items():
            cpu, pg = time.process_time(), _backend_cpu(backend)
            got = client.get(path)
            totals[name][0] += time.process_time() - cpu
            totals[name][1] += _backend_cpu(backend) - pg
            assert got.status_code == 200, (path, got.content)
        done += 1
    return {name: (web * 1000 / done, pg * 1000 / done) for name, (web, pg) in totals.items()}


# --- through the web server ------------------------------------------------------------------


def _schedstat_seconds(pid: int) -> float:
    """The CPU every thread of `pid` has had, from the scheduler's own count (nanoseconds)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # a thread that ended meanwhile
    except OSError:
        pass  # the process ended meanwhile
    return total / 1e9


class ServerMeter:
    """The web server's and PostgreSQL's CPU between `start` and `stop`, per process (one
    started meanwhile counts whole, one ended meanwhile nothing), as `p1.CpuMeter` but exact."""

    def __init__(self, server):
        self.server = server
        self.refresh()

    def refresh(self) -> None:
        """Which processes to count: looked up once per round, not per read (a walk of /proc
        per read would stretch the window the idle processes are counted over)."""
        self.web = {self.server.pid} | p1._children(self.server.pid)
        self.database = p1._postgres_pids()

    def _now(self) -> tuple[dict[int, float], dict[int, float]]:
        return ({pid: _schedstat_seconds(pid) for pid in self.web},
                {pid: _schedstat_seconds(pid) for pid in self.database})

    def start(self) -> None:
        self.before = self._now()

    def stop(self) -> tuple[float, float]:
        after = self._now()
        return tuple(sum(seconds - before.get(pid, 0.0) for pid, seconds in now.items())
                     for now, before in zip(after, self.before))


def _seat_to_act(client, tokens: list[str], game_id: int) -> int | None:
    _, game = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
    return game["to_act"][0] if game["status"] == "active" else None


def _move(client, tokens: list[str], game_id: int, seat: int, rnd: random.Random) -> dict | None:
    """One random move by `seat`, through the API; the game after it, None once over."""
    _, listed = client.call("GET", f"/api/games/{game_id}/legal-moves/", token=tokens[seat])
    status, answer = client.call("POST", f"/api/games/{game_id}/moves/",
                                 {"move": rnd.choice(listed["moves"]), "expected_seq": listed["seq"]}, tokens[seat])
    assert status == 201, answer
    return answer["game"] if answer["game"]["status"] == "active" else None


def _server_reads(game_id: int, mover: int, to_act: int) -> dict[str, tuple[int, str]]:
    """Each read: (the token's index: 0, 1 the seats, 2 the spectator; the path)."""
    game = f"/api/games/{game_id}/"
    return {"game, first": (mover, game), "game, again": (mover, game), "game, other seat": (1 - mover, game),
            "game, spectator": (2, game), "legal moves": (to_act, f"{game}legal-moves/"),
            "state": (mover, f"{game}state/"), "board.txt": (mover, f"{game}board.txt")}


POLLS = 20  # a spectator's polls of an unchanged game, one after another


def through_server(database_url: str, rounds: int, warm: int = 20, seed: int = 1,
                   port: int = 8771) -> dict[str, tuple[float, float]]:
    """Each read's mean (web ms, PostgreSQL ms) over `rounds` moves, through `make run`'s server,
    after `warm` moves whose reads are not counted (its imports and caches)."""
    tokens = p1.accounts(database_url, 1)[0] + [p1._new_token()]
    server = p1.web_server(database_url, port)
    base = f"http://127.0.0.1:{port}"
    rnd = random.Random(seed)
    totals = {name: [0.0, 0.0] for name in ("idle", *READS, "spectator polling")}
    try:
        api_load.wait_for(f"{base}/api/health/")
        client = api_load.Client(base)
        meter = ServerMeter(server)
        game_id, done = api_load._new_game(client, tokens[:2]), 0
        while done < warm + rounds:
            if done == warm:
                totals = {name: [0.0, 0.0] for name in totals}
            seat_to_act = _seat_to_act(client, tokens, game_id)
            after = None if seat_to_act is None else _move(client, tokens, game_id, seat_to_act, rnd)
            if after is None:
                game_id = api_load._new_game(client, tokens[:2])
                continue
            time.sleep(0.05)  # what the move left to do after its answer (notices) is not a read's
            meter.refresh()
            spent = 0.0
            for name, (who, path) in _server_reads(game_id, seat_to_act, after["to_act"][0]).items():
                meter.start()
                started = time.perf_counter()
                status, _ = client.fetch("GET", path, token=tokens[who],
                                         accept="text/plain" if path.endswith(".txt") else "application/json")
                spent = time.perf_counter() - started
                web, database = meter.stop()
                assert status == 200, (path, status)
                totals[name][0] += web
                totals[name][1] += database
            meter.start()
            time.sleep(spent)
            web, database = meter.stop()
            totals["idle"][0] += web
            totals["idle"][1] += database
            meter.start()
            for _ in range(POLLS):
                client.fetch("GET", f"/api/games/{game_id}/", token=tokens[2])
            web, database = meter.stop()
            totals["spectator polling"][0] += web / POLLS
            totals["spectator polling"][1] += database / POLLS
            done += 1
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {name: (web * 1000 / rounds, database * 1000 / rounds) for name, (web, database) in totals.items()}


# --- web server configurations side by side ---------------------------------------------------
#
# `--configs`: each configuration a web server of its own on the bench database (2 processes, as
# `make run` on this machine), all started at once; the same reads (a seat's GET of the game, the
# seat to act's legal moves, a spectator's GET of the game, after one move) sent to each in turn,
# in batches of `--batch` requests after 20 not counted, for `--rounds` rounds, so every
# configuration meets the same machine; CPU counted as `--server` counts it.
# - `make run`: `project.serve`'s command line, the default;
# - `make run, access log`: the same with `SCRAPYARD_ACCESS_LOG=1` (decision 0038);
# - `granian WSGI`: granian's own WSGI interface on the same Django application (no streams, so not
#   something `make run` could serve): what the front's hop from the event loop to a thread costs.


CONFIGS_PORT = 8790


def configurations(port: int) -> dict[str, tuple[list[str] | None, dict[str, str]]]:
    """Each configuration's command line after `python -m` (None: `make run`'s) and settings."""
    wsgi = p1._granian_wsgi(port + 2, 2, 4)
    return {"make run": (None, {}), "make run, access log": (None, {"SCRAPYARD_ACCESS_LOG": "1"}),
            "granian WSGI": (wsgi, {})}


def _server(database_url: str, port: int, argv: list[str] | None, settings: dict[str, str]):
    if argv is None:
        from project import serve

        argv = serve.command(serve.DEFAULT, "127.0.0.1", port, 2, 4) + serve.access_log(serve.DEFAULT, settings)
    return p1.web_server(database_url, port, argv=argv, environment=settings)


def configurations_side_by_side(database_url: str, rounds: int, batch: int) -> dict[str, dict[str, tuple[float, float]]]:
    """Each configuration's reads: (web ms, PostgreSQL ms) per request."""
    tokens = p1.accounts(database_url, 1)[0] + [p1._new_token()]
    servers = {}
    try:
        for offset, (name, (argv, settings)) in enumerate(configurations(CONFIGS_PORT).items()):
            servers[name] = (CONFIGS_PORT + offset, _server(database_url, CONFIGS_PORT + offset, argv, settings))
        clients = {}
        for name, (port, _) in servers.items():
            api_load.wait_for(f"http://127.0.0.1:{port}/api/health/")
            clients[name] = api_load.Client(f"http://127.0.0.1:{port}")
        first = next(iter(clients.values()))
        game_id = api_load._new_game(first, tokens[:2])
        _move(first, tokens, game_id, _seat_to_act(first, tokens, game_id), random.Random(1))
        to_act = _seat_to_act(first, tokens, game_id)
        paths = {"game": (0, f"/api/games/{game_id}/"), "legal moves": (to_act, f"/api/games/{game_id}/legal-moves/"),
                 "game, spectator": (2, f"/api/games/{game_id}/")}
        totals = {name: {read: [0.0, 0.0] for read in paths} for name in servers}
        meters = {name: ServerMeter(server) for name, (_, server) in servers.items()}
        for _ in range(rounds):
            for name, client in clients.items():
                for read, (who, path) in paths.items():
                    for _ in range(20):  # this server's caches for this read, as a steady load has them
                        client.fetch("GET", path, token=tokens[who])
                    meters[name].refresh()
                    meters[name].start()
                    for _ in range(batch):
                        client.fetch("GET", path, token=tokens[who])
                    web, database = meters[name].stop()
                    totals[name][read][0] += web
                    totals[name][read][1] += database
    finally:
        for _, server in servers.values():
            server.terminate()
            server.wait(timeout=30)
    requests = rounds * batch
    return {name: {read: (web * 1000 / requests, database * 1000 / requests) for read, (web, database) in by_read.items()}
            for name, by_read in totals.items()}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="CPU per read request")
    parser.add_argument("--rounds", type=int, default=None, help="200, or 10 with --configs")
    parser.add_argument("--server", action="store_true",
                        help="through make run's web server, its CPU and PostgreSQL's only (issue 57's measure)")
    parser.add_argument("--configs", action="store_true",
                        help="web server configurations side by side, hot reads in batches (--rounds 10 is plenty)")
    parser.add_argument("--batch", type=int, default=200, help="--configs: requests per batch")
    arguments = parser.parse_args()
    arguments.rounds = arguments.rounds or (10 if arguments.configs else 200)
    url = db.migrated()
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    os.environ.setdefault("REDIS_URL", os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"))
    if arguments.configs:
        p1.vacuumed(url)
        _print_configurations(configurations_side_by_side(url, arguments.rounds, arguments.batch), arguments)
        return
    if arguments.server:
        p1.vacuumed(url)
        result = through_server(url, arguments.rounds)
        where = "make run's web server, its own CPU"
    else:
        play(url, 20)  # warm: imports, the token cache, the rules' caches
        result = play(url, arguments.rounds, seed=2)
        where = "in process, the test client's share included"
    print(f"{arguments.rounds} rounds, server CPU per request (web + PostgreSQL; {where}), "
          f"load {os.getloadavg()[0]:.1f}:")
    for name, (web, pg) in result.items():
        print(f"  {name:<18} {web:5.2f} + {pg:4.2f} = {web + pg:5.2f} ms")


def _print_configurations(result: dict[str, dict[str, tuple[float, float]]], arguments) -> None:
    print(f"{arguments.rounds} rounds of {arguments.batch} requests, server CPU per request "
          f"(web + PostgreSQL), load {os.getloadavg()[0]:.1f}:")
    for name, by_read in result.items():
        print(f"  {name}")
        for read, (web, database) in by_read.items():
            print(f"    {read:<16} {web:5.2f} + {database:4.2f} = {web + database:5.2f} ms")


if __name__ == "__main__":
    main()
