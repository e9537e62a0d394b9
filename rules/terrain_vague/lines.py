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

What an action reaches from a hex depends only on what lies on the lines it walks, from the
origin and from its relays. A search's playouts meet the same few local layouts again and again
on boards that differ elsewhere, so a board that also carries itself as bits (`BoardBits`) shares
its answers with every other board through a memo keyed by those lines' contents (`_SHARED`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import count
from typing import Mapping, NamedTuple

from rules.terrain_vague import bits as hexbits
from rules.terrain_vague.data import CLUBHOUSE
from rules.terrain_vague.hexes import DIRECTIONS, Hex
from rules.words import msg

MOVE = "move"
PROTECT = "protect"
SHOOT = "shoot"
RIP = "rip"
CLEAN = "clean"


@dataclass(frozen=True)
class Piece:
    gang: str
    kind: str  # wheelbarrow, slingshot, lid, big_brother or clubhouse


class BoardBits(NamedTuple):  # a tuple: built for every new position of a search
    """The board as bit sets of a `bits.layout(radius)`: enough to tell two boards' lines apart.
    `turf` and `pieces` map a gang to its own hexes and to the hexes of its pawns and clubhouse."""

    radius: int
    cells: int
    turf: Mapping[str, int]
    pieces: Mapping[str, int]
    occupied: int  # every pawn and standing clubhouse
    clubhouses: int  # every standing clubhouse


@dataclass
class Board:
    """What the lines look at. `turf` maps each owned hex to its gang (the Toxic Waste has none);
    `pieces` maps each occupied hex to its pawn or clubhouse; `cells` is every hex on the board;
    `clubhouses` maps a gang to its standing clubhouse (a destroyed one is None or absent)."""

    cells: frozenset
    toxic: Hex | None
    turf: Mapping[Hex, str]
    pieces: Mapping[Hex, Piece]
    clubhouses: Mapping[str, Hex | None]
    reach: int
    # What the lines reach, worked out once per board: the board never changes once built, and
    # the legal moves of a step ask the same lines again for every pawn and every action.
    memo: dict = field(default_factory=dict, compare=False, repr=False)
    # The same board as bits, when its builder has them: then `targets` shares its answers with
    # other boards (a hand-made board in a test has none and works everything out itself).
    bits: BoardBits | None = field(default=None, compare=False, repr=False)


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
    key = ("relays", gang)
    relays = board.memo.get(key)
    if relays is None:
        found = set()
        if board.toxic is not None:
            found.add(board.toxic)
        clubhouse = board.clubhouses.get(gang)
        if clubhouse is not None:
            found.add(clubhouse)
        relays = board.memo[key] = frozenset(found)
    return relays


def linked_relays(board: Board, gang: str, start: Hex) -> list[Hex]:
    """Relays one link away from `start`: first relay on a line, over own turf only. Only the
    lines that hold a relay within range can link (two relays at most), so only they are walked."""
    relays = _relays_of(board, gang)
    cells, pieces, turf = board.cells, board.pieces, board.turf
    found = []
    for line in _lines_to(start, relays, board.reach):
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


@lru_cache(maxsize=None)
def _lines_to(start: Hex, relays: frozenset, length: int) -> tuple[tuple[Hex, ...], ...]:
    """The lines from `start` (in direction order, up to `length`) holding one of `relays`."""
    return tuple(line for line in _rays(start, length) if not relays.isdisjoint(line))


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
# Each walks the six lines from a hex with the board's maps held in locals: these loops are the
# bulk of listing a step's legal moves, asked after every action of a search's playouts.


def _move_lines(board: Board, gang: str, start: Hex, covered: bool) -> set[Hex]:
    """Empty own hexes (or, with `covered`, every own hex) before each line is stopped."""
    cells, pieces, turf, toxic = board.cells, board.pieces, board.turf, board.toxic
    reached = set()
    for line in rays(board, start):
        for hex_ in line:
            if hex_ not in cells:
                break
            piece = pieces.get(hex_)
            if piece is not None and piece.gang != gang:
                break
            if hex_ == toxic:
                continue
            if turf.get(hex_) != gang:
                break
            if covered or piece is None:
                reached.add(hex_)
    return reached


def _shoot_lines(board: Board, gang: str, start: Hex) -> set[Hex]:
    """The first other gang's piece on each line."""
    cells, pieces = board.cells, board.pieces
    reached = set()
    for line in rays(board, start):
        for hex_ in line:
            if hex_ not in cells:
                break
            piece = pieces.get(hex_)
            if piece is not None and piece.gang != gang:
                reached.add(hex_)
                break
    return reached


def _rip_lines(board: Board, gang: str, start: Hex) -> set[Hex]:
    """Empty own hexes passed (to reinforce), then the first other-gang hex if it is empty."""
    cells, pieces, turf, toxic = board.cells, board.pieces, board.turf, board.toxic
    reached = set()
    for line in rays(board, start):
        for hex_ in line:
            if hex_ not in cells:
                break
            piece = pieces.get(hex_)
            if piece is not None and piece.gang != gang:
                break
            if hex_ == toxic:
                continue
            if turf.get(hex_) != gang:
                if piece is None:
                    reached.add(hex_)
                break
            if piece is None:
                reached.add(hex_)
    return reached


