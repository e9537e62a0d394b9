"""The CPU of the reads a client makes between moves, in one process: `python -m bench.reads
[--rounds N]`.

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
"""

from __future__ import annotations

import os
import random
import time

from bench import db, p1
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


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="CPU per read request, in one process")
    parser.add_argument("--rounds", type=int, default=200)
    arguments = parser.parse_args()
    url = db.migrated()
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    os.environ.setdefault("REDIS_URL", os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"))
    play(url, 20)  # warm: imports, the token cache, the rules' caches
    result = play(url, arguments.rounds, seed=2)
    print(f"{arguments.rounds} rounds, server CPU per request (web + PostgreSQL), load {os.getloadavg()[0]:.1f}:")
    for name, (web, pg) in result.items():
        print(f"  {name:<18} {web:5.2f} + {pg:4.2f} = {web + pg:5.2f} ms")


if __name__ == "__main__":
    main()
