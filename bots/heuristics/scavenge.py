"""Scavenge: an evaluation of unfinished games, read from the public (spectator) view.

Random rollouts of Scavenge run for thousands of actions, so the search plays a few random
actions and then scores each seat's progress through the game's three stages:
- with trash: less trash is better (it goes to whoever you land on);
- trash-free: the nearer the centre, where the good stuff lies, the better;
- carrying the good stuff: the nearer home (diagonal steps allowed), the better.
Progress becomes a share of the win by a softmax, so a clear leader gets most of it.

The rollouts are not uniformly random: a seat that can make the move that decides most in this
game takes it (`rollout_move`): landing on a token when it has trash to hand over, stealing the
good stuff from the carrier, taking the good stuff from the centre, carrying it home. Otherwise
it ends where the fewest rolls of the other seats could land on it (a landing sends it home, and
hands it trash or takes the good stuff), nearest its goal among those: a carrier's home, a
trash-free seat's centre. With uniformly random rollouts the search took standing within another
seat's reach for nearly safe, as a random seat lands on a token within reach about once in ten
chances, and it gave the greedy bot, which always lands when it can, the first shot.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from rules.scavenge import board
from rules.scavenge.turns import destinations

ROLLOUT_LIMIT = 6  # actions after the tree before the evaluation
TREE_DEPTH = 1  # the tree holds the seat's own moves; the rollouts play everything after them

HOLE_LOW, HOLE_HIGH = 4, 5  # rows and columns of the 2x2 hole (the centre)
SHARPNESS = 6.0  # softmax temperature: progress 0.5 ahead is worth about 95% in two-player games
TRASH_CAP = 6


def evaluate(game: Any, state: Any) -> Sequence[float]:
    seen = game.view(state, None)
    carrier = seen["good_stuff"]["carried_by"] if isinstance(seen["good_stuff"], dict) else None
    progress = [_progress(seat, carrier) for seat in seen["seats"]]
    weights = [0.0 if p is None else math.exp(SHARPNESS * p) for p in progress]
    total = sum(weights)
    return [w / total for w in weights]


def _progress(seat: dict[str, Any], carrier: int | None) -> float | None:
    """How far along the seat is, in [0, 1]; None once it has left the game."""
    at = seat["at"]
    if at is None:
        return None
    if seat["seat"] == carrier:
        return 0.75 + 0.25 * (1 - _distance_home(at, seat["start"]) / 10)
    if seat["trash"] == 0:
        return 0.5 + 0.2 * (1 - _distance_to_centre(at) / 10)
    return 0.45 * (1 - min(seat["trash"], TRASH_CAP) / TRASH_CAP)


def _distance_to_centre(at: Any) -> int:
    if not isinstance(at, list):
        return 0  # standing on the centre
    return _gap(at[0]) + _gap(at[1])


def _distance_home(at: Any, start: list[int]) -> int:
    """King steps home; from the centre, one step onto the ring round the hole first."""
    if not isinstance(at, list):
        at = [_nearest_ring(start[0]), _nearest_ring(start[1])]
        return 1 + _king_steps(at, start)
    return _king_steps(at, start)


def _king_steps(at: list[int], to: list[int]) -> int:
    return max(abs(at[0] - to[0]), abs(at[1] - to[1]))


def _gap(line: int) -> int:
    return max(HOLE_LOW - line, 0, line - HOLE_HIGH)


def _nearest_ring(line: int) -> int:
    return HOLE_LOW - 1 if line < HOLE_LOW else HOLE_HIGH + 1


# --- the rollout policy ----------------------------------------------------------------------

# How many rolls of 1-5 let a token `d` orthogonal steps away end exactly on a square (a path of
# exactly r steps exists when r >= d and r - d is even, walls and the hole aside).
_REACH = (0, 3, 2, 2, 1, 1)


def rollout_move(game: Any, state: Any, seat: int, moves: list, rng: Any) -> Any:
    """The move a rollout plays for `seat`: the decisive one when there is one (see the module
    docstring), else the square least within another seat's reach, nearest the seat's goal
    among those (a carrier's home, a trash-free seat's centre). `moves` are the legal moves, in
    the order of `destinations` (one per reachable node)."""
    if len(moves) == 1:
        return moves[0]
    nodes = destinations(state, seat)
    carrier = state.carrier
    positions = state.positions
    if carrier == seat:
        home = state.start_of(seat)
        if home in nodes:
            return moves[nodes.index(home)]
    elif state.trash[seat] == 0 and board.CENTRE in nodes:
        return moves[nodes.index(board.CENTRE)]
    elif carrier is not None and positions[carrier] in nodes:
        return moves[nodes.index(positions[carrier])]  # steal it, or send it back to the centre
    elif state.trash[seat]:
        for other, at in enumerate(positions):
            if other != seat and at is not None and at in nodes:
                return moves[nodes.index(at)]  # hand over a piece of trash
    threats = [_COORDS[at] for other, at in enumerate(positions)
               if other != seat and other != carrier and at is not None and at != board.CENTRE]
    if carrier == seat:
        home = state.start_of(seat)

        def goal(node: int) -> int:
            return _king_steps_nodes(node, home)
    elif state.trash[seat] == 0 and carrier is None:
        goal = _centre_steps
    else:
        goal = None
    own_start = state.start_of(seat)
    best, chosen = None, []
    for index, node in enumerate(nodes):
        rank = (_reach(node, threats) if node != own_start else 0, goal(node) if goal else 0)
        if best is None or rank < best:
            best, chosen = rank, [index]
        elif rank == best:
            chosen.append(index)
    return moves[chosen[rng.randrange(len(chosen))] if len(chosen) > 1 else chosen[0]]


_COORDS = tuple(divmod(node, board.SIZE) for node in range(board.CENTRE))


def _reach(node: int, threats: list[tuple[int, int]]) -> int:
    """How many (seat, roll) pairs could end on `node` next (an estimate; the centre: none)."""
    if node == board.CENTRE:
        return 0
    row, col = _COORDS[node]
    total = 0
    for other_row, other_col in threats:
        d = abs(row - other_row) + abs(col - other_col)
        if d < 6:
            total += _REACH[d]
    return total


def _king_steps_nodes(node: int, to: int) -> int:
    if node == board.CENTRE:
        return 99  # never a carrier's destination
    row, col = _COORDS[node]
    home_row, home_col = _COORDS[to]
    return max(abs(row - home_row), abs(col - home_col))


def _centre_steps(node: int) -> int:
    if node == board.CENTRE:
        return 0
    row, col = _COORDS[node]
    return _gap(row) + _gap(col)
