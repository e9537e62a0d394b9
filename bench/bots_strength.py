"""Bot strength: each MCTS level against the level or bot below it, by iteration budgets alone.

    python -m bench.bots_strength --games 100 [--rules ID] [--players N] [--jobs 2]
        [--matchup greedy|mcts|random]

Matchups (`--matchup`, repeatable; default greedy and mcts):
- greedy: the default MCTS level against the greedy bot (`bots.greedy`: one ply, the best move by
  the game's evaluation from its own view). Target: 75% wins.
- mcts: the strongest MCTS level against the default level. Target: 60% wins.
- random: the default level against the random bot (the old baseline). Target: 90% wins.

A level is an iteration count with no wall-clock cap (`bots.registry.MCTS_BUDGETS`), and every
decision's seed comes from the game's seed and the action number, so game n of a matchup is the
same game on any machine, loaded or not. For every game in the catalogue (or the one named), each
matchup plays `--games` seeded games with the tested bot's seat moving round the table (game n:
seat n mod players), so it sits first and second equally often. With more than 2 players the
tested bot has one seat and every other seat is the opponent bot.

A game counts as a win when the tested bot's seat is the sole winner, a draw when it shares the
win with others or nobody wins, a loss otherwise (a game cut off at the action cap counts as
unfinished, neither). Win rate is wins / games, given with its 95% Wilson score interval. The
table also gives the mean CPU seconds a decision of the tested bot (its whole search).

Every finished game is appended at once to its matchup's record, bench/results/bots/<key>.jsonl
(seed number, result, scores, the end's reason, time spent; a game the tested bot did not win
is also kept move by move beside it, to replay and study), so a run cut short keeps every game
it finished, and the next run with the same arguments plays only the seeds still missing
(`--fresh` starts the record again). After each game the summary row of games 0..N-1 is rewritten
in bench/results/bots.json (by game, players and matchup) and the Markdown table of every stored
row in bench/results/bots.md, with the machine and date; every game the tested bot did not win
is listed under the table with its scores and reason.

The machine is shared: `--jobs` above 2 is refused.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import math
import os
import platform
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from multiprocessing import Pool
from pathlib import Path

import bots
import rules
from bots import arena
from bots.registry import MCTS_BUDGETS

RESULTS = Path(__file__).resolve().parent / "results"
MAX_ACTIONS = 30_000
MAX_JOBS = 2  # a shared machine of 2 cores


@dataclass(frozen=True)
class Matchup:
    name: str
    tested: arena.Seat
    opponent: arena.Seat
    target: float  # the win rate the tested bot must reach
    key: str  # what `--matchup` calls it


def matchups() -> list[Matchup]:
    spec = bots.catalog()["mcts"]
    default, strongest = spec.default_level, max(spec.levels)
    return [
        Matchup(f"mcts {default} vs greedy", arena.Seat("mcts", default), arena.Seat("greedy", 1),
                0.75, "greedy"),
        Matchup(f"mcts {strongest} vs mcts {default}", arena.Seat("mcts", strongest),
                arena.Seat("mcts", default), 0.60, "mcts"),
        Matchup(f"mcts {default} vs random", arena.Seat("mcts", default), arena.Seat("random", 1),
                0.90, "random"),
    ]


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (0..1 both ends when nothing was tried)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = p + z * z / (2 * trials)
    margin = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    denominator = 1 + z * z / trials
    return max(0.0, (centre - margin) / denominator), min(1.0, (centre + margin) / denominator)


@dataclass(frozen=True)
class GameResult:
    n: int  # the seed number: game n of the matchup
    seat: int  # the tested bot's seat
    result: str  # "win", "draw", "loss" or "unfinished"
    scores: tuple[float, ...] | None
    reason: str
    decisions: int
    seconds: float
    actions: int
    longest: float = 0.0  # the tested bot's slowest decision, in seconds


def play_one(job: tuple[str, int, Matchup, int]) -> GameResult:
    rules_id, players, matchup, n = job
    game = rules.get(rules_id)
    tested_seat = n % players
    seats = {s: matchup.opponent for s in range(players)}
    seats[tested_seat] = matchup.tested
    seed = f"bench:{rules_id}:{players}:{matchup.name}:{n}"
    match = arena.play(game, players, {}, seed, seats, MAX_ACTIONS)
    outcome = match.outcome
    result = _result(outcome, tested_seat)
    kept = kept_game_path(row_key(rules_id, players, matchup), n)
    if result == "win":
        kept.unlink(missing_ok=True)  # a seed played again: an earlier copy would mislead
    else:
        _keep_game(kept, seed, players, match)
    return GameResult(
        n, tested_seat, result,
        tuple(outcome.scores) if outcome else None,
        outcome.reason if outcome else f"cut off after {match.actions} actions",
        match.decisions.get(tested_seat, 0), match.seconds.get(tested_seat, 0.0), match.actions,
        match.longest.get(tested_seat, 0.0),
    )


def _played(job: tuple[str, int, Matchup, int]) -> tuple[tuple, GameResult]:
    """The job with its result: a pool hands results back as they finish, in any order."""
    return job, play_one(job)


def _keep_game(path: Path, seed: str, players: int, match: arena.Match) -> None:
    """A game the tested bot did not win, move by move, to study: `setup(players, {}, seed)`
    and then `apply` each (seat, move) replays it exactly."""
    path.parent.mkdir(parents=True, exist_ok=True)
    outcome = match.outcome
    path.write_text(json.dumps({
        "seed": seed, "players": players, "options": {},
        "outcome": None if outcome is None else {"scores": list(outcome.scores),
                                                 "winners": list(outcome.winners),
                                                 "reason": outcome.reason},
        "moves": [[seat, move] for seat, move in match.moves],
    }) + "\n")


def _result(outcome, seat: int) -> str:
    if outcome is None:
        return "unfinished"
    winners = tuple(outcome.winners)
    if winners == (seat,):
        return "win"
    if not winners or seat in winners:
        return "draw"
    return "loss"


# --- the per-game record ------------------------------------------------------------------------


def row_key(rules_id: str, players: int, matchup: Matchup) -> str:
    return f"{rules_id}:{players}:{matchup.name}"


def record_path(key: str) -> Path:
    return RESULTS / "bots" / (key.replace(":", "-").replace(" ", "_") + ".jsonl")


def kept_games_dir(key: str) -> Path:
    return record_path(key).with_suffix("")


def kept_game_path(key: str, n: int) -> Path:
    return kept_games_dir(key) / f"game-{n}.json"


def forget(key: str) -> None:
    """Drop a matchup's record and the games kept beside it (`--fresh`)."""
    record_path(key).unlink(missing_ok=True)
    shutil.rmtree(kept_games_dir(key), ignore_errors=True)


