"""Bot strength: the MCTS bot at its default level against the random bot and a weaker MCTS.

    python -m bench.bots_strength --games 100 [--rules ID] [--players N] [--jobs 2]

For every game in the catalogue (or the one named), each matchup plays `--games` seeded games
with the tested bot's seat moving round the table (game n: seat n mod players), so it sits first
and second equally often. With more than 2 players the tested bot has one seat and every other
seat is the opponent bot.

A game counts as a win when the tested bot's seat is the sole winner, a draw when it shares the
win with others or nobody wins, a loss otherwise (a game cut off at the action cap counts as
unfinished, neither). Win rate is wins / games. The table also gives the mean seconds a decision
of the tested bot, which covers its whole search.

Each run stores its rows in bench/results/bots.json (by game, players and matchup), then writes
the Markdown table of every stored row to bench/results/bots.md, with the machine and date, so
games can be measured in separate runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import bots
import rules
from bots import arena
from bots.registry import MCTS_BUDGETS

RESULTS = Path(__file__).resolve().parent / "results"
MAX_ACTIONS = 30_000
TARGET = 0.9  # the win rate the default MCTS must reach against random


@dataclass(frozen=True)
class Matchup:
    name: str
    tested: arena.Seat
    opponent: arena.Seat


def matchups() -> list[Matchup]:
    default = bots.catalog()["mcts"].default_level
    weakest = min(bots.catalog()["mcts"].levels)
    return [
        Matchup(f"mcts {default} vs random", arena.Seat("mcts", default), arena.Seat("random", 1)),
        Matchup(f"mcts {default} vs mcts {weakest}", arena.Seat("mcts", default),
                arena.Seat("mcts", weakest)),
    ]


@dataclass(frozen=True)
class GameResult:
    result: str  # "win", "draw", "loss" or "unfinished"
    decisions: int
    seconds: float
    actions: int


def play_one(job: tuple[str, int, Matchup, int]) -> GameResult:
    rules_id, players, matchup, n = job
    game = rules.get(rules_id)
    tested_seat = n % players
    seats = {s: matchup.opponent for s in range(players)}
    seats[tested_seat] = matchup.tested
    match = arena.play(game, players, {}, f"bench:{rules_id}:{players}:{matchup.name}:{n}", seats,
                       MAX_ACTIONS)
    return GameResult(_result(match.outcome, tested_seat), match.decisions.get(tested_seat, 0),
                      match.seconds.get(tested_seat, 0.0), match.actions)


def _result(outcome, seat: int) -> str:
    if outcome is None:
        return "unfinished"
    winners = tuple(outcome.winners)
    if winners == (seat,):
        return "win"
    if not winners or seat in winners:
        return "draw"
    return "loss"


def measure(rules_id: str, players: int, matchup: Matchup, games: int, pool) -> dict:
    jobs = [(rules_id, players, matchup, n) for n in range(games)]
    started = time.perf_counter()
    results = []
    for result in pool.imap_unordered(play_one, jobs) if pool else map(play_one, jobs):
        results.append(result)
        if len(results) % 10 == 0:
            print(f"  {rules_id} {matchup.name}: {len(results)}/{games} games",
                  file=sys.stderr, flush=True)
    counts = {kind: sum(r.result == kind for r in results)
              for kind in ("win", "draw", "loss", "unfinished")}
    decisions = sum(r.decisions for r in results)
    return {
        "game": rules_id, "players": players, "matchup": matchup.name, "games": games, **counts,
        "win_rate": counts["win"] / games,
        "mean_decision_seconds": sum(r.seconds for r in results) / max(decisions, 1),
        "mean_actions": sum(r.actions for r in results) / games,
        "wall_seconds": time.perf_counter() - started,
        "date": datetime.date.today().isoformat(),
    }


# --- the report ---------------------------------------------------------------------------------


def load_rows() -> dict[str, dict]:
    path = RESULTS / "bots.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save_rows(new_rows: dict[str, dict]) -> dict[str, dict]:
    """Merge this run's rows into the stored ones (read again now: runs for different games may
    go on side by side) and rewrite both files."""
    RESULTS.mkdir(exist_ok=True)
    rows = {**load_rows(), **new_rows}
    (RESULTS / "bots.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    (RESULTS / "bots.md").write_text(markdown(rows))
    return rows


def markdown(rows: dict[str, dict]) -> str:
    budgets = ", ".join(f"level {level}: {b.iterations} iterations, cap {b.milliseconds} ms"
                        for level, b in sorted(MCTS_BUDGETS.items()))
    lines = [
        "# Bot strength",
        "",
        f"Machine: `{platform.platform()}`, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}. Written {datetime.datetime.now():%Y-%m-%d %H:%M}.",
        f"MCTS budgets: {budgets}.",
        "Win: the tested bot's seat is the sole winner; draw: a shared win or no winner; seats "
        "alternate (game n: seat n mod players). Target against random: "
        f"{TARGET:.0%}. Command: `python -m bench.bots_strength --games N [--rules ID]`.",
        "",
        table(rows),
    ]
    notes = [row["note"] for row in rows.values() if row.get("note")]
    if notes:
        lines += ["", "## Notes", "", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


def table(rows: dict[str, dict]) -> str:
    header = ("| game | players | matchup | win rate | wins | draws | losses | unfinished | games "
              "| mean s a decision | mean actions | date |")
    lines = [header, "|" + "---|" * 12]
    for key in sorted(rows):
        r = rows[key]
        short = " (below target)" if "random" in r["matchup"] and r["win_rate"] < TARGET else ""
        lines.append(
            f"| {r['game']} | {r['players']} | {r['matchup']} | {r['win_rate']:.0%}{short} "
            f"| {r['win']} | {r['draw']} | {r['loss']} | {r['unfinished']} | {r['games']} "
            f"| {r['mean_decision_seconds']:.3f} | {r['mean_actions']:.0f} | {r['date']} |"
        )
    return "\n".join(lines)


# --- the command --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rules", action="append", help="a rules id (repeatable); default all")
    parser.add_argument("--players", type=int, help="default: the game's smallest count")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--matchup", choices=["random", "mcts"], action="append",
                        help="only the matchup against this opponent (repeatable)")
    parser.add_argument("--note", help="a note stored with these rows, printed under the table")
    args = parser.parse_args(argv)
    rows: dict[str, dict] = {}
    everything = load_rows()
    chosen = [m for m in matchups() if not args.matchup or m.opponent.bot in args.matchup]
    with Pool(args.jobs) if args.jobs > 1 else _no_pool() as pool:
        for rules_id in args.rules or list(rules.catalog()):
            players = args.players or rules.get(rules_id).min_players
            for matchup in chosen:
                row = measure(rules_id, players, matchup, args.games, pool)
                if args.note:
                    row["note"] = f"{rules_id} ({matchup.name}): {args.note}"
                rows[f"{rules_id}:{players}:{matchup.name}"] = row
                print(table({"new": row}).splitlines()[-1], file=sys.stderr, flush=True)
                everything = save_rows(rows)
    print(table(everything))
    return 0


class _no_pool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
