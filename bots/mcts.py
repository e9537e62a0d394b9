"""Monte Carlo tree search over determinizations: single-observer information-set UCT.

The bot holds only its seat's view. Every iteration:
1. samples a full state that agrees with the view, `game.sample_state(view, seat, rng)`: hidden
   cards, others' secret choices and future dice are drawn afresh each time, never read from the
   true state (which the bot never has);
2. walks the tree from the root: a node's children are moves, keyed by (acting seat, move); only
   the children legal in this sample compete, and UCB counts how often each was available rather
   than how often its parent was visited (Cowling, Powley & Whitehouse's ISMCTS);
3. adds one child, plays a rollout from it (random legal moves, or the game's heuristic policy),
   capped in length (in actions, or in turns where the game's heuristics say `ROLLOUT_TURNS`),
   with the game's evaluation (or an even share) at the cap; a game's heuristics may also cap the
   tree's depth (`TREE_DEPTH`: below it, every move is the rollout's);
4. credits each node on the path with the reward of the seat that made its move, so N-player
   games need nothing special: every seat maximises its own share.

Simultaneous steps (several seats in `to_act`) are played in sequence inside the search: the root
is always the bot's own seat, deeper the first seat listed acts. Later seats in such a step thus
"see" earlier choices in the tree, a known simplification that only makes the bot more cautious.

Rewards: a sole win 1, a shared win 1/k, a loss 0 (a game with no winner shares 1/n), blended
with 10% of the seat's score placed between the lowest and highest score, so the search still
prefers a closer loss or a larger win when the result is settled.

Before the search, a move that wins at once in every one of several samples is played outright:
cheap, and it keeps weak levels from missing a win in one.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

from bots import heuristics
from bots.random_bot import seat_moves
from rules.base import Move, Outcome, Rules, State
from rules.values import canonical_json

WIN_WEIGHT = 0.9  # the rest of a reward comes from the score margin
DECISIVE_CHECK_SAMPLES = 6  # samples in which a move must win at once to be played outright


@dataclass(frozen=True)
class Budget:
    """How much a decision may think: an iteration count (reproducible) and a wall-clock cap."""

    iterations: int
    milliseconds: int | None
    rollout_limit: int = 120  # actions per rollout before the evaluation; a heuristic may override
    exploration: float = 0.7  # the UCB constant, for rewards in [0, 1]


class Node:
    """A move in the tree, with its statistics as seen by the seat that made it."""

    __slots__ = ("mover", "move", "children", "visits", "reward", "available")

    def __init__(self, mover: int, move: Move | None):
        self.mover = mover
        self.move = move
        self.children: dict[tuple[int, Hashable], Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def rewards(outcome: Outcome) -> list[float]:
    """Each seat's reward in [0, 1] for a finished game (see the module docstring)."""
    players = len(outcome.scores)
    winners = set(outcome.winners)
    shares = [1 / len(winners) if seat in winners else 0.0 for seat in range(players)]
    if not winners:
        shares = [1 / players] * players
    low, high = min(outcome.scores), max(outcome.scores)
    margins = [(s - low) / (high - low) if high > low else 0.5 for s in outcome.scores]
    return [WIN_WEIGHT * w + (1 - WIN_WEIGHT) * m for w, m in zip(shares, margins)]


def move_key(move: Move) -> Hashable:
    """A hashable identity for a move: the set of its items (lists as tuples, a boolean tagged so
    that true and 1 stay apart), cheaper than canonical JSON for a flat move and than sorting the
    items (a set needs no order: a move's field names are unique); a move nested deeper falls back
    to the JSON (docs/decisions/0014-small-speedups-in-rules-and-bots.md)."""
    items = []
    for name, value in move.items():
        kind = type(value)
        if kind is list:
            value = tuple(value)
        elif kind is bool:
            value = ("bool", value)
        items.append((name, value))
    try:
        return frozenset(items)
    except TypeError:  # a list of lists, an object: not hashable as they stand
        return canonical_json(move)


def best_by_ucb(children: list[Node], exploration: float) -> Node:
    """The child with the highest upper confidence bound (the first of equals): its mean reward
    plus the exploration term, which counts how often it was available rather than how often its
    parent was visited. Written out as one loop: it runs for every child at every step of every
    iteration."""
    log, sqrt = math.log, math.sqrt
    best, best_bound = children[0], -math.inf
    for child in children:
        visits = child.visits
        bound = child.reward / visits + exploration * sqrt(log(max(child.available, 1)) / visits)
        if bound > best_bound:
            best, best_bound = child, bound
    return best


class EvenShare(Sequence[float]):
    """An even share for every seat: 1/n once the player count is known, else 1/2."""

    def __init__(self, players: int | None):
        self.share = 1 / players if players else 0.5
        self.players = players or 2

    def __getitem__(self, seat):  # type: ignore[override]
        return self.share

    def __len__(self) -> int:
        return self.players