def load_record(key: str) -> dict[int, GameResult]:
    """The games of a matchup played so far, by seed number (a later line for the same seed,
    from a rerun, replaces the earlier). A line cut short by a killed run is skipped, with a
    warning: its game is simply played again."""
    path = record_path(key)
    if not path.exists():
        return {}
    games = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            print(f"  {path.name}:{number}: skipped a line cut short", file=sys.stderr)
            continue
        data["scores"] = tuple(data["scores"]) if data["scores"] is not None else None
        games[data["n"]] = GameResult(**data)
    return games


def append_record(key: str, result: GameResult) -> None:
    path = record_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab+") as record:
        size = record.seek(0, os.SEEK_END)
        if size:
            record.seek(size - 1)
            if record.read(1) != b"\n":
                record.write(b"\n")  # end the line a killed run cut short
        record.write(json.dumps(asdict(result)).encode() + b"\n")


def summary(rules_id: str, players: int, matchup: Matchup, results: list[GameResult],
            wall_seconds: float) -> dict:
    games = len(results)
    counts = {kind: sum(r.result == kind for r in results)
              for kind in ("win", "draw", "loss", "unfinished")}
    decisions = sum(r.decisions for r in results)
    low, high = wilson(counts["win"], games)
    return {
        "game": rules_id, "players": players, "matchup": matchup.name, "games": games, **counts,
        "win_rate": counts["win"] / max(games, 1), "wilson_low": low, "wilson_high": high,
        "target": matchup.target,
        "mean_decision_seconds": sum(r.seconds for r in results) / max(decisions, 1),
        "max_decision_seconds": max((r.longest for r in results), default=0.0),
        "mean_actions": sum(r.actions for r in results) / max(games, 1),
        "wall_seconds": wall_seconds,  # of the latest run only
        "date": datetime.date.today().isoformat(),
        "shortfalls": [_shortfall(r) for r in sorted(results, key=lambda r: r.n)
                       if r.result != "win"],
    }


