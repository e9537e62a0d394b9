"""The forest, mountain and fire actions: their legal options and what each does to a Work.

Fire is two decisions: the mover takes a red piece of a size from the pool (`fire`), and the
opponent plays it (`place_fire`). What a placement does follows from the square it goes to:
empty - start (a small fire; "spread" is a start next to a large fire, so it is the same move);
a fire one size smaller - grow; a forest - burn it; a frosted forest - burn the frost.
"""

from __future__ import annotations

from typing import Any, Iterator

from rules.errors import IllegalMove
from rules.terrafex import words
from rules.terrafex.board import NEIGHBOURS, STEP, Work, coords, describe_square, piece_name, pool_slot
from rules.terrafex.data import COLS, DIRECTIONS, FIRE, FOREST, GLACIER, LARGEST, MOUNTAIN, SIZE_NAMES, SIZES
from rules.words import msg


def _beside_large(board, square: int, colour: str) -> bool:
    for d in DIRECTIONS:
        n = STEP[d][square]
        if n >= 0 and board[n] is not None and board[n][0] == colour and board[n][1] == LARGEST:
            return True
    return False


def _empty_beside_large(board, colour: str) -> set[int]:
    squares = set()
    for square, cell in enumerate(board):
        if cell is not None and cell[0] == colour and cell[1] == LARGEST:
            squares.update(n for n in NEIGHBOURS[square] if board[n] is None)
    return squares


# --- grow, start, spread -------------------------------------------------------------------------


def grow(work: Work, square: int, colour: str) -> None:
    """Exchange a piece for the next size up from the pool."""
    cell = work.board[square]
    noun = "forest" if colour == FOREST else "mountain"  # also the refusal's code
    said = words.action(noun)
    where = describe_square(square)
    if cell is None or cell[0] != colour:
        raise IllegalMove(msg("there is no {noun} at {where} to grow", noun=said, where=where), f"not_a_{noun}")
    if cell[1] == LARGEST:
        raise IllegalMove(msg("the {noun} at {where} is large and cannot grow", noun=said, where=where), "already_large")
    if cell[2]:
        raise IllegalMove(msg("the forest at {where} is frosted and cannot grow", where=where), "frosted")
    work.release(colour, cell[1])
    work.take(colour, cell[1] + 1)
    work.board[square] = (colour, cell[1] + 1, 0)


def play_small(work: Work, square: int, colour: str, spread: bool) -> None:
    """Start (anywhere empty) or spread (empty and next to a large piece of the colour)."""
    if work.board[square] is not None:
        raise IllegalMove(msg("{square} is occupied", square=describe_square(square)), "square_occupied")
    if spread and not _beside_large(work.board, square, colour):
        raise IllegalMove(
            msg("{square} is not next to a large {colour} piece to spread from", square=describe_square(square), colour=words.colour(colour)),
            "not_beside_large",
        )
    work.take(colour, 1)
    work.board[square] = (colour, 1, 0)


# The pool's slots the listers read, looked up once (they run after every action of a playout).
_FOREST_SLOTS = {size: pool_slot(FOREST, size) for size in SIZES}
_MOUNTAIN_SLOTS = {size: pool_slot(MOUNTAIN, size) for size in SIZES}
_FIRE_SLOTS = {size: pool_slot(FIRE, size) for size in SIZES}
_GLACIER_SLOTS = {size: pool_slot(GLACIER, size) for size in SIZES}


def forest_moves(work: Work) -> Iterator[dict[str, Any]]:
    board, pool, slots = work.board, work.pool, _FOREST_SLOTS
    for square, cell in enumerate(board):
        if cell and cell[0] == FOREST and cell[1] < LARGEST and not cell[2]:
            if pool[slots[cell[1] + 1]]:
                yield {"type": "forest", "action": "grow", "at": coords(square)}
    if pool[slots[1]]:
        for square in sorted(_empty_beside_large(board, FOREST)):
            yield {"type": "forest", "action": "spread", "to": coords(square)}


def forest_open(work: Work) -> bool:
    """Whether `forest_moves` lists anything, without listing it."""
    board, pool, slots = work.board, work.pool, _FOREST_SLOTS
    for cell in board:
        if cell and cell[0] == FOREST and cell[1] < LARGEST and not cell[2]:
            if pool[slots[cell[1] + 1]]:
                return True
    if not pool[slots[1]]:
        return False
    for square, cell in enumerate(board):
        if cell is not None and cell[0] == FOREST and cell[1] == LARGEST:
            for n in NEIGHBOURS[square]:
                if board[n] is None:
                    return True
    return False


def mountain_open(work: Work) -> bool:
    """Whether `mountain_moves` lists anything, without listing it."""
    board, pool, slots = work.board, work.pool, _MOUNTAIN_SLOTS
    if pool[slots[1]] and None in board:
        return True
    return any(
        cell and cell[0] == MOUNTAIN and cell[1] < LARGEST and pool[slots[cell[1] + 1]]
        for cell in board
    )


