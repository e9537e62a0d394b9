"""What the game page's reads after a move cost, in one process:
`python -m bench.page_reads [--events 70] [--reads 20]`.

Plays a Scavenge game through the API to `--events` events, then, after each of `--reads` more
moves, makes the reads the page makes (the whole log with its texts, as at a first load; the log
after the event before, as the page asks at every move since; the text board; the game) and
counts each one's Python calls (cProfile, a count that does not move with the machine's load) and
this process's CPU. Each read is the first of its kind at its seq. Needs PostgreSQL and Redis as
`bench.client_profile`; runs unchanged on an older checkout as that one does.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file from another checkout: that checkout's bench
    sys.path.insert(0, os.getcwd())

from bench import client_profile, p1

READS = {"events whole": "/events/?notation=true", "events new": "/events/?notation=true&after={before}",
         "board": "/board.txt", "game": "/"}


def measure(database_url: str, events: int, reads: int) -> dict[str, tuple[float, float]]:
    from consumers import after_commit

    rnd = random.Random(5)
    players, game_id = p1._two_players_in_a_game(database_url)
    base = f"/api/games/{game_id}"

    def move() -> int:
        game = players[0].get(f"{base}/").json()
        seat = game["to_act"][0]
        listed = players[seat].get(f"{base}/legal-moves/").json()
        players[seat].post(f"{base}/moves/", {"move": rnd.choice(listed["moves"]), "expected_seq": listed["seq"]},
                           format="json")
        after_commit.drain()
        return listed["seq"] + 1

    seq = 0
    while seq < events:
        seq = move()
    calls = dict.fromkeys(READS, 0)
    cpu = dict.fromkeys(READS, 0.0)
    for _ in range(reads):
        seq = move()
        for name, path in READS.items():
            profiler = cProfile.Profile()
            started = time.process_time()
            profiler.enable()
            answer = players[0].get(base + path.format(before=seq - 1))
            profiler.disable()
            cpu[name] += time.process_time() - started
            assert answer.status_code == 200, (path, answer.status_code)
            calls[name] += pstats.Stats(profiler).total_calls
    return {name: (calls[name] / reads, cpu[name] * 1000 / reads) for name in READS}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="the game page's reads after a move, in one process")
    parser.add_argument("--events", type=int, default=70)
    parser.add_argument("--reads", type=int, default=20)
    arguments = parser.parse_args()
    url = client_profile.migrated_bench_database()
    import django

    django.setup()
    tree = Path(p1.__file__).resolve().parent.parent.name
    for name, (calls, cpu) in measure(url, arguments.events, arguments.reads).items():
        print(f"[{tree}] {name}: {calls:.0f} Python calls, {cpu:.2f} ms CPU (profiled); load {os.getloadavg()[0]:.1f}",
              flush=True)


if __name__ == "__main__":
    main()
