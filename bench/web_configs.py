"""The server's CPU per read under web server configurations side by side:
`python -m bench.web_configs [--rounds N] [--batch N]`.

Each configuration is a web server of its own on the bench database (2 processes, as `make run`
on this machine), all started at once; the same reads (a seat's GET of the game, the seat to
act's legal moves, a spectator's GET of the game, after one move) go to each in turn, in batches
of `--batch` requests after 20 not counted, for `--rounds` rounds, so every configuration meets
the same machine. CPU as `bench.reads --server` counts it: the server's threads and every
PostgreSQL process, from the scheduler's nanoseconds.

- `make run`: `project.serve`'s command line, the default;
- `make run, access log`: the same with `SCRAPYARD_ACCESS_LOG=1` (decision 0038);
- `granian WSGI`: granian's own WSGI interface on the same Django application (no streams, so
  not something `make run` could serve): what the front's hop from the event loop to a thread
  costs, beside it.

Needs PostgreSQL (`BENCH_DATABASE_URL`) and Redis (`BENCH_REDIS_URL`), as `bench.reads`.
"""

from __future__ import annotations

import os
import random

from bench import api_load, db, p1, reads

PORT = 8790


def configurations(port: int) -> dict[str, tuple[list[str] | None, dict[str, str]]]:
    """Each configuration's command line after `python -m` (None: `make run`'s) and settings."""
    wsgi = ["granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port + 2), "--workers", "2",
            "--blocking-threads", "4", "project.wsgi:application"]
    return {"make run": (None, {}), "make run, access log": (None, {"SCRAPYARD_ACCESS_LOG": "1"}),
            "granian WSGI": (wsgi, {})}


def _server(database_url: str, port: int, argv: list[str] | None, settings: dict[str, str]):
    if argv is None:
        from project import serve

        argv = serve.command(serve.DEFAULT, "127.0.0.1", port, 2, 4) + serve.access_log(serve.DEFAULT, settings)
    return p1.web_server(database_url, port, argv=argv, environment=settings)


def side_by_side(database_url: str, rounds: int, batch: int) -> dict[str, dict[str, tuple[float, float]]]:
    """Each configuration's reads: (web ms, PostgreSQL ms) per request."""
    tokens = p1.accounts(database_url, 1)[0] + [p1._new_token()]
    servers = {}
    try:
        for offset, (name, (argv, settings)) in enumerate(configurations(PORT).items()):
            servers[name] = (PORT + offset, _server(database_url, PORT + offset, argv, settings))
        clients = {}
        for name, (port, _) in servers.items():
            api_load.wait_for(f"http://127.0.0.1:{port}/api/health/")
            clients[name] = api_load.Client(f"http://127.0.0.1:{port}")
        first = next(iter(clients.values()))
        game_id = api_load._new_game(first, tokens[:2])
        reads._move(first, tokens, game_id, reads._seat_to_act(first, tokens, game_id), random.Random(1))
        to_act = reads._seat_to_act(first, tokens, game_id)
        paths = {"game": (0, f"/api/games/{game_id}/"), "legal moves": (to_act, f"/api/games/{game_id}/legal-moves/"),
                 "game, spectator": (2, f"/api/games/{game_id}/")}
        totals = {name: {read: [0.0, 0.0] for read in paths} for name in servers}
        meters = {name: reads.ServerMeter(server) for name, (_, server) in servers.items()}
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

    parser = argparse.ArgumentParser(description="server CPU per read, web server configurations side by side")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--batch", type=int, default=200)
    arguments = parser.parse_args()
    url = db.migrated()
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    os.environ.setdefault("REDIS_URL", os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"))
    p1.vacuumed(url)
    result = side_by_side(url, arguments.rounds, arguments.batch)
    print(f"{arguments.rounds} rounds of {arguments.batch} requests, server CPU per request "
          f"(web + PostgreSQL), load {os.getloadavg()[0]:.1f}:")
    for name, by_read in result.items():
        print(f"  {name}")
        for read, (web, database) in by_read.items():
            print(f"    {read:<16} {web:5.2f} + {database:4.2f} = {web + database:5.2f} ms")


if __name__ == "__main__":
    main()