def mountain_moves(work: Work) -> list[dict[str, Any]]:
    board, pool, slots = work.board, work.pool, _MOUNTAIN_SLOTS
    moves = []
    if pool[slots[1]]:
        moves = [
            {"type": "mountain", "action": "start", "to": [square // COLS, square % COLS]}
            for square, cell in enumerate(board)
            if cell is None
        ]
    for square, cell in enumerate(board):
        if cell and cell[0] == MOUNTAIN and cell[1] < LARGEST:
            if pool[slots[cell[1] + 1]]:
                moves.append({"type": "mountain", "action": "grow", "at": coords(square)})
    return moves


# --- fire ----------------------------------------------------------------------------------------


def take_fire(work: Work, size: int) -> None:
    """The mover's half: take the red piece from the pool, if it can be played anywhere."""
    if not work.pool[pool_slot(FIRE, size)]:
        raise IllegalMove(msg("no {piece_name} piece in the pool", piece_name=piece_name(FIRE, size)), "supply_empty")
    work.pool[pool_slot(FIRE, size)] -= 1
    if not any(True for _ in fire_squares(work, size)):
        raise IllegalMove(
            msg("a {piece_name} fire could not be played anywhere", piece_name=piece_name(FIRE, size)), "fire_has_no_place"
        )


def place_fire(work: Work, square: int, size: int) -> None:
    """The opponent's half: play the fire in hand to `square`."""
    cell = work.board[square]
    if cell is None:
        if size != 1:
            raise IllegalMove(
                msg("only a small fire starts on an empty square like {square}", square=describe_square(square)),
                "start_needs_small",
            )
        work.board[square] = (FIRE, 1, 0)
    elif cell[0] == FIRE:
        _grow_fire(work, square, cell[1], size)
    elif cell[0] == FOREST and cell[2]:
        _burn_frost(work, square, cell, size)
    elif cell[0] == FOREST:
        _burn_forest(work, square, cell[1], size)
    else:
        raise IllegalMove(
            msg("a fire may not be played on the {cell} piece at {square}", cell=words.colour(cell[0]), square=describe_square(square)),
            "fire_cannot_go_there",
        )


def _grow_fire(work: Work, square: int, fire: int, size: int) -> None:
    if fire != size - 1:
        raise IllegalMove(
            msg("a {piece_name} fire can grow only a fire one size smaller, not the one at {square}", piece_name=piece_name(FIRE, size), square=describe_square(square)),
            "grow_one_size",
        )
    work.release(FIRE, fire)  # the replaced fire goes to the fire pit
    work.board[square] = (FIRE, size, 0)


def _burn_forest(work: Work, square: int, trees: int, size: int) -> None:
    """Shrink the larger by the smaller, remove the smaller; both go if equal."""
    work.release(FOREST, trees)
    work.release(FIRE, size)
    if trees > size:
        work.take(FOREST, trees - size)
        work.board[square] = (FOREST, trees - size, 0)
    elif size > trees:
        work.take(FIRE, size - trees, pit_too=True)  # the fire pit supplies a burn's result
        work.board[square] = (FIRE, size - trees, 0)
    else:
        work.board[square] = None


def _burn_frost(work: Work, square: int, cell: tuple, size: int) -> None:
    """Only the frost burns, whatever the sizes; a fire larger than the frost is spent (ruling)."""
    _, trees, frost = cell
    work.release(GLACIER, frost)
    work.release(FIRE, size)
    left = frost - size if frost > size else 0
    if left:
        work.take(GLACIER, left)
    work.board[square] = (FOREST, trees, left)


def fire_squares(work: Work, size: int) -> Iterator[int]:
    """Squares where the fire in hand (already out of the pool) may be played."""
    pool, pit = work.pool, work.pit
    for square, cell in enumerate(work.board):
        if cell is None:
            if size == 1:
                yield square
        elif cell[0] == FIRE:
            if cell[1] == size - 1:
                yield square
        elif cell[0] == FOREST and _burn_has_supply(cell, size, pool, pit):
            yield square


def _burn_has_supply(forest: tuple, size: int, pool: list, pit: list) -> bool:
    """Whether `place_fire` on this forest finds the piece it must take (it raises otherwise):
    what is left of the frost, of the forest, or of the fire (pool or pit). The pieces the burn
    releases first are of another size than the one taken, so they never supply it."""
    _, trees, frost = forest
    if frost:
        left = frost - size if frost > size else 0
        return not left or pool[_GLACIER_SLOTS[left]] > 0
    if trees > size:
        return pool[_FOREST_SLOTS[trees - size]] > 0
    if size > trees:
        return pool[_FIRE_SLOTS[size - trees]] > 0 or pit[size - trees - 1] > 0
    return True


def fire_moves(work: Work) -> Iterator[dict[str, Any]]:
    for size in SIZES:
        slot = _FIRE_SLOTS[size]
        if work.pool[slot]:
            trial = Work((), work.pool, work.pit)
            trial.board = work.board  # read only: the squares are only looked at
            trial.pool[slot] -= 1
            if any(True for _ in fire_squares(trial, size)):
                yield {"type": "fire", "size": SIZE_NAMES[size]}


def placement_moves(work: Work, size: int) -> Iterator[dict[str, Any]]:
    for square in fire_squares(work, size):
        yield {"type": "place_fire", "to": coords(square)}
