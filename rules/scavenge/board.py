"""The junkyard's geometry and which squares a token can reach with one roll.

Squares are numbered row * 10 + col; the four hole squares are no squares at all: together they
are the single centre node, `CENTRE`. Sets of nodes are int bitmasks, so the path search is cheap.
"""

from __future__ import annotations

from functools import lru_cache

from rules.scavenge import data

SIZE = data.BOARD_SIZE
CENTRE = SIZE * SIZE
CENTRE_BIT = 1 << CENTRE
HOLE_NODES = frozenset(row * SIZE + col for row, col in data.HOLE)
SQUARES = tuple(n for n in range(SIZE * SIZE) if n not in HOLE_NODES)
SQUARES_MASK = sum(1 << n for n in SQUARES)
NODES = SQUARES + (CENTRE,)  # the order legal moves are listed in: squares by index, centre last

ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIAGONAL = ((-1, -1), (-1, 1), (1, 1), (1, -1))
KING = ORTHOGONAL + DIAGONAL


def node_at(row: int, col: int) -> int:
    return row * SIZE + col


def coords(node: int) -> tuple[int, int]:
    return divmod(node, SIZE)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def step(node: int, direction: tuple[int, int]) -> int | None:
    """The node one step away from a square; CENTRE for a step into the hole; None off the board."""
    row, col = coords(node)
    row, col = row + direction[0], col + direction[1]
    if not on_board(row, col):
        return None
    target = node_at(row, col)
    return CENTRE if target in HOLE_NODES else target


def _touches_hole(square: int, directions) -> bool:
    return any(step(square, d) == CENTRE for d in directions)


# The carrier leaves the centre by any square touching the hole, orthogonally or at a corner.
CENTRE_EXITS = tuple(s for s in SQUARES if _touches_hole(s, KING))

# With straight moves the carrier's line out of the hole continues the way it came out: a
# direction d from exit square t whose step back (t - d) is in the hole.
CENTRE_RAYS = tuple(
    (exit_square, d)
    for exit_square in CENTRE_EXITS
    for d in KING
    if step(exit_square, (-d[0], -d[1])) == CENTRE
)


def _adjacency(directions, exits_from_centre) -> tuple[tuple[int, ...], ...]:
    """Neighbours of each node. Ordinary players step into the centre orthogonally; the carrier
    never enters it and leaves it through any exit square."""
    table = []
    for node in range(CENTRE + 1):
        if node == CENTRE:
            table.append(exits_from_centre)
        elif node in HOLE_NODES:
            table.append(())
        else:
            steps = (step(node, d) for d in directions)
            table.append(tuple(n for n in steps if n is not None))
    return tuple(table)


ORTHO_ADJ = _adjacency(ORTHOGONAL, ())
KING_ADJ = tuple(
    tuple(n for n in row if n != CENTRE) for row in _adjacency(KING, CENTRE_EXITS)
)


def _balls(adjacency) -> tuple[tuple[int, ...], ...]:
    """For each node and each distance r up to the highest roll, the mask of nodes within r steps
    (the centre is a dead end): a superset of where an exact-r path can end, used for pruning."""
    table = []
    for source in range(CENTRE + 1):
        rings, frontier, seen = [1 << source], {source}, {source}
        for _ in range(data.MAX_ROLL):
            frontier = {
                n
                for node in frontier
                if node != CENTRE or node == source
                for n in adjacency[node]
                if n not in seen
            }
            seen |= frontier
            rings.append(rings[-1] | sum(1 << n for n in frontier))
        table.append(tuple(rings))
    return tuple(table)


ORTHO_BALLS = _balls(ORTHO_ADJ)
KING_BALLS = _balls(KING_ADJ)


def _walk(start: int, roll: int, king: bool, blocked: int, endable: int) -> int:
    """Ends of every path of exactly `roll` steps that never revisits a node, never enters a
    blocked node and never passes through the centre (it may only be the last step)."""
    adjacency = KING_ADJ if king else ORTHO_ADJ
    balls = KING_BALLS if king else ORTHO_BALLS
    found = 0

    def walk(node: int, left: int, visited: int) -> None:
        nonlocal found
        if left == 0:
            found |= (1 << node) & endable
            return
        if not balls[node][left] & endable & ~found:
            return  # every end still in reach from here is already found
        for nxt in adjacency[node]:
            bit = 1 << nxt
            if visited & bit or blocked & bit:
                continue
            if nxt == CENTRE:
                if left == 1:
                    found |= bit & endable
                continue
            walk(nxt, left - 1, visited | bit)

    walk(start, roll, 1 << start)
    return found


def _line(first: int, direction: tuple[int, int], length: int, blocked: int) -> int | None:
    """The last node of a straight line of `length` nodes starting with `first`, or None if the
    line leaves the board, hits a blocked node or passes through the centre."""
    node = first
    for i in range(length):
        if i:
            node = step(node, direction)
        if node is None or (1 << node) & blocked or (node == CENTRE and i < length - 1):
            return None
    return node


def _straight(start: int, roll: int, king: bool, blocked: int, endable: int) -> int:
    if start == CENTRE:
        starts = CENTRE_RAYS
    else:
        starts = tuple((step(start, d), d) for d in (KING if king else ORTHOGONAL))
    found = 0
    for first, direction in starts:
        if first is None or (king and first == CENTRE):
            continue
        end = _line(first, direction, roll, blocked)
        if end is not None:
            found |= (1 << end) & endable
    return found


@lru_cache(maxsize=16384)
def destinations(
    start: int, roll: int, king: bool, straight: bool, blocked: int, endable: int
) -> tuple[int, ...]:
    """Every node a token at `start` can end on with this roll, in `NODES` order.

    `king` lets it step diagonally (the carrier), `straight` keeps it to one line, `blocked`
    nodes may not be entered at all, and only `endable` nodes may be the end of the move.
    """
    if roll == 0:
        return ()
    search = _straight if straight else _walk
    found = search(start, roll, king, blocked, endable)
    return tuple(n for n in NODES if found >> n & 1)