class Search:
    """One decision's search: the game, the seat's view, the budget and the random source."""

    def __init__(self, game: Rules, view: dict[str, Any], seat: int, budget: Budget,
                 rng: random.Random, clock: Callable[[], float] = time.perf_counter):
        self.game, self.view, self.seat, self.budget, self.rng = game, view, seat, budget, rng
        self.clock = clock
        hints = heuristics.for_rules(game.id)
        self.evaluate = getattr(hints, "evaluate", None)
        self.rollout_move = getattr(hints, "rollout_move", None)
        self.rollout_limit = getattr(hints, "ROLLOUT_LIMIT", budget.rollout_limit)
        self.rollout_turns: int | None = getattr(hints, "ROLLOUT_TURNS", None)
        self.tree_depth: int | None = getattr(hints, "TREE_DEPTH", None)
        self.root = Node(seat, None)
        # The protocol gives no player count; the first finished game found tells it, and until
        # then every seat's value is the same constant, so its size does not matter.
        self.player_count: int | None = None

    # --- the decision ------------------------------------------------------------------------

    def choose(self) -> Move:
        moves = seat_moves(self.game, self.view, self.seat, self.rng)
        if len(moves) == 1:
            return moves[0]
        decisive = self.decisive_move(moves)
        if decisive is not None:
            return decisive
        self.run()
        return self.most_visited(moves)

    def run(self) -> None:
        deadline = None
        if self.budget.milliseconds is not None:
            deadline = self.clock() + self.budget.milliseconds / 1000
        for done in range(self.budget.iterations):
            if deadline is not None and done and self.clock() >= deadline:
                break
            self.iterate()

    def most_visited(self, moves: list[Move]) -> Move:
        """The root move tried most often, ties going to the better mean. Moves still tied, which
        the search cannot tell apart (in a decided position every rollout ends alike), go to the
        move the rules play for a seat whose time ran out, if it is one of them: the rules choose
        it to move the game on. The first listed would not always: a Space Junkyard ship that has
        lost anyway lists its conversions first and would convert back and forth for ever."""
        def rank(index: int) -> tuple[int, float]:
            child = self.root.children.get((self.seat, move_key(moves[index])))
            if child is None or not child.visits:
                return (0, 0.0)
            return (child.visits, child.reward / child.visits)

        ranks = [rank(index) for index in range(len(moves))]
        best = max(ranks)
        tied = [move for move, ranked in zip(moves, ranks) if ranked == best]
        if len(tied) > 1:
            fallback = move_key(self.game.timeout_move(self.sample(), self.seat))
            return next((move for move in tied if move_key(move) == fallback), tied[0])
        return tied[0]

    def decisive_move(self, moves: list[Move]) -> Move | None:
        """A move that ends the game with this seat the sole winner in every sample tried. A game
        without chance or hidden information has one sample, the view itself: one is enough."""
        candidates = moves
        unknowns = self.game.chance or self.game.hidden_information
        for _ in range(DECISIVE_CHECK_SAMPLES if unknowns else 1):
            state = self.sample()
            candidates = [m for m in candidates if self.wins_at_once(state, m)]
            if not candidates:
                return None
        return candidates[0]

    def wins_at_once(self, state: State, move: Move) -> bool:
        outcome = self.game.outcome(self.game.apply(state, self.seat, move))
        return outcome is not None and tuple(outcome.winners) == (self.seat,)

    # --- one iteration -----------------------------------------------------------------------

    def sample(self) -> State:
        return self.game.sample_state(self.view, self.seat, self.rng)

    def iterate(self) -> None:
        state = self.sample()
        path = [self.root]
        node = self.root
        while self.game.outcome(state) is None:
            mover = self.root_mover(state) if node is self.root else self.game.to_act(state)[0]
            child, fresh = self.select(node, mover, self.game.legal_moves(state, mover))
            state = self.game.apply(state, mover, child.move)
            path.append(child)
            node = child
            if fresh or (self.tree_depth is not None and len(path) > self.tree_depth):
                break
        self.backpropagate(path, self.rollout(state))

    def root_mover(self, state: State) -> int:
        """Who moves first in the tree: the deciding seat (an evaluation overrides it)."""
        return self.seat

    def select(self, node: Node, mover: int, moves: list[Move]) -> tuple[Node, bool]:
        """The child to follow: a random untried move if any, else the best by UCB."""
        available = []
        untried = []
        for move in moves:
            key = (mover, move_key(move))
            child = node.children.get(key)
            if child is None:
                untried.append((key, move))
            else:
                child.available += 1
                available.append(child)
        if untried:
            key, move = untried[self.rng.randrange(len(untried))]
            child = node.children[key] = Node(mover, move)
            child.available = 1
            return child, True
        return best_by_ucb(available, self.budget.exploration), False

    def rollout(self, state: State) -> Sequence[float]:
        game = self.game
        turns_left, last_mover = self.rollout_turns, None
        for _ in range(self.rollout_limit):
            outcome = game.outcome(state)
            if outcome is not None:
                return self.finished(outcome)
            mover = game.to_act(state)[0]
            if turns_left is not None and mover != last_mover:
                if last_mover is not None:
                    turns_left -= 1
                    if not turns_left:
                        break
                last_mover = mover
            moves = game.legal_moves(state, mover)
            state = game.apply(state, mover, self.policy(state, mover, moves))
        outcome = game.outcome(state)
        if outcome is not None:
            return self.finished(outcome)
        return self.estimate(state)

    def finished(self, outcome: Outcome) -> list[float]:
        self.player_count = len(outcome.scores)
        return rewards(outcome)

    def policy(self, state: State, mover: int, moves: list[Move]) -> Move:
        if self.rollout_move is not None:
            return self.rollout_move(self.game, state, mover, moves, self.rng)
        return moves[self.rng.randrange(len(moves))]

    def estimate(self, state: State) -> Sequence[float]:
        """The value of an unfinished state: the game's evaluation, else an even share."""
        if self.evaluate is not None:
            return self.evaluate(self.game, state)
        return EvenShare(self.player_count)

    @staticmethod
    def backpropagate(path: list[Node], reward: Sequence[float]) -> None:
        path[0].visits += 1
        for node in path[1:]:
            node.visits += 1
            node.reward += reward[node.mover]


def decide(game: Rules, view: dict[str, Any], seat: int, budget: Budget,
           rng: random.Random) -> Move:
    return Search(game, view, seat, budget, rng).choose()
