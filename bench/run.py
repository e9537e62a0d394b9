"""Core benchmarks: `python -m bench.run` (or `make bench`).

- playouts: random-playout speed of every rules module (moves a second of CPU, one core; the
  target is 20,000 in every game);
- api: moves/s of the REST API against pgbench on the same PostgreSQL (P1), CPU and SQL
  statements per move, and scaling from 1 to 64 clients (`bench.p1`);
- load: the time to load a game's state from the database (the process's cache emptied) at 10
  and at 10,000 events (snapshots on), and the fold from zero for contrast.

The api and load parts need PostgreSQL: `BENCH_DATABASE_URL` (default
postgres://postgres@127.0.0.1:5432/scrapyard_bench, created if missing). Figures go to stdout and
to bench/results/core.md, with the machine and the date.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import sys
import time
from pathlib import Path

from bench import db

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "core.md"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    return f"{platform.node()}: {platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


# --- playouts ------------------------------------------------------------------------------


PLAYOUT_TARGET = 20_000  # random-playout moves a second every game must reach (one core)


def playouts(seconds_per_case: float = 3.0) -> list[str]:
    """Random playouts from setup to the end: `to_act`, `legal_moves`, a random move, `apply`,
    `outcome`, as a search's rollout does. Moves a second are counted over the process's CPU time
    (what a core gives it, however loaded the machine) and over the wall clock beside it."""
    import rules

    rows = [
        f"| game | players | games | moves | moves/s (CPU) | target {PLAYOUT_TARGET:,} | moves/s (wall) "
        "| mean game length |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game in rules.catalog().values():
        for players in range(game.min_players, game.max_players + 1):
            games, moves, cpu, wall = _playout_case(game, players, seconds_per_case)
            speed = moves / cpu
            rows.append(
                f"| {game.id} | {players} | {games} | {moves} | {speed:,.0f} "
                f"| {'met' if speed >= PLAYOUT_TARGET else 'below'} | {moves / wall:,.0f} "
                f"| {moves / games:,.0f} |"
            )
    return rows


def _playout_case(game, players: int, budget: float) -> tuple[int, int, float, float]:
    rnd, games, moves = random.Random(players), 0, 0
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    while time.process_time() - cpu_start < budget or games == 0:
        state = game.setup(players, {}, f"bench-{games}")
        while game.outcome(state) is None:
            seat = rnd.choice(game.to_act(state))
            state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
            moves += 1
        games += 1
    return games, moves, time.process_time() - cpu_start, time.perf_counter() - wall_start


# --- api -----------------------------------------------------------------------------------


def api() -> list[str]:
    """P1 and its companions: `bench.p1`."""
    from bench import p1

    return p1.measure(db.migrated())


# --- load ----------------------------------------------------------------------------------


def load(events: int = 10_000) -> list[str]:
    url = db.url()
    db.ensure(url)
    os.environ.update(db.environment(url))
    import django

    django.setup()
    db.manage(url, "migrate", "--noinput", "--verbosity", "0")
    from bench import long_game

    timings = long_game.measure(events)
    rows = ["| events in the game | load (snapshot + fold), ms | fold from zero, ms |", "|---|---|---|"]
    rows += [f"| {n:,} | {fast:.2f} | {slow:.1f} |" for n, fast, slow in timings]
    return rows


# --- main ----------------------------------------------------------------------------------

PARTS = {"playouts": playouts, "api": api, "load": load}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help=f"any of {', '.join(PARTS)} (default: all)")
    parts = parser.parse_args().parts or list(PARTS)
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"no such part: {', '.join(sorted(unknown))}")
    sys.path.insert(0, str(ROOT))
    lines = ["# Core benchmarks", "", f"Machine: {machine()}", f"Date: {datetime.date.today()}", ""]
    for part in parts:
        print(f"== {part}", flush=True)
        rows = PARTS[part]()
        print("\n".join(rows), flush=True)
        lines += [f"## {part}", "", *rows, ""]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
