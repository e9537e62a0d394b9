"""The glacier action: a move and everything it does on arrival.

`land` resolves a glacier arriving on a square, except for the placements of a split, which it
returns as a `Split` for the mover to choose; `resolve` follows the mover's placements (each lands
"as if moved there", so it may split again on another mountain); `resolutions` lists every
complete way an arrival can be resolved, which is how the legal glacier moves are enumerated.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Iterator, NamedTuple

from rules.errors import IllegalMove
from rules.terrafex.board import OFF, STEP, Work, coords, describe_square, direction_between
from rules.terrafex.data import (
    DIRECTIONS,
    FIRE,
    FOREST,
    GLACIER,
    LARGEST,
    MOUNTAIN,
    MOUNTAIN_SPLITS,
    OPPOSITE,
    SIZE_NAMES,
)
from rules.terrafex.moves import Placement
from rules.words import msg

MOVER_COLOURS = (MOUNTAIN, GLACIER)  # what a glacier may move away from (or the edge)


class Split(NamedTuple):
    mountain: int  # the square of the mountain the glaciers are played around
    pieces: tuple[int, ...]  # sizes of the resulting glaciers, ascending
    squares: tuple[int, ...]  # where they may go: the mountain's neighbours but the one beyond


def may_start(board, source: int, direction: str) -> bool:
    """Whether a glacier at `source` may start a move `direction` (`move_problem` says why not;
    this is the listing's check, which builds no refusal for every square it passes over)."""
    cell = board[source]
    if cell is None or cell[0] != GLACIER or STEP[direction][source] == OFF:
        return False
    behind = STEP[OPPOSITE[direction]][source]
    return behind == OFF or (board[behind] is not None and board[behind][0] in MOVER_COLOURS)


def move_problem(board, source: int, direction: str) -> IllegalMove | None:
    """Why a glacier at `source` may not start a move `direction`, or None if it may."""
    if may_start(board, source, direction):
        return None
    cell, where = board[source], describe_square(source)
    if cell is None or cell[0] != GLACIER:
        return IllegalMove(msg("there is no glacier at {where} to move", where=where), "not_a_glacier")
    if STEP[direction][source] == OFF:
        message = msg("the glacier at {where} cannot move {direction} off the board", where=where, direction=direction)
        return IllegalMove(message, "off_board")
    behind = STEP[OPPOSITE[direction]][source]
    if behind != OFF and (board[behind] is None or board[behind][0] not in MOVER_COLOURS):
        return IllegalMove(
            msg("the glacier at {where} may move {direction} only away from a mountain, a glacier or the edge", where=where, direction=direction),
            "not_moving_away",
        )
    return None


def start_move(work: Work, source: int, direction: str) -> tuple[int, int, int]:
    """Lift the glacier off its square: (glacier size, capped forest size, target square)."""
    _, size, forest = work.board[source]
    work.board[source] = None
    return size, forest, STEP[direction][source]


# --- arrival -------------------------------------------------------------------------------------


def land(
    work: Work, size: int, forest: int, origin: int, target: int, direction: str
) -> Split | None:
    """Resolve a glacier (capping `forest`, or 0) arriving on `target` from `origin`."""
    cell = work.board[target]
    if cell is None:
        work.board[target] = (GLACIER, size, forest)
        return None
    colour = cell[0]
    if colour == GLACIER:
        _merge_glaciers(work, size, forest, target)
    elif colour == FIRE:
        _melt(work, size, forest, origin, target)
    elif colour == FOREST:
        _onto_forest(work, size, forest, origin, target)
    elif cell[1] == 1:
        _push_mountain(work, size, forest, target, direction)
    else:
        return _split_at_mountain(work, size, forest, origin, target, direction)
    return None


def _merge_glaciers(work: Work, size: int, forest: int, target: int) -> None:
    """Glacier to glacier, to a capped forest, or capped forest to capped forest."""
    _, other, other_forest = work.board[target]
    merged = min(LARGEST, size + other)
    work.release(GLACIER, size)
    work.release(GLACIER, other)
    under = forest or other_forest
    if forest and other_forest:
        # Capped to capped: one medium forest stays under, whatever the two were.
        work.release(FOREST, forest)
        work.release(FOREST, other_forest)
        work.take(FOREST, 2)
        under = 2
    work.take(GLACIER, merged)
    work.board[target] = (GLACIER, merged, under)


def _melt(work: Work, size: int, forest: int, origin: int, target: int) -> None:
    """Glacier to fire: the smaller shrinks the larger by its size; red leftovers to the pit."""
    fire = work.board[target][1]
    work.melted = True
    if forest:
        # The capping glacier melts: its forest returns where the glacier was (RULINGS).
        work.board[origin] = (FOREST, forest, 0)
    work.release(GLACIER, size)
    work.release(FIRE, fire)
    if size == fire:
        work.board[target] = None
    elif size > fire:
        work.take(GLACIER, size - fire)
        work.board[target] = (GLACIER, size - fire, 0)
    else:
        work.take(FIRE, fire - size)  # only a burn may draw on the fire pit
        work.board[target] = (FIRE, fire - size, 0)


def _onto_forest(work: Work, size: int, forest: int, origin: int, target: int) -> None:
    """Glacier to forest (shrink it, cap or frost it) or to a frosted forest (merge the frost)."""
    _, trees, frost = work.board[target]
    if forest:
        # Ruling: a glacier holds one forest; the one it capped is left where the glacier was.
        work.board[origin] = (FOREST, forest, 0)
    if frost:
        work.release(GLACIER, size)
        work.release(GLACIER, frost)
        size = min(LARGEST, size + frost)
        work.take(GLACIER, size)
    else:
        work.release(FOREST, trees)
        trees -= 1
        if trees:
            work.take(FOREST, trees)
    work.board[target] = _topped_forest(trees, size)


def _topped_forest(trees: int, glacier: int) -> tuple:
    if not trees:
        return (GLACIER, glacier, 0)
    if glacier > trees:
        return (GLACIER, glacier, trees)  # capped: out of the game, moves as a glacier
    return (FOREST, trees, glacier)  # frosted: a forest that may not grow


def _push_mountain(work: Work, size: int, forest: int, target: int, direction: str) -> None:
    landing = STEP[direction][STEP[direction][target]] if STEP[direction][target] != OFF else OFF
    if landing == OFF or work.board[landing] is not None:
        raise IllegalMove(
            msg("the small mountain at {target} can be pushed only to an empty square two beyond it on the board", target=describe_square(target)),
            "push_blocked",
        )
    work.board[landing] = (MOUNTAIN, 1, 0)
    work.board[target] = (GLACIER, size, forest)


def _split_at_mountain(
    work: Work, size: int, forest: int, origin: int, target: int, direction: str
) -> Split:
    mountain = work.board[target][1]
    work.release(MOUNTAIN, mountain)
    work.take(MOUNTAIN, mountain - 1)
    work.board[target] = (MOUNTAIN, mountain - 1, 0)
    if forest:
        work.board[origin] = (FOREST, forest, 0)  # returned before the split is placed
    pieces = MOUNTAIN_SPLITS[mountain][size]
    if pieces != (size,):
        work.release(GLACIER, size)
        for piece in pieces:
            work.take(GLACIER, piece)
    beyond = STEP[direction][target]
    squares = tuple(
        sq for sq in (STEP[d][target] for d in DIRECTIONS) if sq != OFF and sq != beyond
    )
    if len(squares) < len(pieces):
        raise IllegalMove(
            msg("{pieces_count} glaciers cannot be played one a square round the mountain at {target}", pieces_count=len(pieces), target=describe_square(target)),
            "no_room_to_split",
        )
    return Split(target, pieces, squares)


# --- the mover's placements ----------------------------------------------------------------------


def resolve(
    work: Work, size: int, forest: int, origin: int, target: int, direction: str,
    place: tuple[Placement, ...] | None,
) -> None:
    split = land(work, size, forest, origin, target, direction)
    if split is None:
        if place:
            raise IllegalMove(
                msg("the glacier arriving at {target} does not split: nothing to place", target=describe_square(target)),
                "placements_not_wanted",
            )
        return
    _check_placements(split, place)
    for placement in place:
        step = direction_between(split.mountain, placement.square)
        resolve(work, placement.size, 0, split.mountain, placement.square, step, placement.place)


def _check_placements(split: Split, place: tuple[Placement, ...] | None) -> None:
    where = describe_square(split.mountain)
    wanted = "+".join(SIZE_NAMES[p] for p in split.pieces)
    if not place:
        message = msg("say where the glaciers ({wanted}) go round the mountain at {where}", wanted=wanted, where=where)
        raise IllegalMove(message, "placements_needed")
    if tuple(sorted(p.size for p in place)) != split.pieces:
        message = msg("the glacier splits into {wanted} at the mountain at {where}", wanted=wanted, where=where)
        raise IllegalMove(message, "wrong_split_sizes")
    squares = [p.square for p in place]
    if len(set(squares)) != len(squares):
        message = msg("no more than one glacier a square round the mountain at {where}", where=where)
        raise IllegalMove(message, "square_used_twice")
    for square in squares:
        if square not in split.squares:
            raise IllegalMove(
                msg("{square} is not beside the mountain at {where} (or is the square beyond it)", square=describe_square(square), where=where),
                "not_beside_mountain",
            )


# --- enumeration ---------------------------------------------------------------------------------


def resolutions(
    work: Work, size: int, forest: int, origin: int, target: int, direction: str
) -> Iterator[tuple[list[dict[str, Any]] | None, Work]]:
    """Every complete resolution of an arrival: (its "place" list or None, the Work after it)."""
    after = work.copy()
    try:
        split = land(after, size, forest, origin, target, direction)
    except IllegalMove:
        return
    if split is None:
        yield None, after
        return
    for assignment in _assignments(split):
        yield from _place_in_turn(after, split.mountain, assignment, 0, [])


def _assignments(split: Split) -> list[tuple[tuple[int, int], ...]]:
    """Distinct ways to give each piece its own square, each listed in square order."""
    seen = set()
    for squares in permutations(split.squares, len(split.pieces)):
        pairs = tuple(sorted(zip(squares, split.pieces)))
        seen.add(pairs)
    return sorted(seen)


def _place_in_turn(work: Work, mountain: int, assignment, index: int, done: list) -> Iterator:
    if index == len(assignment):
        yield list(done), work
        return
    square, size = assignment[index]
    step = direction_between(mountain, square)
    for place, after in resolutions(work, size, 0, mountain, square, step):
        entry: dict[str, Any] = {"to": coords(square), "size": SIZE_NAMES[size]}
        if place is not None:
            entry["place"] = place
        yield from _place_in_turn(after, mountain, assignment, index + 1, done + [entry])


def glacier_moves(work: Work) -> Iterator[dict[str, Any]]:
    """Every legal glacier move, glacier by glacier in square order, then N, E, S, W."""
    for source, cell in enumerate(work.board):
        if cell is None or cell[0] != GLACIER:
            continue
        for direction in DIRECTIONS:
            if not may_start(work.board, source, direction):
                continue
            lifted = work.copy()
            size, forest, target = start_move(lifted, source, direction)
            for place, _ in resolutions(lifted, size, forest, source, target, direction):
                move: dict[str, Any] = {"type": "glacier", "from": coords(source), "dir": direction}
                if place is not None:
                    move["place"] = place
                yield move
