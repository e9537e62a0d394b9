"""How well a game's evaluation foretells the result: `python -m bench.evaluation_fit --rules ID
[--records FILE ...] [--play N]`.

The search values every position its rollouts stop at by the game's evaluation
(`bots/heuristics/<game>.py`), so an evaluation that says 88% where the seat goes on to win 64% of
the time steers it wrong. This replays finished games and, at every position where a seat is to
act, compares the evaluation's shares with the result (a sole winner 1, a shared win 1/k, a loss
0): the mean cross-entropy (lower is better; an even share scores log 2 = 0.693 in a two-player
game) and how often the seat the evaluation favours goes on to win. It reads the recorded game's
own states, hidden parts included, where the search reads states sampled from a seat's view: a
measure of the evaluation, not of what a seat may know.

The games: by default every game the strength benchmark kept move by move for this game
(`bench/results/bots/`: the games its tested bot did not win, so a sample chosen by its result;
compare evaluations on the same games, not figures across sets), or `--records` files holding a
list of such records, or `--play N` seeded games of MCTS level 1 against itself (whose moves
depend on the evaluation under test: `--save` them to score another evaluation on the same
games).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import bots
import rules
from bots import heuristics

KEPT = Path(__file__).resolve().parent / "results" / "bots"


def kept_records(rules_id: str) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(KEPT.glob(f"**/{rules_id}-*/game-*.json"))]


def played(game: Any, count: int) -> list[dict[str, Any]]:
    """`count` seeded games of MCTS level 1 against itself, as records."""
    records = []
    for number in range(count):
        seed = f"evaluation-fit:{number}"
        state, moves = game.setup(2, None, seed), []
        while game.outcome(state) is None:
            seat = game.to_act(state)[0]
            move = bots.choose_move(game, game.view(state, seat), seat, bot="mcts", level=1, seed=f"{seed}:{len(moves)}")
            moves.append([seat, move])
            state = game.apply(state, seat, move)
        outcome = game.outcome(state)
        records.append({"seed": seed, "players": 2, "options": {}, "moves": moves,
                        "outcome": {"scores": list(outcome.scores), "winners": list(outcome.winners)}})
    return records


def result_shares(outcome: dict[str, Any], players: int) -> list[float]:
    winners = outcome["winners"]
    return [1 / len(winners) if seat in winners else 0.0 for seat in range(players)] if winners else [1 / players] * players


def fit(game: Any, records: list[dict[str, Any]]) -> dict[str, float]:
    evaluate = heuristics.for_rules(game.id).evaluate
    loss = favourites = decided = positions = 0.0
    for record in records:
        players = record["players"]
        truth = result_shares(record["outcome"], players)
        state = game.setup(players, record.get("options") or None, record["seed"])
        for seat, move in record["moves"]:
            shares = list(evaluate(game, state))
            loss -= sum(t * math.log(min(max(p, 1e-9), 1.0)) for t, p in zip(truth, shares))
            positions += 1
            best = max(shares)
            if shares.count(best) == 1 and max(truth) == 1.0:  # a favourite, and a sole winner
                decided += 1
                favourites += truth[shares.index(best)] == 1.0
            state = game.apply(state, seat, move)
    return {"games": len(records), "positions": positions, "cross_entropy": loss / max(positions, 1),
            "favourite_wins": favourites / max(decided, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description="how well a game's evaluation foretells the result")
    parser.add_argument("--rules", required=True)
    parser.add_argument("--records", nargs="*", default=[], help="files, each a JSON list of game records")
    parser.add_argument("--play", type=int, default=0, help="seeded level-1 games to play and score")
    parser.add_argument("--save", help="write the games played to this file")
    arguments = parser.parse_args()
    game = rules.catalog()[arguments.rules]
    if heuristics.for_rules(game.id) is None or not hasattr(heuristics.for_rules(game.id), "evaluate"):
        raise SystemExit(f"{game.id} has no evaluation")
    sets = {"kept by the strength benchmark": kept_records(game.id)}
    for path in arguments.records:
        sets[path] = json.loads(Path(path).read_text())
    if arguments.play:
        sets[f"{arguments.play} seeded level-1 games"] = new = played(game, arguments.play)
        if arguments.save:
            Path(arguments.save).write_text(json.dumps(new))
    for name, records in sets.items():
        found = fit(game, records)
        print(f"{game.id}, {name}: {found['games']} games, {found['positions']:.0f} positions, cross-entropy "
              f"{found['cross_entropy']:.4f}, the favourite wins {found['favourite_wins']:.1%}")


if __name__ == "__main__":
    main()

