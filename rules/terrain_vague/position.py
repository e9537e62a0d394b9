"""The position as the pawn actions see it: the lines board, this turn's ledger, lids'
protection, who owns a hex, what a gang can pay, and the checks every action shares.

The lines `Board` and the protection are cached on the state object (`state.__dict__` keys
`_lines_board`, `_protection`), as `territory.home_turf` is: a state never changes, so neither do
they.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from rules.errors import IllegalMove
from rules.terrain_vague import bits, words
from rules.terrain_vague.data import LID, TOUGH, WIMPY
from rules.terrain_vague.hexes import CENTRE, Hex, to_json
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.lines import Board, BoardBits, shares_answers
from rules.terrain_vague.protection import protection
from rules.terrain_vague.state import Pawn, State
from rules.terrain_vague.territory import home_turf, turf_masks
from rules.words import msg

RIPS_PER_WHEELBARROW = 2


WHOLE = "whole"


def board_of(state: State) -> Board:
    """The lines' view of the state, built once per state (states never change)."""
    cache = state.__dict__
    if "_lines_board" not in cache:
        cells, turf = turf_gangs(state)
        cache["_lines_board"] = Board(
            cells=cells,
            toxic=CENTRE,
            turf=turf,
            pieces=state.occupants,
            clubhouses=state.clubhouses,  # a destroyed one's None reads as absent, as `get` asks
            reach=state.reach,
            bits=_board_bits(state) if shares_answers() else None,
        )
    return cache["_lines_board"]


def occupied_bits(state: State) -> int:
    """The occupied hexes (pawns and clubhouses) as bits: the lines board's, if it has them."""
    board_bits = board_of(state).bits
    if board_bits is not None:
        return board_bits.occupied
    return bits.mask(bits.layout(state.radius), state.occupants)


def _board_bits(state: State) -> BoardBits:
    """The board as bits, so that the lines share their answers between states (`lines`)."""
    radius = state.radius
    bit = bits.layout(radius).bit
    cells, turf = turf_masks(state)
    pieces = dict.fromkeys(state.gangs, 0)
    for hex_, pawn in state.pawns.items():
        pieces[pawn.gang] |= bit[hex_]
    clubhouses = 0
    for gang, hex_ in state.clubhouses.items():
        if hex_ is not None:
            pieces[gang] |= bit[hex_]
            clubhouses |= bit[hex_]
    occupied = 0
    for mark in pieces.values():
        occupied |= mark
    return BoardBits(radius, cells, turf, pieces, occupied, clubhouses)


def turf_gangs(state: State) -> tuple[frozenset, dict[Hex, str]]:
    """The board's hexes, and each owned hex's gang: cached per board (`_turf_gangs`), which a
    pawn's move or a paid point leaves alone."""
    cache = state.__dict__
    if "_turf_gangs" not in cache:
        board = state.board
        cache["_turf_gangs"] = (
            frozenset(board),
            {h: t.gang for h, t in board.items() if t is not None},
        )
    return cache["_turf_gangs"]


def current_ledger(state: State) -> Ledger:
    """The ledger with `moved` emptied when the step has changed since it was written."""
    ledger = state.ledger
    if ledger.step == state.step:
        return ledger
    memo = state.__dict__  # asked by every lister and every check: made once a state
    fresh = memo.get("_current_ledger")
    if fresh is None:
        fresh = memo["_current_ledger"] = ledger.with_(moved=(), step=state.step)
    return fresh


def protection_of(state: State, gang: str) -> Counter:
    """How many of `gang`'s lids protect each hex, cached per state."""
    cache = state.__dict__.setdefault("_protection", {})
    if gang not in cache:
        lids = [h for h, p in state.pawns.items() if p.gang == gang and p.kind == LID]
        cache[gang] = protection(board_of(state), gang, home_turf(state, gang), lids)
    return cache[gang]


def added(items: tuple, item: Any) -> tuple:
    return tuple(sorted((*items, item)))


def rips_used(ledger: Ledger, hex_: Hex) -> int:
    return dict(ledger.rips).get(hex_, 0)


def with_rip(ledger: Ledger, hex_: Hex) -> Ledger:
    rips = dict(ledger.rips)
    rips[hex_] = rips.get(hex_, 0) + 1
    return ledger.with_(rips=tuple(sorted(rips.items())))


def owner(state: State, hex_: Hex) -> str | None:
    turf = state.board.get(hex_)
    return None if turf is None else turf.gang


def pay(state: State, gang: str, cost: int, what: Callable[[], str]) -> Any:
    """The points after paying `cost`; raises before anything changes if the gang cannot.
    `what` names the action for that refusal, written only then (the listers offer only what
    a gang can pay, so a search's actions never need it)."""
    points = state.points.get(gang, 0)
    if cost > points:
        raise IllegalMove(
            msg("{what} costs {cost} action points; {gang} has {points}", what=what(), cost=cost, gang=words.gang(gang), points=points), "not_enough_points"
        )
    return state.points.add(gang, -cost)


def strength_for(state: State, gang: str, wanted: str) -> str | None:
    """The strength the gang lays for a hex: `wanted`, else the other, else None (no supply)."""
    other = TOUGH if wanted == WIMPY else WIMPY
    for strength in (wanted, other):
        if state.supply(gang, strength) > 0:
            return strength
    return None


def check_on_board(state: State, hex_: Hex, move: dict) -> Hex:
    if hex_ not in state.board:
        raise IllegalMove(msg("{type}: {hex} is not on the board", type=move['type'], hex=to_json(hex_)), "off_board")
    return hex_


def own_active_pawn(state: State, gang: str, hex_: Hex, kinds: tuple[str, ...], what: str) -> Pawn:
    """The gang's pawn of one of `kinds` on `hex_`, on its home turf; else IllegalMove."""
    pawn = state.pawns.get(hex_)
    if pawn is None or pawn.gang != gang:
        raise IllegalMove(msg("{what}: no pawn of {gang} on {hex}", what=what, gang=words.gang(gang), hex=to_json(hex_)), "no_such_pawn")
    if pawn.kind not in kinds:
        raise IllegalMove(
            msg("{what}: the {kind} on {hex} cannot do that", what=what, kind=words.piece(pawn.kind), hex=to_json(hex_)), "wrong_pawn"
        )
    if hex_ not in home_turf(state, gang):
        raise IllegalMove(msg("{what}: the {kind} on {hex} is isolated", what=what, kind=words.piece(pawn.kind), hex=to_json(hex_)), "isolated")
    return pawn


def unchanged(ledger: Ledger, hex_: Hex, what: str) -> None:
    if hex_ in ledger.changed:
        raise IllegalMove(
            msg("{what}: {hex} already changed this turn", what=what, hex=to_json(hex_)), "hex_changed_this_turn"
        )


def active_pawns(state: State, gang: str, kinds: tuple[str, ...]) -> list[tuple[Hex, Pawn]]:
    home = home_turf(state, gang)
    return sorted(
        (h, p) for h, p in state.pawns.items() if p.gang == gang and p.kind in kinds and h in home
    )
