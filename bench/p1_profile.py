"""The CPU of one move POST, measured in one process: `python -m bench.p1_profile [--moves N]
[--profile]`.

`bench.p1` measures moves/s under load, which on a shared 2-core machine swings with whatever
else runs. CPU time per move swings far less, so each lever on the move path is judged here:
two seated players play Scavenge through Django's whole request handler (middleware, URL
resolution, the view, the commit) in this process, and the figures are

- web: this process's CPU (`time.process_time`) per move POST, the client's own share included
  (Django's test client builds the WSGI environ; it is small and the same for every lever);
- PostgreSQL: the CPU of this connection's server process (its pid from `pg_backend_pid()`,
  its ticks from /proc) per move.

Then 100 more moves under cProfile give the Python function calls per move POST: a count, not a
time, so it does not move with the machine's load. With `--profile`, that profile (CPU time)
prints its 35 costliest functions (`PROFILE_LINES` sets how many) by their own time and by
cumulative time. Needs PostgreSQL (`BENCH_DATABASE_URL`, as `bench.p1`).
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import random
import time

from bench import db, p1


def _backend_cpu(pid: int) -> float:
    return p1._cpu_seconds({pid})


def play(database_url: str, moves: int, profile: bool = False, seed: int = 1, show: bool = False) -> dict[str, float]:
    import rules
    from consumers import after_commit

    players, game_id = p1._two_players_in_a_game(database_url)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    scavenge, rnd = rules.catalog()["scavenge"], random.Random(seed)
    game = players[0].get(f"/api/games/{game_id}/").json()
    listed = players[game["to_act"][0]].get(f"/api/games/{game_id}/legal-moves/").json()
    after = {"to_act": game["to_act"], "seq": listed["seq"], "moves": listed["moves"], "your_seat": game["to_act"][0]}
    profiler = cProfile.Profile(time.process_time) if profile else None
    web = database = 0.0
    played = 0
    while played < moves:
        seat = after["to_act"][0]
        if seat == after["your_seat"]:
            options = after["moves"]
        else:  # as a good client: the other seat's moves from the view the answer gave
            options = scavenge.legal_moves(scavenge.sample_state(after["view"], after["your_seat"], rnd), seat)
        body = {"move": rnd.choice(options), "expected_seq": after["seq"]}
        cpu, pg = time.process_time(), _backend_cpu(backend)
        if profiler:
            profiler.enable()
        answer = players[seat].post(f"/api/games/{game_id}/moves/", body, format="json")
        after_commit.drain()  # the move's after-commit job, run by this process's thread, counted with it
        if profiler:
            profiler.disable()
        web += time.process_time() - cpu
        database += _backend_cpu(backend) - pg
        assert answer.status_code == 201, answer.content
        played += 1
        after = answer.json()["game"]
        if after["status"] != "active":
            players, game_id = p1._two_players_in_a_game(database_url)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                backend = cursor.fetchone()[0]
            game = players[0].get(f"/api/games/{game_id}/").json()
            listed = players[game["to_act"][0]].get(f"/api/games/{game_id}/legal-moves/").json()
            after = {"to_act": game["to_act"], "seq": listed["seq"], "moves": listed["moves"],
                     "your_seat": game["to_act"][0]}
    calls = 0.0
    if profiler:
        stats = pstats.Stats(profiler, stream=io.StringIO())
        calls = stats.total_calls / played
        if show:
            for order in ("tottime", "cumulative"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(int(os.environ.get("PROFILE_LINES", "35")))
                print(out.getvalue())
    return {"moves": played, "web_ms": web * 1000 / played, "postgresql_ms": database * 1000 / played,
            "calls": calls}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="CPU per move POST, in one process")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--profile", action="store_true")
    arguments = parser.parse_args()
    url = db.migrated()
    p1.vacuumed(url)
    os.environ.setdefault("SCRAPYARD_RATE_ACCOUNT", "1000000")
    # Redis as `bench.p1`'s server has it: the token memory (it lives only while the process
    # hears revocations), the rate limit's counter and the streams' notice.
    os.environ.setdefault("REDIS_URL", os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"))
    play(url, 30)  # warm: imports, the token cache, the rules' caches
    result = play(url, arguments.moves)
    from unittest import mock

    from consumers import after_commit

    # cProfile sees one thread: the after-commit job runs in the request's, decided as the thread's would be.
    with mock.patch.object(after_commit, "soon", lambda job, *args: after_commit._run(job, args)):
        counted = play(url, 100, profile=True, seed=2, show=arguments.profile)
    print(f"{result['moves']} moves: web {result['web_ms']:.2f} ms + PostgreSQL {result['postgresql_ms']:.2f} ms "
          f"= {result['web_ms'] + result['postgresql_ms']:.2f} ms CPU a move; {counted['calls']:.0f} Python calls a move; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
