"""Our Dutch pairing against bbpPairings, round by round: `python -m bench.pairing_bbp`.

bbpPairings (https://github.com/BieremaBoyzProgramming/bbpPairings, Apache-2.0) is not part of
this project and nothing here downloads it. Get its source yourself (`git clone` that address),
then point the bench at it: `--bbp /path/to/bbpPairings` or `BBP_PAIRINGS_SOURCE=/path`. The
bench builds it with `make` (g++ with C++20) unless the binary `bbpPairings.exe` is already there.

Each random tournament (9 to 64 entrants, 5 to 9 rounds) is played round by round: before each
round its history is written as a TRF16 file (`competition.trf`), bbpPairings pairs it (`--dutch
FILE -p OUT`) and so do we (the same file read back with `competition.trf.loads`, paired by
`competition.dutch.pair`); the round is then played on bbpPairings' pairing, so both always see
the same history. Results: draws, wins either way, a rare forfeit; late entries (absent the first
rounds, with a zero- or half-point bye), requested half-point byes, withdrawals.

A round is "identical" when both give the same boards with the same colours and the same bye;
"same pairs" ignores colours. Differing rounds are written to `--diffs DIR` as TRF files with
both pairings, to be looked at one by one.

Tournament i of `--seed S` is generated and played from its own generator (seeded by "S:i"), so a
result does not depend on `--jobs N` (tournaments shared out over N processes) nor on how a run is
split: `--start A --stop B` plays tournaments [A, B) of the seed, and runs over disjoint ranges add
up. Ctrl-C, `kill -INT` or `kill` stops a run with the figures of the tournaments finished; a
progress line goes to stderr every ten tournaments. Times are CPU seconds (ours in this process,
bbpPairings' as its child processes), so a loaded machine changes the wall time, not them.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from competition import dutch, trf

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def build(source: Path) -> Path:
    binary = source / "bbpPairings.exe"
    if not binary.exists():
        subprocess.run(["make", "-C", str(source), "-j2"], check=True, stdout=subprocess.DEVNULL)
    return binary


@dataclass
class Simulated:
    report: trf.Report
    joins: dict[int, int]  # starting rank -> first round played
    leaves: dict[int, int]  # starting rank -> first round missed for good
    half_byes: set[tuple[int, int]] = field(default_factory=set)  # (starting rank, round)


def random_tournament(rng: random.Random) -> Simulated:
    n, rounds = rng.randint(9, 64), rng.randint(5, 9)
    players = [trf.Player(number, f"Player {number}", 2400 - 10 * number) for number in range(1, n + 1)]
    joins = {p.number: rng.choice([2, 2, 3]) for p in rng.sample(players, k=rng.choice([0, 0, 1, 2, 3]))}
    leaves = {
        p.number: rng.randint(2, rounds)
        for p in rng.sample(players, k=rng.choice([0, 0, 1, 2]))
        if p.number not in joins
    }
    half_byes = {(p.number, rng.randint(2, rounds)) for p in rng.sample(players, k=rng.choice([0, 1, 2]))}
    return Simulated(trf.Report(f"random {n}x{rounds}", rounds, players), joins, leaves, half_byes)


def absent_block(sim: Simulated, number: int, round_number: int) -> trf.Game | None:
    if sim.joins.get(number, 1) > round_number:
        return trf.Game(None, "-", "H" if number % 2 else "Z")
    if sim.leaves.get(number, 10**6) <= round_number:
        return trf.Game(None, "-", "Z")
    if (number, round_number) in sim.half_byes:
        return trf.Game(None, "-", "H")
    return None


def bbp_pair(binary: Path, text: str, workdir: Path) -> list[tuple[int, ...]] | None:
    source, out = workdir / "round.trf", workdir / "round.out"
    source.write_text(text)
    done = subprocess.run(
        [str(binary), "--dutch", str(source), "-p", str(out)], capture_output=True, text=True, check=False
    )
    if done.returncode == 1:
        return None  # no pairing meets the absolute criteria
    if done.returncode:
        raise RuntimeError(f"bbpPairings failed ({done.returncode}): {done.stderr}\n{text}")
    lines = out.read_text().split()[1:]
    boards = [(int(lines[i]), int(lines[i + 1])) for i in range(0, len(lines), 2)]
    return [(white,) if black == 0 else (white, black) for white, black in boards]


def play(sim: Simulated, round_number: int, boards: list[tuple[int, ...]], rng: random.Random) -> None:
    by_number = {p.number: p for p in sim.report.players}
    for board in boards:
        if len(board) == 1:
            by_number[board[0]].games.append(trf.Game(None, "-", "U"))
            continue
        white, black = board
        roll = rng.random()
        if roll < 0.01:
            results = ("+", "-") if rng.random() < 0.5 else ("-", "+")
            by_number[white].games.append(trf.Game(black, "-", results[0]))
            by_number[black].games.append(trf.Game(white, "-", results[1]))
            continue
        result = "1" if roll < 0.42 else "=" if roll < 0.67 else "0"
        other = {"1": "0", "=": "=", "0": "1"}[result]
        by_number[white].games.append(trf.Game(black, "w", result))
        by_number[black].games.append(trf.Game(white, "b", other))


COUNTS = ("tournaments", "rounds", "identical", "same_pairs", "no_pairing", "players", "ours_s", "bbp_s")


def tournament_rng(seed: int, index: int) -> random.Random:
    """Tournament `index`'s own generator: the same tournament whichever process or slice of the
    run plays it, so results add up across `--jobs` and `--start/--stop` runs."""
    return random.Random(f"{seed}:{index}")


def compare_one(binary: Path, seed: int, index: int, diffs: Path | None) -> dict:
    """Play tournament `index` of `seed` round by round, pairing each round with both engines."""
    rng = tournament_rng(seed, index)
    counts = dict.fromkeys(COUNTS, 0)
    sim = random_tournament(rng)
    counts["tournaments"] = 1
    counts["players"] = len(sim.report.players)
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(1, sim.report.rounds + 1):
            for player in sim.report.players:
                block = absent_block(sim, player.number, round_number)
                if block is not None:
                    player.games.append(block)
            text = trf.dumps(sim.report)
            started = _children_cpu()
            theirs = bbp_pair(binary, text, Path(tmp))
            counts["bbp_s"] += _children_cpu() - started
            if theirs is None:
                counts["no_pairing"] += 1
                break
            started = time.process_time()
            ours = dutch.pair(trf.entrants(trf.loads(text)), rounds_total=sim.report.rounds)
            counts["ours_s"] += time.process_time() - started
            counts["rounds"] += 1
            same = sorted(ours) == sorted(theirs)
            counts["identical"] += same
            counts["same_pairs"] += {frozenset(b) for b in ours} == {frozenset(b) for b in theirs}
            if not same and diffs is not None:
                diffs.mkdir(parents=True, exist_ok=True)
                (diffs / f"s{seed}t{index:04d}r{round_number}.trf").write_text(
                    text + f"### bbpPairings {theirs}\n### ours {ours}\n"
                )
            play(sim, round_number, theirs, rng)
    return counts


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _ignore_sigint() -> None:  # workers leave Ctrl-C to the parent, which reports what is done
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _compare_job(job: tuple) -> dict:
    return compare_one(*job)


def compare(binary: Path, seed: int, indices: range, diffs: Path | None, totals: dict, jobs: int = 1) -> dict:
    """Pair tournaments `indices` of `seed` with both engines over `jobs` processes, adding up in
    `totals` as each tournament finishes (so an interrupted run still has its figures)."""
    totals.update(dict.fromkeys(COUNTS, 0))
    work = [(binary, seed, index, diffs) for index in indices]
    with multiprocessing.Pool(jobs, initializer=_ignore_sigint) if jobs > 1 else _InProcess() as pool:
        for counts in pool.imap_unordered(_compare_job, work):
            for key in COUNTS:
                totals[key] += counts[key]
            if totals["tournaments"] % 10 == 0:
                print(
                    f"{totals['tournaments']} tournaments: {totals['identical']}/{totals['rounds']} rounds "
                    f"identical, {totals['same_pairs']} same pairs",
                    file=sys.stderr,
                    flush=True,
                )
    return totals


class _InProcess:
    """`--jobs 1`: the pool's interface, in this process."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, function, work):
        return map(function, work)


