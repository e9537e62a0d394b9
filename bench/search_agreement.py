"""How often a level's search picks the move a much larger search picks, position by position:

    python -m bench.search_agreement --rules terrafex [--games 4] [--reference 20000]
        [--budget 800 --budget 3000] [--repeats 3]

A strength row (`bench.bots_strength`) needs a hundred games to tell two levels apart; this asks
a narrower, cheaper question first: does a larger budget change the search's choice at all? From
seeded games played by MCTS level 1 (positions taken 16, 40 and 64 actions in), each budget
decides `--repeats` times with different seeds and is compared with one search of `--reference`
iterations. When the default and the strongest level agree with the reference about as often,
more iterations buy little in that game: what limits the search is its evaluation or rollouts,
not its budget. Prints each position's reference top three (visits, mean reward) and the
agreements (`=`, or the regret: how much lower, in hundredths of a reward, the reference valued
the move chosen than its own choice; equal moves, as Scavenge's many equivalent paths, cost
nothing), then the totals and the CPU seconds spent; a position with one move, or a move that
wins at once, is skipped (no search runs there).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Hashable

import bots
import rules
from bots import mcts

PLIES = (16, 40, 64)


def positions(game, games: int) -> list[tuple[object, int]]:
    """Positions of seeded level-1 games, with the seat to act."""
    found = []
    for number in range(games):
        state = game.setup(2, None, f"agreement:{number}")
        for ply in range(max(PLIES) + 1):
            if game.outcome(state) is not None:
                break
            seat = game.to_act(state)[0]
            if ply in PLIES:
                found.append((state, seat))
            move = bots.choose_move(game, game.view(state, seat), seat, bot="mcts", level=1, seed=f"a{number}:{ply}")
            state = game.apply(state, seat, move)
    return found


def search(game, state, seat: int, iterations: int, seed: str) -> tuple[mcts.Search, Hashable]:
    """The finished search and the key of the move it chose."""
    done = mcts.Search(game, game.view(state, seat), seat, mcts.Budget(iterations=iterations, milliseconds=None),
                       random.Random(seed))
    return done, mcts.move_key(done.choose())


def regret(reference: mcts.Search, best: Hashable, chosen: Hashable) -> float:
    """How much worse the reference search found `chosen` than its own choice `best` (mean
    rewards; a move it barely tried counts as its worst tried move)."""
    tried = [child for child in reference.root.children.values() if child.visits]
    means = {key[1]: child.reward / child.visits for key, child in reference.root.children.items() if child.visits >= 30}
    worst = min(child.reward / child.visits for child in tried)
    return means.get(best, worst) - means.get(chosen, worst)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", required=True)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--reference", type=int, default=20_000)
    parser.add_argument("--budget", type=int, action="append")
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    game = rules.catalog()[arguments.rules]
    budgets = arguments.budget or [mcts_budget.iterations for mcts_budget in bots.registry.MCTS_BUDGETS.values()][1:]
    agreed, lost, asked, started = dict.fromkeys(budgets, 0), dict.fromkeys(budgets, 0.0), 0, time.process_time()
    for index, (state, seat) in enumerate(positions(game, arguments.games)):
        reference, best = search(game, state, seat, arguments.reference, "reference")
        if not reference.root.children:  # one move, or one that wins at once: nothing to search
            print(index, "forced", flush=True)
            continue
        top = sorted(reference.root.children.values(), key=lambda child: -child.visits)[:3]
        marks = {}
        for budget in budgets:
            chosen = [search(game, state, seat, budget, f"s{k}")[1] for k in range(arguments.repeats)]
            agreed[budget] += sum(key == best for key in chosen)
            regrets = [regret(reference, best, key) for key in chosen]
            lost[budget] += sum(regrets)
            marks[budget] = " ".join("=" if key == best else f"-{100 * r:.1f}" for key, r in zip(chosen, regrets))
        asked += arguments.repeats
        print(index, [(child.visits, round(child.reward / child.visits, 3)) for child in top], marks, flush=True)
    totals = ", ".join(f"{budget}: {agreed[budget]}/{asked}, mean regret {100 * lost[budget] / max(asked, 1):.2f}"
                       for budget in budgets)
    print(f"agreement with {arguments.reference}: {totals}; {time.process_time() - started:.0f} CPU s")


if __name__ == "__main__":
    main()
