"""Scavenge: how much keeping out of reach is worth against the greedy bot (a diagnostic).

    python -m bench.scavenge_reach [--games 200]

A search-free player (no bot, no lookahead) against `greedy`, seats alternated (game n: the
player in seat n mod 2), two ways:
- `lands`: lands on the other token when that hands over trash or takes the good stuff, takes the
  good stuff from the centre, carries it home when the roll allows; otherwise ends nearest its
  goal (the centre when trash-free, home when carrying), ties at random;
- `keeps out`: the same, but first of all it ends where the fewest rolls of the other seat could
  land on it (the rules' own path search, every roll 1-5), its goal only breaking ties.

It uses what every seat sees (positions, trash, the roll already made); future dice stay unknown.
Each game costs a few milliseconds a move. It printed on 2026-12-05: keeps out 197/200 won,
lands 108/200 (bench/RESULTS.md, "Bot strength").
"""

from __future__ import annotations

import argparse
import random

import bots
import rules
from bench.bots_strength import wilson
from rules.scavenge import board, turns
from rules.values import evolve

GAME = rules.get("scavenge")


def reach(state, seat: int, node: int) -> int:
    """How many rolls let `seat`, moving next, end on `node`."""
    return sum(node in turns.destinations(evolve(state, turn=seat, roll=roll), seat) for roll in range(1, 6))


def _king_steps(a: int, b: int) -> int:
    (ra, ca), (rb, cb) = divmod(a, 10), divmod(b, 10)
    return max(abs(ra - rb), abs(ca - cb))


def _centre_steps(node: int) -> int:
    if node == board.CENTRE:
        return 0
    row, col = divmod(node, 10)
    return max(4 - row, 0, row - 5) + max(4 - col, 0, col - 5)


def choose(state, seat: int, rng: random.Random, keep_out: bool):
    moves = GAME.legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    nodes = turns.destinations(state, seat)
    other = 1 - seat
    theirs = state.positions[other]
    if state.carrier == seat and state.start_of(seat) in nodes:
        return moves[nodes.index(state.start_of(seat))]
    if state.carrier != seat and state.trash[seat] == 0 and board.CENTRE in nodes:
        return moves[nodes.index(board.CENTRE)]
    if state.carrier != seat and theirs in nodes and (state.trash[seat] or state.carrier == other):
        return moves[nodes.index(theirs)]

    def rank(index: int):
        after = GAME.apply(state, seat, moves[index])
        danger = reach(after, other, after.positions[seat]) if keep_out else 0
        if state.carrier == seat:
            goal = _king_steps(nodes[index], state.start_of(seat))
        elif state.trash[seat] == 0:
            goal = _centre_steps(nodes[index])
        else:
            goal = 0
        return danger, goal, rng.random()

    return moves[min(range(len(moves)), key=rank)]


def play(n: int, keep_out: bool) -> bool:
    seed = f"scavenge-reach:{n}"
    state = GAME.setup(2, {}, seed)
    tested, rng, actions = n % 2, random.Random(seed), 0
    while GAME.outcome(state) is None:
        seat = state.turn
        if seat == tested:
            move = choose(state, seat, rng, keep_out)
        else:
            move = bots.choose_move(GAME, GAME.view(state, seat), seat, bot="greedy", level=1,
                                    seed=f"{seed}:{actions}")
        state = GAME.apply(state, seat, move)
        actions += 1
    return GAME.outcome(state).winners == (tested,)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args(argv)
    for name, keep_out in (("keeps out", True), ("lands", False)):
        wins = sum(play(n, keep_out) for n in range(args.games))
        low, high = wilson(wins, args.games)
        print(f"{name}: {wins}/{args.games} won against greedy ({low:.0%}-{high:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