def report(totals: dict, args: argparse.Namespace, wall_s: float, interrupted: bool) -> str:
    rounds = max(totals["rounds"], 1)
    load = os.getloadavg()
    command = (
        f"python -m bench.pairing_bbp --seed {args.seed} --start {args.start} --stop {args.stop} --jobs {args.jobs}"
    )
    done = f"{totals['tournaments']} of the {args.stop - args.start} tournaments"
    machine = f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, {platform.python_implementation()} "
    machine += f"{platform.python_version()})"
    ended = f"load average {load[0]:.2f} at the end, {wall_s / 60:.1f} min of wall time"
    if interrupted:
        ended += f"; interrupted: {done}"
    header = "| tournaments | entrants (mean) | rounds paired | identical (boards, colours, bye) | same pairs |"
    header += " bbpPairings CPU s/round | ours CPU s/round |"
    row = f"| {totals['tournaments']} | {totals['players'] / max(totals['tournaments'], 1):.1f} | {totals['rounds']} |"
    row += f" {totals['identical']} ({100 * totals['identical'] / rounds:.2f}%) |"
    row += f" {totals['same_pairs']} ({100 * totals['same_pairs'] / rounds:.2f}%) |"
    row += f" {totals['bbp_s'] / rounds:.3f} | {totals['ours_s'] / rounds:.3f} |"
    return "\n".join(
        [
            f"## Swiss pairing against bbpPairings ({datetime.date.today()}, `python -m bench.pairing_bbp`)",
            "",
            f"`{command}` on {machine}, {ended}.",
            "",
            header,
            "|---|---|---|---|---|---|---|",
            row,
            "",
            f"Rounds bbpPairings found no valid pairing for (tournament stopped there): {totals['no_pairing']}.",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--bbp",
        default=os.environ.get("BBP_PAIRINGS_SOURCE"),
        help="bbpPairings' source folder (or BBP_PAIRINGS_SOURCE)",
    )
    parser.add_argument("--tournaments", type=int, default=1000, help="how many, from --start (unless --stop)")
    parser.add_argument("--seed", type=int, default=54)
    parser.add_argument("--start", type=int, default=0, help="first tournament of the seed to play")
    parser.add_argument(
        "--stop",
        type=int,
        default=None,
        help="play tournaments [start, stop) of the seed (default start + tournaments)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes (the results do not depend on it)")
    parser.add_argument("--diffs", type=Path, default=None, help="write each differing round here")
    parser.add_argument("--write", action="store_true", help="append the figures to bench/RESULTS.md")
    args = parser.parse_args()
    if args.stop is None:
        args.stop = args.start + args.tournaments
    if not args.bbp:
        parser.error(
            "give bbpPairings' source: --bbp PATH or BBP_PAIRINGS_SOURCE "
            "(git clone https://github.com/BieremaBoyzProgramming/bbpPairings)"
        )
    binary = build(Path(args.bbp))
    # Ctrl-C, `kill -INT PID` (a shell starts a background job with SIGINT ignored) and `kill PID`
    # all stop the run with a report of the tournaments finished
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    totals: dict = {}
    started = time.perf_counter()
    interrupted = False
    try:
        compare(binary, args.seed, range(args.start, args.stop), args.diffs, totals, args.jobs)
    except KeyboardInterrupt:  # Ctrl-C: report the tournaments finished so far
        interrupted = True
        print("interrupted: the figures cover the tournaments finished so far", file=sys.stderr)
    text = report(totals, args, time.perf_counter() - started, interrupted)
    print(text, flush=True)
    if args.write:
        with RESULTS.open("a") as results:
            results.write("\n" + text)


if __name__ == "__main__":
    main()