def _shortfall(result: GameResult) -> str:
    scores = "-".join(f"{s:g}" for s in result.scores) if result.scores else "none"
    return (f"game {result.n} (tested seat {result.seat}): {result.result}, scores {scores}, "
            f"{result.reason}")


def measure(cases: list[tuple[str, int, Matchup]], games: int, pool,
            on_game=lambda key, row: None) -> dict[str, dict]:
    """Play the seeds 0..games-1 that each case's record lacks, seed by seed across the cases
    (so a run cut short has played every case about as often), recording each game as it ends
    and passing the running summary of its case's first `games` seeds to `on_game`."""
    played = {row_key(*case): {n: r for n, r in load_record(row_key(*case)).items() if n < games}
              for case in cases}
    jobs = [(*case, n) for n in range(games) for case in cases if n not in played[row_key(*case)]]
    started = time.perf_counter()
    rows = {row_key(*case): summary(*case, list(played[row_key(*case)].values()), 0.0)
            for case in cases}
    for job, result in pool.imap_unordered(_played, jobs) if pool else map(_played, jobs):
        rules_id, players, matchup, _ = job
        key = row_key(rules_id, players, matchup)
        append_record(key, result)
        played[key][result.n] = result
        rows[key] = summary(rules_id, players, matchup, list(played[key].values()),
                            time.perf_counter() - started)
        on_game(key, rows[key])
        print(f"  {key}: game {result.n} {result.result} ({len(played[key])}/{games})",
              file=sys.stderr, flush=True)
    return rows


# --- the report ---------------------------------------------------------------------------------


def load_rows() -> dict[str, dict]:
    path = RESULTS / "bots.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save_rows(new_rows: dict[str, dict]) -> dict[str, dict]:
    """Merge these rows into the stored ones and rewrite both files. Runs for different games may
    go on side by side, so the merge reads the stored rows again under a lock, and each file is
    replaced whole."""
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / ".bots.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        rows = {**load_rows(), **new_rows}
        _replace(RESULTS / "bots.json", json.dumps(rows, indent=1, sort_keys=True) + "\n")
        _replace(RESULTS / "bots.md", markdown(rows))
    return rows


def _replace(path: Path, text: str) -> None:
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    scratch.write_text(text)
    scratch.replace(path)


def markdown(rows: dict[str, dict]) -> str:
    budgets = ", ".join(f"level {level}: {b.iterations} iterations"
                        for level, b in sorted(MCTS_BUDGETS.items()))
    lines = [
        "# Bot strength",
        "",
        f"Machine: `{platform.platform()}`, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}. Written {datetime.datetime.now():%Y-%m-%d %H:%M}.",
        f"MCTS budgets (iterations only, no wall-clock cap): {budgets}.",
        "Win: the tested bot's seat is the sole winner; draw: a shared win or no winner; seats "
        "alternate (game n: seat n mod players). Win rate with its 95% Wilson interval; a row "
        "is below target when the interval's top is under the target, unsettled when the "
        "interval straddles it. Command: `python -m bench.bots_strength --games N [--rules ID]`.",
        "CPU s a decision covers the tested bot's whole search; slowest is its slowest decision.",
        "",
        table(rows),
    ]
    notes = [rows[key]["note"] for key in sorted(rows) if rows[key].get("note")]
    if notes:
        lines += ["", "## Notes", "", *[f"- {note}" for note in notes]]
    short = [(key, rows[key]["shortfalls"]) for key in sorted(rows) if rows[key].get("shortfalls")]
    if short:
        lines += ["", "## Games the tested bot did not win", ""]
        lines += [f"- {key}: {game}" for key, games in short for game in games]
    return "\n".join(lines) + "\n"


