"""Competitive play's figures: `python -m bench.competition` (PostgreSQL, like `bench.run api`).

- pairing: the time from a seek to its game (`seek_create`, whose pairing runs as the task would,
  in-process, after the commit), with no other seek open, with 1,000 open seeks for other games,
  and with 1,000 open seeks in the same bucket that cannot pair (each refuses every rating): the
  worst case, where every pairing looks at its window of the oldest seeks;
- rebuild: every rating from scratch (`ratings_rebuild`) over N finished rated games (100,000 by
  default: two-player Terrafex, Glicko-2, and three- and four-player Scavenge, Plackett-Luce),
  written straight into the tables by SQL, with the time split into reading the log, the fold and
  writing the ratings.

(The Swiss pairing is measured against bbpPairings by `bench.pairing_bbp`.)

`BENCH_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/scrapyard_bench) is emptied of
games first. Figures go to stdout and bench/results/competition.md, with the machine and date.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time

from bench import db
from bench.run import RESULTS, machine

OUT = RESULTS.parent / "competition.md"
STEP = {"type": "step", "seconds": 60}


def _setup(url: str) -> None:
    db.ensure(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    os.environ["SCRAPYARD_TASKS_EAGER"] = "1"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    db.manage(url, "migrate", "--noinput", "--verbosity", "0")
    import django

    django.setup()


def _empty() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('scrapyard.allow_truncate', 'on', false)")
        cursor.execute("TRUNCATE games_event, games_game, auth_user, competition_seek, competition_rating, "
                       "competition_ratingchange, competition_ratedgame CASCADE")


# --- pairing --------------------------------------------------------------------------------


def _users(prefix: str, n: int) -> list:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    User.objects.bulk_create([User(username=f"{prefix}{i}") for i in range(n)], batch_size=2000)
    return list(User.objects.filter(username__startswith=prefix).order_by("pk"))


def _open_seeks(users: list, same_bucket: bool) -> None:
    """1,000 seeks that stay open: in the measured bucket but refusing every rating, or for
    other games (a clock of another length each)."""
    from competition import pairing
    from competition.models import Seek

    for index, user in enumerate(users):
        if same_bucket:
            pairing.seek_create(user=user, rules_id="terrafex", players=2, options={}, time_control=STEP,
                                rated=True, rating_min=9000)
        else:
            control = {"type": "step", "seconds": 61 + index}
            pairing.seek_create(user=user, rules_id="terrafex" if index % 2 else "scavenge", players=2, options={},
                                time_control=control, rated=True)
    assert Seek.objects.filter(status="open").count() >= len(users)


def pairing_latency(pairs: int = 40) -> list[str]:
    from competition import pairing
    from competition.models import Seek

    rows = ["| open seeks besides | pairs | seek to game p50 ms | p95 ms | max ms |", "|---|---|---|---|---|"]
    cases = [("none", None), ("1,000 for other games", False), ("1,000 in the same bucket, unpairable", True)]
    baseline = None
    for label, same_bucket in cases:
        _empty()
        if same_bucket is not None:
            _open_seeks(_users("other", 1000), same_bucket)
        seekers = _users("seeker", 2 * pairs)
        samples = []
        for first, second in zip(seekers[::2], seekers[1::2]):
            pairing.seek_create(user=first, rules_id="terrafex", players=2, options={}, time_control=STEP, rated=True)
            started = time.perf_counter()
            seek = pairing.seek_create(user=second, rules_id="terrafex", players=2, options={}, time_control=STEP,
                                       rated=True)
            samples.append((time.perf_counter() - started) * 1000)
            assert Seek.objects.get(pk=seek.pk).status == "paired"
        samples.sort()
        p50 = statistics.median(samples)
        baseline = baseline or p50
        rows.append(f"| {label} | {pairs} | {p50:.1f} ({p50 / baseline:.2f}×) | {samples[int(0.95 * len(samples)) - 1]:.1f} "
                    f"| {samples[-1]:.1f} |")
    return rows


# --- rating rebuild ---------------------------------------------------------------------------


def _finished_games(games: int, players_pool: int = 2000) -> None:
    """`games` finished rated games in SQL: a fifth of them Scavenge for three or four, the rest
    Terrafex for two, among `players_pool` accounts, one a minute over the last months; each has
    its seats and a final event (the finish the fold orders by)."""
    from django.db import connection

    _users("rated", players_pool)
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM auth_user WHERE username LIKE 'rated%%'")
        first_user = cursor.fetchone()[0]
        cursor.execute("SELECT setseed(0.42)")
        cursor.execute(
            """
            INSERT INTO games_game (id, rules, rules_version, players, options, status, seq, to_act, result, seed,
                                    seed_sha256, time_control, timeout_policy, created_by_id, private,
                                    timeouts_to_resign, invitation_key, rated, created_at, updated_at, finished_at)
            SELECT g, CASE WHEN g %% 5 = 0 THEN 'scavenge' ELSE 'terrafex' END, 1,
                   CASE WHEN g %% 5 = 0 THEN 3 + (g %% 2) ELSE 2 END, '{}', 'finished', 1, '[]', NULL, 'x', 'x',
                   %s::jsonb, 'auto', %s, false, 3, '', true,
                   now() - interval '100000 minutes' + g * interval '1 minute',
                   now() - interval '100000 minutes' + g * interval '1 minute',
                   now() - interval '100000 minutes' + g * interval '1 minute'
            FROM generate_series(1, %s) AS g
            """,
            ['{"type": "step", "seconds": 60}', first_user, games],
        )
        # seats: distinct accounts per game, chosen at random from the pool
        cursor.execute(
            """
            INSERT INTO games_seat (game_id, index, user_id, bot, stand_in, joined_at)
            SELECT g.id, s.index, %s + ((g.id * 7919 + s.index * (1 + g.id %% 997)) %% %s), '', '', g.created_at
            FROM games_game g CROSS JOIN LATERAL generate_series(0, g.players - 1) AS s(index)
            """,
            [first_user, players_pool],
        )
        cursor.execute(
            """
            UPDATE games_game g SET result = jsonb_build_object(
                'reason', 'finished', 'winners', '[]'::jsonb,
                'scores', (SELECT jsonb_agg(floor(random() * 3)) FROM generate_series(1, g.players)))
            """
        )
        cursor.execute(
            """
            INSERT INTO games_event (game_id, seq, kind, seat, payload, public_payload, created_at, prev_hash, hash,
                                     private_digest)
            SELECT id, 1, 'system', NULL, '{}', '{}', created_at, repeat('0', 64), md5(id::text), ''
            FROM games_game
            """
        )
        cursor.execute("SELECT setval(pg_get_serial_sequence('games_game', 'id'), %s)", [games])
        cursor.execute("ANALYZE")


def rebuild(games: int) -> list[str]:
    from competition import rating_fold, rating_service
    from competition.models import Rating, RatingChange
    from games import selectors

    _empty()
    started = time.perf_counter()
    _finished_games(games)
    made = time.perf_counter() - started
    started = time.perf_counter()
    log = selectors.finished_games()
    read = time.perf_counter() - started
    started = time.perf_counter()
    pools, changes = rating_fold.fold_all(log)
    fold = time.perf_counter() - started
    started = time.perf_counter()
    counts = rating_service.ratings_rebuild()
    whole = time.perf_counter() - started
    assert counts["games"] == games and RatingChange.objects.count() == len(changes)
    two = sum(1 for game in log if game["players"] == 2)
    return [
        f"{games:,} finished rated games ({two:,} for two, {games - two:,} for three or four) among 2,000 accounts; "
        f"made by SQL in {made:.1f} s.",
        "",
        "| step | seconds | share | games/s |",
        "|---|---|---|---|",
        f"| read the log (`finished_games`) | {read:.1f} | {read / whole:.0%} | {games / read:,.0f} |",
        f"| fold (Glicko-2, Plackett-Luce) | {fold:.1f} | {fold / whole:.0%} | {games / fold:,.0f} |",
        f"| the rest: delete the old rows, write the new (COPY on PostgreSQL) | {whole - read - fold:.1f} | "
        f"{(whole - read - fold) / whole:.0%} | |",
        f"| whole rebuild (`ratings_rebuild`: read, fold, write {len(changes):,} changes and "
        f"{Rating.objects.count():,} ratings) | {whole:.1f} | 100% | {games / whole:,.0f} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="finished games for the rebuild")
    parser.add_argument("--pairs", type=int, default=40, help="pairings timed in each case")
    parser.add_argument("parts", nargs="*", default=["pairing", "rebuild"])
    args = parser.parse_args()
    if {"pairing", "rebuild"} & set(args.parts):
        _setup(db.url())
    else:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
        import django

        django.setup()
    load = os.getloadavg()
    lines = [f"# Competition: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             "", f"{machine()}; load average at the start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}.", ""]
    if "pairing" in args.parts:
        lines += ["## Pairing latency", "", *pairing_latency(args.pairs), ""]
    if "rebuild" in args.parts:
        lines += ["## Rating rebuild", "", *rebuild(args.games), ""]
    text = "\n".join(lines)
    print(text)
    out = OUT.with_name(f"competition-{args.parts[0]}.md") if len(args.parts) == 1 else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
