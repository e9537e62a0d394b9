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
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
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
    leaves = {p.number: rng.randint(2, rounds) for p in rng.sample(players, k=rng.choice([0, 0, 1, 2]))
              if p.number not in joins}
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
    done = subprocess.run([str(binary), "--dutch", str(source), "-p", str(out)], capture_output=True, text=True)
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


def compare(binary: Path, tournaments: int, seed: int, diffs: Path | None, totals: dict) -> dict:
    """Pair `tournaments` random tournaments with both engines, adding up in `totals` as it goes."""
    rng = random.Random(seed)
    totals.update({"tournaments": 0, "rounds": 0, "identical": 0, "same_pairs": 0, "ours_s": 0.0, "bbp_s": 0.0,
                   "no_pairing": 0, "players": 0})
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for index in range(tournaments):
            sim = random_tournament(rng)
            totals["tournaments"] += 1
            totals["players"] += len(sim.report.players)
            for round_number in range(1, sim.report.rounds + 1):
                for player in sim.report.players:
                    block = absent_block(sim, player.number, round_number)
                    if block is not None:
                        player.games.append(block)
                text = trf.dumps(sim.report)
                started = time.perf_counter()
                theirs = bbp_pair(binary, text, workdir)
                totals["bbp_s"] += time.perf_counter() - started
                if theirs is None:
                    totals["no_pairing"] += 1
                    break
                started = time.perf_counter()
                ours = dutch.pair(trf.entrants(trf.loads(text)), rounds_total=sim.report.rounds)
                totals["ours_s"] += time.perf_counter() - started
                totals["rounds"] += 1
                same = sorted(ours) == sorted(theirs)
                totals["identical"] += same
                totals["same_pairs"] += {frozenset(b) for b in ours} == {frozenset(b) for b in theirs}
                if not same and diffs is not None:
                    diffs.mkdir(parents=True, exist_ok=True)
                    (diffs / f"t{index:04d}r{round_number}.trf").write_text(
                        text + f"### bbpPairings {theirs}\n### ours {ours}\n")
                play(sim, round_number, theirs, rng)
            if (index + 1) % 50 == 0:
                print(f"{index + 1} tournaments: {totals['identical']}/{totals['rounds']} rounds identical",
                      file=sys.stderr, flush=True)
    return totals


def report(totals: dict, seed: int) -> str:
    rounds = max(totals["rounds"], 1)
    load = os.getloadavg()
    return "\n".join([
        f"## Swiss pairing against bbpPairings ({datetime.date.today()}, `python -m bench.pairing_bbp`)",
        "",
        f"`python -m bench.pairing_bbp --tournaments {totals['tournaments']} --seed {seed}` on "
        f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}), load average {load[0]:.2f} at the end.",
        "",
        "| tournaments | entrants (mean) | rounds paired | identical (boards, colours, bye) | same pairs | "
        "bbpPairings s/round | ours s/round |",
        "|---|---|---|---|---|---|---|",
        f"| {totals['tournaments']} | {totals['players'] / max(totals['tournaments'], 1):.1f} | {totals['rounds']} | "
        f"{totals['identical']} ({100 * totals['identical'] / rounds:.2f}%) | "
        f"{totals['same_pairs']} ({100 * totals['same_pairs'] / rounds:.2f}%) | "
        f"{totals['bbp_s'] / rounds:.3f} | {totals['ours_s'] / rounds:.3f} |",
        "",
        f"Rounds bbpPairings found no valid pairing for (tournament stopped there): {totals['no_pairing']}.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bbp", default=os.environ.get("BBP_PAIRINGS_SOURCE"),
                        help="bbpPairings' source folder (or BBP_PAIRINGS_SOURCE)")
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=54)
    parser.add_argument("--diffs", type=Path, default=None, help="write each differing round here")
    parser.add_argument("--write", action="store_true", help="append the figures to bench/RESULTS.md")
    args = parser.parse_args()
    if not args.bbp:
        parser.error("give bbpPairings' source: --bbp PATH or BBP_PAIRINGS_SOURCE "
                     "(git clone https://github.com/BieremaBoyzProgramming/bbpPairings)")
    binary = build(Path(args.bbp))
    totals: dict = {}
    try:
        compare(binary, args.tournaments, args.seed, args.diffs, totals)
    except KeyboardInterrupt:  # Ctrl-C: report the tournaments finished so far
        print("interrupted: the figures cover the rounds paired so far", file=sys.stderr)
    text = report(totals, args.seed)
    print(text)
    if args.write:
        with RESULTS.open("a") as results:
            results.write("\n" + text)


if __name__ == "__main__":
    main()
