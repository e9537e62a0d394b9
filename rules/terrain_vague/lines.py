"""Ranges, lines and relays: what each kind of action reaches from a hex.

Every action works along the six straight lines from a hex, up to the range (3 with four gangs,
2 otherwise). What stops a line depends on the action (RULINGS.md, "Range and lines"):

- move / call-out (`MOVE`): another gang's turf or pawn stops the line; own pawns and the Toxic
  Waste may be passed but not stopped on; every empty own hex passed is a destination.
- protection (`PROTECT`): the same stops; every own hex passed (pawn or not) is covered.
- slingshot (`SHOOT`): flies over any turf, the Toxic Waste, own pawns and the own clubhouse; the
  first other-gang piece (pawn or clubhouse) on the line is the only target of that line.
- wheelbarrow (`RIP`): own hexes and the Toxic Waste are passed; the first other-gang hex on the
  line is the only one it may rip, if unoccupied (an occupied one stops the line); the empty own
  hexes passed are what it may reinforce.
- cleaning house (`CLEAN`): own hexes, the Toxic Waste and unoccupied other-gang hexes are passed,
  each unoccupied other-gang hex is a target; the first occupied other-gang hex is the last
  target (none if it holds a clubhouse) and stops the line.
Another gang's pawn or clubhouse always stops a line.

Relays: a pawn acts through its own clubhouse and/or the Toxic Waste when the relay lies on one
of its lines within range and every hex between is its own turf with no other gang's piece on it;
the same link joins clubhouse and Toxic Waste, either order, so relays chain. From each relay
the action goes on along any line at full range, with the action's own stopping rules. Another
gang's clubhouse is never a relay (it is another gang's piece, so it stops every line).

This module knows nothing of the game State: `Board` is a read-only snapshot of what lines need
(built by `position.board_of`), so it is tested on small hand-made boards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Mapping

from rules.terrain_vague.data import CLUBHOUSE
from rules.terrain_vague.hexes import DIRECTIONS, Hex

MOVE = "move"
PROTECT = "protect"
SHOOT = "shoot"
RIP = "rip"
CLEAN = "clean"


@dataclass(frozen=True)
class Piece:
    gang: str
    kind: str  # wheelbarrow, slingshot, lid, big_brother or clubhouse


@dataclass
class Board:
    """What the lines look at. `turf` maps each owned hex to its gang (the Toxic Waste has none);
    `pieces` maps each occupied hex to its pawn or clubhouse; `cells` is every hex on the board."""

    cells: frozenset
    toxic: Hex | None
    turf: Mapping[Hex, str]
    pieces: Mapping[Hex, Piece]
    clubhouses: Mapping[str, Hex]
    reach: int
    # What the lines reach, worked out once per board: the board never changes once built, and
    # the legal moves of a step ask the same lines again for every pawn and every action.
    memo: dict = field(default_factory=dict, compare=False, repr=False)


@lru_cache(maxsize=None)
def ray(start: Hex, direction: Hex, length: int) -> tuple[Hex, ...]:
    """The hexes 1..length steps from `start` along `direction` (on the board or not)."""
    q, r = start
    dq, dr = direction
    return tuple((q + dq * k, r + dr * k) for k in range(1, length + 1))


def rays(board: Board, start: Hex) -> tuple[tuple[Hex, ...], ...]:
    return _rays(start, board.reach)


@lru_cache(maxsize=None)
def _rays(start: Hex, length: int) -> tuple[tuple[Hex, ...], ...]:
    return tuple(ray(start, direction, length) for direction in DIRECTIONS)


def _foreign_piece(board: Board, hex_: Hex, gang: str) -> bool:
    piece = board.pieces.get(hex_)
    return piece is not None and piece.gang != gang


# --- relays --------------------------------------------------------------------------------


def _relays_of(board: Board, gang: str) -> frozenset:
    relays = set()
    if board.toxic is not None:
        relays.add(board.toxic)
    clubhouse = board.clubhouses.get(gang)
    if clubhouse is not None:
        relays.add(clubhouse)
    return frozenset(relays)


def linked_relays(board: Board, gang: str, start: Hex) -> list[Hex]:
    """Relays one link away from `start`: first relay on a line, over own turf only."""
    relays = _relays_of(board, gang)
    cells, pieces, turf = board.cells, board.pieces, board.turf
    found = []
    for line in rays(board, start):
        for hex_ in line:
            if hex_ in relays:
                found.append(hex_)
                break
            if hex_ not in cells or turf.get(hex_) != gang:
                break
            piece = pieces.get(hex_)
            if piece is not None and piece.gang != gang:
                break
    return found


def action_sources(board: Board, gang: str, origin: Hex) -> list[Hex]:
    """The origin and every relay it reaches, alone or chained (each at full range)."""
    key = ("sources", gang, origin)
    found = board.memo.get(key)
    if found is None:
        found = board.memo[key] = _action_sources(board, gang, origin)
    return found


def _action_sources(board: Board, gang: str, origin: Hex) -> list[Hex]:
    sources = [origin]
    seen = {origin}
    for source in sources:  # grows while iterating: a breadth-first search
        for relay in linked_relays(board, gang, source):
            if relay not in seen:
                seen.add(relay)
                sources.append(relay)
    return sources


# --- what one line gives, per kind of action ------------------------------------------------


def _move_line(board: Board, gang: str, line: tuple[Hex, ...], covered: bool) -> Iterator[Hex]:
    """Empty own hexes (or, with `covered`, every own hex) before the line is stopped."""
    for hex_ in line:
        if hex_ not in board.cells or _foreign_piece(board, hex_, gang):
            return
        if hex_ == board.toxic:
            continue
        if board.turf.get(hex_) != gang:
            return
        if covered or hex_ not in board.pieces:
            yield hex_


def _shoot_line(board: Board, gang: str, line: tuple[Hex, ...]) -> Iterator[Hex]:
    for hex_ in line:
        if hex_ not in board.cells:
            return
        if _foreign_piece(board, hex_, gang):
            yield hex_
            return


def _rip_line(board: Board, gang: str, line: tuple[Hex, ...]) -> Iterator[Hex]:
    """Empty own hexes passed (to reinforce), then the first other-gang hex if it is empty."""
    for hex_ in line:
        if hex_ not in board.cells or _foreign_piece(board, hex_, gang):
            return
        if hex_ == board.toxic:
            continue
        if board.turf.get(hex_) != gang:
            if hex_ not in board.pieces:
                yield hex_
            return
        if hex_ not in board.pieces:
            yield hex_


def _clean_line(board: Board, gang: str, line: tuple[Hex, ...]) -> Iterator[Hex]:
    for hex_ in line:
        if hex_ not in board.cells:
            return
        if hex_ == board.toxic:
            continue
        piece = board.pieces.get(hex_)
        if board.turf.get(hex_) == gang:
            if piece is not None and piece.gang != gang:
                return
            continue
        if piece is None:
            yield hex_
            continue
        if piece.gang != gang and piece.kind != CLUBHOUSE:
            yield hex_
        return


def _line_targets(board: Board, gang: str, kind: str, line: tuple[Hex, ...]) -> Iterator[Hex]:
    if kind == MOVE:
        return _move_line(board, gang, line, covered=False)
    if kind == PROTECT:
        return _move_line(board, gang, line, covered=True)
    if kind == SHOOT:
        return _shoot_line(board, gang, line)
    if kind == RIP:
        return _rip_line(board, gang, line)
    if kind == CLEAN:
        return _clean_line(board, gang, line)
    raise ValueError(f"unknown kind of action {kind!r}")


def direct_targets(board: Board, gang: str, kind: str, start: Hex) -> frozenset[Hex]:
    """What the action reaches from `start` along its six lines, without relays."""
    key = (kind, gang, start)
    found = board.memo.get(key)
    if found is None:
        reached: set[Hex] = set()
        for line in rays(board, start):
            reached.update(_line_targets(board, gang, kind, line))
        found = board.memo[key] = frozenset(reached)
    return found


def targets(board: Board, gang: str, kind: str, origin: Hex) -> set[Hex]:
    """What a piece of `gang` on `origin` reaches with this kind of action, relays included.

    The origin itself is never a target (a pawn does not move onto, nor protect, its own hex).
    """
    found: set[Hex] = set()
    for source in action_sources(board, gang, origin):
        found |= direct_targets(board, gang, kind, source)
    found.discard(origin)
    return found