def _clean_lines(board: Board, gang: str, start: Hex) -> set[Hex]:
    cells, pieces, turf, toxic = board.cells, board.pieces, board.turf, board.toxic
    reached = set()
    for line in rays(board, start):
        for hex_ in line:
            if hex_ not in cells:
                break
            if hex_ == toxic:
                continue
            piece = pieces.get(hex_)
            if turf.get(hex_) == gang:
                if piece is not None and piece.gang != gang:
                    break
                continue
            if piece is None:
                reached.add(hex_)
                continue
            if piece.gang != gang and piece.kind != CLUBHOUSE:
                reached.add(hex_)
            break
    return reached


def _line_targets(board: Board, gang: str, kind: str, start: Hex) -> set[Hex]:
    if kind == MOVE:
        return _move_lines(board, gang, start, covered=False)
    if kind == PROTECT:
        return _move_lines(board, gang, start, covered=True)
    if kind == SHOOT:
        return _shoot_lines(board, gang, start)
    if kind == RIP:
        return _rip_lines(board, gang, start)
    if kind == CLEAN:
        return _clean_lines(board, gang, start)
    raise ValueError(msg("unknown kind of action {kind!r}", kind=kind))


def direct_targets(board: Board, gang: str, kind: str, start: Hex) -> frozenset[Hex]:
    """What the action reaches from `start` along its six lines, without relays."""
    key = (kind, gang, start)
    found = board.memo.get(key)
    if found is None:
        found = board.memo[key] = frozenset(_line_targets(board, gang, kind, start))
    return found


def targets(board: Board, gang: str, kind: str, origin: Hex) -> frozenset[Hex]:
    """What a piece of `gang` on `origin` reaches with this kind of action, relays included.

    The origin itself is never a target (a pawn does not move onto, nor protect, its own hex).
    Worked out once per board and asked again (the apply checks what the lister offered); a
    board with bits first looks for the answer found on another board with the same lines.
    """
    key = ("targets", kind, gang, origin)
    found = board.memo.get(key)
    if found is None:
        if board.bits is None:
            found = _targets(board, gang, kind, origin)
        else:
            found = _shared_targets(board, board.bits, gang, kind, origin)
        board.memo[key] = found
    return found


def _targets(board: Board, gang: str, kind: str, origin: Hex) -> frozenset[Hex]:
    sources = action_sources(board, gang, origin)
    if len(sources) == 1:
        reached = direct_targets(board, gang, kind, origin)
        return reached - {origin} if origin in reached else reached
    union: set[Hex] = set()
    for source in sources:
        union |= direct_targets(board, gang, kind, source)
    union.discard(origin)
    return frozenset(union)


# --- answers shared between boards ----------------------------------------------------------
# `_targets` reads only the hexes on the lines (at the board's reach) from the origin and from
# the gang's relays (its clubhouse and the Toxic Waste): whether each is on the board, the gang's
# own turf, holds a piece, the gang's own piece, or a clubhouse. The key holds exactly those, as
# the board's bits masked by that footprint, so equal keys give equal answers on any boards.
# The memo is emptied when it grows past `SHARED_LIMIT`, which only costs working answers out
# again: a search's positions keep meeting a few thousand layouts.
#
# Sharing pays only where positions come back: a search finds some nine answers in ten there,
# random games from the start one in twenty, and there looking up and keeping answers costs more
# than it saves. So each stretch of `PROBE` lookups is judged: with fewer than `ENOUGH` found,
# the next `REST` boards are built without bits (`shares_answers`), then sharing is tried again.
# Only the speed depends on it: an answer is the same shared or not.

SHARED_LIMIT = 50_000  # some 700 bytes an answer: at most about 35 MB
PROBE = 4096
ENOUGH = PROBE // 4
REST = 16 * PROBE
_SHARED: dict[tuple, frozenset] = {}


class _Stretch:
    """The lookups and answers found in the current stretch, and the boards still to rest."""

    asked = 0
    found = 0
    resting = 0


def shares_answers() -> bool:
    """Whether a board built now should carry its bits and so share answers (see above)."""
    if _Stretch.resting:
        _Stretch.resting -= 1
        return False
    return True


def _judge_stretch() -> None:
    if _Stretch.found < ENOUGH:
        _Stretch.resting = REST
    _Stretch.asked = _Stretch.found = 0


def _shared_targets(board: Board, bits: BoardBits, gang: str, kind: str, origin: Hex) -> frozenset[Hex]:
    place, seen = _footprint(bits.radius, board.reach, origin, board.toxic, board.clubhouses.get(gang))
    key = (
        place, kind, gang,
        bits.cells & seen,
        bits.turf.get(gang, 0) & seen,
        bits.pieces.get(gang, 0) & seen,
        bits.occupied & seen,
        bits.clubhouses & seen,
    )
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= SHARED_LIMIT:
            _SHARED.clear()
        found = _SHARED[key] = _targets(board, gang, kind, origin)
    else:
        _Stretch.found += 1
    _Stretch.asked += 1
    if _Stretch.asked >= PROBE:
        _judge_stretch()
    return found


_PLACES = count()


@cache
def _footprint(radius: int, reach: int, origin: Hex, toxic: Hex | None, clubhouse: Hex | None) -> tuple[int, int]:
    """A number of its own for this origin, these relays, reach and board (a short stand-in for
    them in the keys), and the bits of every hex on the lines from the origin and the relays."""
    bit = hexbits.layout(radius).bit
    seen = 0
    for source in (origin, toxic, clubhouse):
        if source is not None:
            for line in _rays(source, reach):
                for hex_ in line:
                    seen |= bit.get(hex_, 0)
    return next(_PLACES), seen