def verdict(row: dict) -> str:
    """Met, below or unsettled, read from the Wilson interval against the matchup's target."""
    target = row.get("target")
    if target is None or not row["games"]:
        return "-"
    if row["wilson_low"] >= target:
        return "met"
    if row["wilson_high"] < target:
        return "below"
    return "unsettled"


def table(rows: dict[str, dict]) -> str:
    header = ("| game | players | matchup | win rate | 95% interval | target | verdict | wins "
              "| draws | losses | unfinished | games | CPU s a decision | slowest s "
              "| mean actions | date |")
    lines = [header, "|" + "---|" * 16]
    for key in sorted(rows):
        r = rows[key]
        interval = (f"{r['wilson_low']:.0%}-{r['wilson_high']:.0%}" if "wilson_low" in r else "-")
        target = f"{r['target']:.0%}" if r.get("target") is not None else "-"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['matchup']} | {r['win_rate']:.0%} | {interval} "
            f"| {target} | {verdict(r) if 'wilson_low' in r else '-'} "
            f"| {r['win']} | {r['draw']} | {r['loss']} | {r['unfinished']} | {r['games']} "
            f"| {r['mean_decision_seconds']:.3f} | {_slowest(r)} | {r['mean_actions']:.0f} "
            f"| {r['date']} |"
        )
    return "\n".join(lines)


def _slowest(row: dict) -> str:
    """Rows measured before the slowest decision was recorded show a dash."""
    return f"{row['max_decision_seconds']:.2f}" if row.get("max_decision_seconds") else "-"


# --- the command --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rules", action="append", help="a rules id (repeatable); default all")
    parser.add_argument("--players", type=int, help="default: the game's smallest count")
    parser.add_argument("--jobs", type=int, default=1, help=f"processes, at most {MAX_JOBS}")
    parser.add_argument("--matchup", choices=[m.key for m in matchups()], action="append",
                        help="only this matchup (repeatable); default greedy and mcts")
    parser.add_argument("--note", help="a note stored with these rows, printed under the table")
    parser.add_argument("--fresh", action="store_true",
                        help="forget the games recorded for these matchups and play them all again")
    args = parser.parse_args(argv)
    if not 1 <= args.jobs <= MAX_JOBS:
        parser.error(f"--jobs is 1 to {MAX_JOBS}: the machine is shared")
    wanted = args.matchup or ["greedy", "mcts"]
    chosen = [m for m in matchups() if m.key in wanted]
    cases = [(rules_id, args.players or rules.get(rules_id).min_players, matchup)
             for rules_id in args.rules or list(rules.catalog()) for matchup in chosen]
    if args.fresh:
        for case in cases:
            forget(row_key(*case))
    with Pool(args.jobs) if args.jobs > 1 else _no_pool() as pool:
        rows = measure(cases, args.games, pool,
                       on_game=lambda key, row: save_rows({key: _noted(row, args.note)}))
    save_rows({key: _noted(row, args.note) for key, row in rows.items()})  # also when all were recorded
    print(table(load_rows()))
    return 0


def _noted(row: dict, note: str | None) -> dict:
    if note:
        return {**row, "note": f"{row['game']} ({row['matchup']}): {note}"}
    return row


class _no_pool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
