"""A fingerprint of what the rules do along seeded random games, to show a speed-up changed nothing.

    python -m bench.rules_fingerprint [--games 4] [--rules ID] [--out FILE] [--check FILE]

For every game in the catalogue (or the one named), every player count and a few option sets,
plays `--games` seeded random games from setup to the end (or an action cap) and feeds a SHA-256
with, at every position: the seats to act, every acting seat's legal-move list, the state's dump,
every seat's view and the spectators' view, and the outcome. One digest a case is printed (and
written to `--out`). Run it on the code before a change with `--out`, and after it with
`--check` on that file: every case must give the same digest (the exit status is 1 otherwise). The random moves are drawn from the legal lists themselves, so any
change in a list also changes the game that follows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

import rules
from rules.errors import InvalidOptions

MAX_ACTIONS = 3_000  # Scavenge's random games can wander for thousands of moves

# Options beyond the defaults whose code paths differ (the defaults are always played).
OPTION_SETS: dict[str, list[dict]] = {
    "terrain_vague": [{"board": "random"}, {"rip_off": "halved"}, {"to_25": True}],
    "space_junkyard": [{"short": True, "more_junk": True, "less_empty_space": True}],
}


def _encode(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr).encode()


def fingerprint_game(game, players: int, options: dict, seed: str) -> str:
    """The digest of one seeded random game, every position's lists, dump and views."""
    digest = hashlib.sha256()
    rnd = random.Random(seed)
    state = game.setup(players, options, seed)
    for _ in range(MAX_ACTIONS):
        to_act = game.to_act(state)
        lists = {seat: game.legal_moves(state, seat) for seat in to_act}
        views = [game.view(state, seat) for seat in (None, *range(players))]
        outcome = game.outcome(state)
        digest.update(_encode([to_act, lists, game.dump(state), views, repr(outcome)]))
        if outcome is not None or not to_act:
            break
        seat = rnd.choice(to_act)
        state = game.apply(state, seat, rnd.choice(lists[seat]))
    return digest.hexdigest()


def cases(rules_ids: list[str] | None):
    for game in rules.catalog().values():
        if rules_ids and game.id not in rules_ids:
            continue
        for players in range(game.min_players, game.max_players + 1):
            for options in [{}, *OPTION_SETS.get(game.id, [])]:
                try:
                    game.normalize_options(players, options)
                except InvalidOptions:  # an option set this player count refuses
                    continue
                yield game, players, options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rules", action="append", help="a rules id (repeatable); default all")
    parser.add_argument("--out", type=Path, help="also write the digests to this file")
    parser.add_argument("--check", type=Path, help="compare each case with this file's digests")
    args = parser.parse_args(argv)
    expected = _read(args.check) if args.check else {}
    lines, differing = [], []
    for game, players, options in cases(args.rules):
        digest = hashlib.sha256()
        for n in range(args.games):
            seed = f"fingerprint:{game.id}:{players}:{n}"
            digest.update(fingerprint_game(game, players, options, seed).encode())
        case = f"{game.id} {players} {_encode(options).decode()}"
        verdict = ""
        if case in expected:
            same = expected[case] == digest.hexdigest()
            verdict = "  same" if same else "  DIFFERENT"
            if not same:
                differing.append(case)
        print(f"{case} {digest.hexdigest()}{verdict}", flush=True)
        lines.append(f"{case} {digest.hexdigest()}")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    if differing:
        print(f"{len(differing)} case(s) differ: {', '.join(differing)}", file=sys.stderr)
        return 1
    return 0


def _read(path: Path) -> dict[str, str]:
    """A digest file: `game players options digest`, one case a line."""
    return dict(line.rsplit(" ", 1) for line in path.read_text().splitlines() if line.strip())


if __name__ == "__main__":
    sys.exit(main())
