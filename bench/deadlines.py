"""Lateness of enforced deadlines: `python -m bench.deadlines --games 1000`.

Creates `--games` two-seat Scavenge games (step time control, policy `auto`) in a database of its
own, moves every first deadline into one `--window` (60 s by default, spread evenly, starting
`--lead` seconds ahead), starts real `celery -A project worker --beat` processes against it and
Redis, and waits until every game has its timeout event. Lateness is the time from a deadline to
its timeout event's `created_at`; p50, p90, p99 and the maximum go to stdout and to
bench/results/deadlines.md, with the machine and the date.

Needs PostgreSQL and Redis: `BENCH_DATABASE_URL` (default
postgres://postgres@127.0.0.1:5432/scrapyard_bench_deadlines, dropped and created afresh) and
`BENCH_REDIS_URL` (default redis://127.0.0.1:6379/13, flushed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "deadlines.md"
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/scrapyard_bench_deadlines"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
STEP_SECONDS = 3600  # the deadline after each timeout falls far outside the measured window


def fresh_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(db_url: str, redis_url: str) -> None:
    os.environ["DATABASE_URL"] = db_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def create_games(count: int) -> list[int]:
    from django.contrib.auth import get_user_model

    from games import services

    User = get_user_model()
    alice = User.objects.create_user(username="bench-a", password="x")
    bob = User.objects.create_user(username="bench-b", password="x")
    ids = []
    for _ in range(count):
        game = services.game_create(
            creator=alice, rules_id="scavenge", players=2, options={},
            time_control={"type": "step", "seconds": STEP_SECONDS}, timeout_policy="auto",
        )
        services.game_join(game_id=game.pk, user=bob)
        ids.append(game.pk)
    return ids


def schedule(ids: list[int], start: dt.datetime, window: float) -> dict[int, dt.datetime]:
    """Every game's first deadline moved into the window, evenly; returns them by game."""
    from django.db import transaction

    from games.models import Deadline

    planned = {
        game_id: start + dt.timedelta(seconds=window * i / len(ids)) for i, game_id in enumerate(ids)
    }
    with transaction.atomic():
        for game_id, due_at in planned.items():
            Deadline.objects.filter(game_id=game_id).update(due_at=due_at, enqueued_at=None)
    return planned


def start_workers(count: int, concurrency: int, env: dict, var: Path) -> list[subprocess.Popen]:
    celery = Path(sys.executable).parent / "celery"
    workers = []
    for n in range(count):
        command = [
            str(celery), "-A", "project", "worker", "--loglevel=WARNING", f"--concurrency={concurrency}",
            f"--hostname=bench{n}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
        ] + (["--beat", f"--schedule={var / 'beat-schedule'}"] if n == 0 else [])
        log = open(var / f"worker{n}.log", "wb")
        workers.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True))
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)


def timeouts_of(ids: list[int]) -> dict[int, dt.datetime]:
    from games.models import Event

    rows = Event.objects.filter(game_id__in=ids, kind="timeout").values_list("game_id", "created_at")
    first: dict[int, dt.datetime] = {}
    for game_id, created_at in rows:
        first[game_id] = min(created_at, first.get(game_id, created_at))
    return first


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--window", type=float, default=60.0, help="seconds the deadlines spread over")
    parser.add_argument("--lead", type=float, default=15.0, help="seconds from now to the first deadline")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (the first runs beat)")
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes per worker")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file")
    args = parser.parse_args(argv)

    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    fresh_database(db_url)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    setup_django(db_url, redis_url)
    began = time.monotonic()
    ids = create_games(args.games)
    print(f"{len(ids)} games created in {time.monotonic() - began:.1f} s", flush=True)

    var = Path(tempfile.mkdtemp(prefix="bench-deadlines-"))
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url, "SCRAPYARD_VAR_DIR": str(var)}
    from games import clocks

    planned = schedule(ids, clocks.now() + dt.timedelta(seconds=args.lead), args.window)
    loads = [os.getloadavg()[0]]
    workers = start_workers(args.workers, args.concurrency, env, var)
    try:
        deadline = time.monotonic() + args.lead + args.window + 120
        done: dict[int, dt.datetime] = {}
        while time.monotonic() < deadline and len(done) < len(ids):
            time.sleep(2)
            done = timeouts_of(ids)
            loads.append(os.getloadavg()[0])
            print(f"  {len(done)}/{len(ids)} timeouts, load {loads[-1]:.1f}", flush=True)
    finally:
        stop_workers(workers)
    lateness = [(done[g] - planned[g]).total_seconds() for g in ids if g in done]
    missing = len(ids) - len(lateness)
    return report(args, lateness, missing, loads)


def report(args, lateness: list[float], missing: int, loads: list[float]) -> int:
    figures = {
        "p50": statistics.median(lateness),
        "p90": percentile(lateness, 0.90),
        "p99": percentile(lateness, 0.99),
        "max": max(lateness),
        "min": min(lateness),
    }
    line = ", ".join(f"{name} {value * 1000:.0f} ms" for name, value in figures.items())
    print(f"lateness over {len(lateness)} timeouts: {line}; missing {missing}")
    dupes = duplicate_timeouts()
    print(f"games with more than one timeout (the next deadline is an hour away): {dupes}")
    if args.no_write:
        return 0 if missing == 0 and dupes == 0 else 1
    command = (f"python -m bench.deadlines --games {args.games} --window {args.window:g} "
               f"--workers {args.workers} --concurrency {args.concurrency}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        "# Deadline lateness\n\n"
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}; PostgreSQL and Redis on the same machine.\n\n"
        f"Command: `{command}`\n\n"
        f"{args.games} two-seat Scavenge games, step time control, policy `auto`; the first deadline of every "
        f"game falls in one {args.window:g} s window, evenly spread. Real `celery -A project worker --beat` "
        f"processes ({args.workers} x concurrency {args.concurrency}); beat sweeps every second and sends each "
        "timeout with its ETA at the deadline. Lateness: from the deadline to the `created_at` of the "
        "game's timeout event.\n\n"
        "| timeouts | missing | duplicated | p50 | p90 | p99 | max |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| {len(lateness)} | {missing} | {dupes} | {figures['p50'] * 1000:.0f} ms | {figures['p90'] * 1000:.0f} ms "
        f"| {figures['p99'] * 1000:.0f} ms | {figures['max'] * 1000:.0f} ms |\n\n"
        f"Load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f} on {os.cpu_count()} cores "
        "(the machine is shared; other processes were running).\n\n"
        "Goal: p99 under 1 s.\n"
    )
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0 if missing == 0 and dupes == 0 else 1


def duplicate_timeouts() -> int:
    from django.db.models import Count

    from games.models import Event

    return (
        Event.objects.filter(kind="timeout").values("game_id").annotate(n=Count("id")).filter(n__gt=1).count()
    )


if __name__ == "__main__":
    sys.exit(main())
