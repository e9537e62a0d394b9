"""Step 5: wheelbarrows rip off hexes and reinforce home turf; the big rip-off takes an enclosed
area at once.

Enclosed areas are cached on the state object (`state.__dict__` key `_enclosed`), and shared
between states with the same hexes owned and occupied (`_enclosed_of`).
"""

from __future__ import annotations

from functools import lru_cache

from rules.errors import IllegalMove
from rules.terrain_vague import bits, costs, words
from rules.terrain_vague.data import TOUGH, WHEELBARROW, WIMPY
from rules.terrain_vague.hexes import CENTRE, Hex, to_json
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.lines import RIP, targets
from rules.terrain_vague.moves import BIG_RIP_OFF, REINFORCE, RIP_HEX, hex_field
from rules.terrain_vague.position import (
    RIPS_PER_WHEELBARROW,
    WHOLE,
    active_pawns,
    added,
    board_of,
    check_on_board,
    current_ledger,
    occupied_bits,
    own_active_pawn,
    pay,
    protection_of,
    rips_used,
    strength_for,
    unchanged,
    with_rip,
)
from rules.terrain_vague.state import State
from rules.terrain_vague.territory import home_turf, turf_masks
from rules.words import msg


def enclosed_areas(state: State, gang: str) -> list[frozenset]:
    """Every area the gang encloses: a maximal connected run of hexes not its own (the Toxic
    Waste may be one), with no pawn and no clubhouse, holding at least one owned hex."""
    cache = state.__dict__.setdefault("_enclosed", {})
    if gang not in cache:
        cache[gang] = _compute_enclosed_areas(state, gang)
    return cache[gang]


def _compute_enclosed_areas(state: State, gang: str) -> list[frozenset]:
    cells, own = turf_masks(state)
    return list(_enclosed_of(state.radius, cells, own.get(gang, 0), occupied_bits(state)))


# The areas depend on the board's hexes, the gang's own and the occupied ones alone: shared
# between the states of a search, most of which leave them as they were. Bounded, as states are not.
@lru_cache(maxsize=1 << 13)
def _enclosed_of(radius: int, cells: int, own: int, occupied: int) -> tuple[frozenset, ...]:
    """The runs of hexes not the gang's (as bits, see `bits`), in the order of each run's first
    hex in board order."""
    grid = bits.layout(radius)
    centre = grid.bit[CENTRE]
    areas = [
        frozenset(bits.hexes_of(grid, run))
        for run in bits.components(grid, cells & ~own)
        if not run & occupied and run & ~centre
    ]
    return tuple(sorted(areas, key=min))


def rip_cost(state: State, gang: str, hex_: Hex) -> int:
    """Ripping another gang's hex: the table by relation and strength, x its owner's lids (+1)."""
    turf = state.board[hex_]
    relation = costs.SWORN if state.sworn_enemy(gang) == turf.gang else costs.OTHER
    lids = protection_of(state, turf.gang)[hex_]
    return costs.RIP[(relation, turf.strength)] * costs.multiplier(lids)


def _wheelbarrow_rip_cost(state: State, gang: str, hex_: Hex) -> int:
    cost = rip_cost(state, gang, hex_)
    if state.option("rip_off") != WHOLE and any(hex_ in a for a in enclosed_areas(state, gang)):
        cost = -(-cost // 2)  # option `halved`: enclosed hexes cost half, rounded up
    return cost


def _rip_targets(state: State, gang: str, start: Hex, ledger: Ledger) -> list[tuple[str, Hex]]:
    """(move type, hex) for every rip or reinforcement the wheelbarrow on `start` can make."""
    home, found = home_turf(state, gang), []
    for hex_ in sorted(targets(board_of(state), gang, RIP, start)):
        if hex_ in ledger.changed:
            continue
        turf = state.board[hex_]
        if turf.gang != gang and strength_for(state, gang, turf.strength) is not None:
            found.append((RIP_HEX, hex_))
        elif turf.gang == gang and _reinforceable(state, gang, hex_, home):
            found.append((REINFORCE, hex_))
    return found


def _reinforceable(state: State, gang: str, hex_: Hex, home: frozenset) -> bool:
    return state.board[hex_].strength == WIMPY and hex_ in home and state.supply(gang, TOUGH) > 0


def list_step_5(state: State, gang: str) -> list[dict]:
    ledger, points = current_ledger(state), state.points.get(gang, 0)
    moves = []
    for hex_, _ in active_pawns(state, gang, (WHEELBARROW,)):
        if rips_used(ledger, hex_) >= RIPS_PER_WHEELBARROW:
            continue
        for kind, at in _rip_targets(state, gang, hex_, ledger):
            cost = costs.REINFORCE if kind == REINFORCE else _wheelbarrow_rip_cost(state, gang, at)
            if cost <= points:
                moves.append({"type": kind, "from": to_json(hex_), "at": to_json(at)})
    if state.option("rip_off") == WHOLE and state.clubhouses.get(gang) is not None:
        for area in enclosed_areas(state, gang):
            if _big_rip_off_problem(state, gang, area, ledger) is None:
                if _big_rip_off_cost(state, gang, area) <= points:
                    named = min(h for h in area if h != CENTRE)  # any hex of the area would do
                    moves.append({"type": BIG_RIP_OFF, "at": to_json(named)})
    return moves


def _wheelbarrow(state: State, gang: str, move: dict, ledger: Ledger) -> Hex:
    start = hex_field(move, "from")
    own_active_pawn(state, gang, start, (WHEELBARROW,), move["type"])
    if rips_used(ledger, start) >= RIPS_PER_WHEELBARROW:
        raise IllegalMove(
            msg("{type}: the wheelbarrow on {start} used both rips", type=move['type'], start=to_json(start)), "no_rips_left"
        )
    return start


def _check_rip_reach(state: State, gang: str, start: Hex, at: Hex, move: dict) -> None:
    if at not in targets(board_of(state), gang, RIP, start):
        raise IllegalMove(
            msg("{type}: {at} is not the first other hex on a clear line in range of {start}", type=move['type'], at=to_json(at), start=to_json(start)),
            "out_of_range",
        )


def apply_rip(state: State, gang: str, move: dict) -> State:
    ledger = current_ledger(state)
    start = _wheelbarrow(state, gang, move, ledger)
    at = check_on_board(state, hex_field(move, "at"), move)
    turf = state.board[at]
    if turf is None:
        raise IllegalMove(msg("rip: the Toxic Waste cannot be taken"), "toxic_waste")
    if turf.gang == gang:
        raise IllegalMove(
            msg("rip: {at} is {gang}'s own turf (reinforce it instead)", at=to_json(at), gang=words.gang(gang)), "own_turf"
        )
    if at in state.occupants:
        raise IllegalMove(msg("rip: {at} is occupied", at=to_json(at)), "occupied")
    unchanged(ledger, at, "rip")
    _check_rip_reach(state, gang, start, at, move)
    strength = strength_for(state, gang, turf.strength)
    if strength is None:
        raise IllegalMove(msg("rip: {gang} has no turf hex left in its supply", gang=words.gang(gang)), "no_supply")
    points = pay(state, gang, _wheelbarrow_rip_cost(state, gang, at), lambda: msg("ripping off {at}", at=to_json(at)))
    ledger = with_rip(ledger, start).with_(changed=added(ledger.changed, at))
    return state.with_(points=points).with_turf(at, gang, strength).with_(ledger=ledger)


def apply_reinforce(state: State, gang: str, move: dict) -> State:
    ledger = current_ledger(state)
    start = _wheelbarrow(state, gang, move, ledger)
    at = check_on_board(state, hex_field(move, "at"), move)
    turf = state.board[at]
    if turf is None or turf.gang != gang or at not in home_turf(state, gang):
        raise IllegalMove(msg("reinforce: {at} is not {gang}'s home turf", at=to_json(at), gang=words.gang(gang)), "not_home_turf")
    if turf.strength != WIMPY:
        raise IllegalMove(msg("reinforce: {at} is already tough", at=to_json(at)), "already_tough")
    if at in state.occupants:
        raise IllegalMove(msg("reinforce: {at} is occupied", at=to_json(at)), "occupied")
    unchanged(ledger, at, "reinforce")
    _check_rip_reach(state, gang, start, at, move)
    if state.supply(gang, TOUGH) <= 0:
        raise IllegalMove(msg("reinforce: {gang} has no tough hex left in its supply", gang=words.gang(gang)), "no_supply")
    points = pay(state, gang, costs.REINFORCE, lambda: msg("reinforcing {at}", at=to_json(at)))
    ledger = with_rip(ledger, start).with_(changed=added(ledger.changed, at))
    return state.with_(points=points).with_turf(at, gang, TOUGH).with_(ledger=ledger)


def _big_rip_off_cost(state: State, gang: str, area: frozenset) -> int:
    total = sum(rip_cost(state, gang, h) for h in area if h != CENTRE)
    return -(-total // 2)


def _big_rip_off_layout(state: State, gang: str, area: frozenset) -> list[tuple[Hex, str]] | None:
    """The strength laid on each hex (like-for-like while the supply lasts), or None if short."""
    supply = {s: state.supply(gang, s) for s in (WIMPY, TOUGH)}
    layout = []
    for hex_ in sorted(h for h in area if h != CENTRE):
        wanted = state.board[hex_].strength
        other = TOUGH if wanted == WIMPY else WIMPY
        strength = wanted if supply[wanted] > 0 else other
        if supply[strength] <= 0:
            return None
        supply[strength] -= 1
        layout.append((hex_, strength))
    return layout


def _big_rip_off_problem(
    state: State, gang: str, area: frozenset, ledger: Ledger
) -> tuple[str, str] | None:
    """(message, code) of what forbids the big rip-off of this area, or None."""
    if any(h in ledger.changed for h in area):
        return msg("a hex of the area already changed this turn"), "hex_changed_this_turn"
    if _big_rip_off_layout(state, gang, area) is None:
        return msg("{gang}'s supply cannot cover the area", gang=words.gang(gang)), "no_supply"
    return None


def apply_big_rip_off(state: State, gang: str, move: dict) -> State:
    at = check_on_board(state, hex_field(move, "at"), move)
    ledger = current_ledger(state)
    if state.option("rip_off") != WHOLE:
        raise IllegalMove(
            msg("big_rip_off: option rip_off is 'halved' (rip enclosed hexes one by one)"),
            "no_big_rip_off",
        )
    if state.clubhouses.get(gang) is None:
        raise IllegalMove(msg("big_rip_off: {gang}'s clubhouse is destroyed", gang=words.gang(gang)), "clubhouse_destroyed")
    area = next((a for a in enclosed_areas(state, gang) if at in a), None)
    if area is None:
        raise IllegalMove(
            msg("big_rip_off: {at} is not in an area {gang} encloses", at=to_json(at), gang=words.gang(gang)), "not_enclosed"
        )
    problem = _big_rip_off_problem(state, gang, area, ledger)
    if problem is not None:
        raise IllegalMove(msg("big_rip_off: {problem}", problem=problem[0]), problem[1])
    points = pay(state, gang, _big_rip_off_cost(state, gang, area), lambda: msg("the big rip-off"))
    state = state.with_(points=points)
    changed = ledger.changed
    for hex_, strength in _big_rip_off_layout(state, gang, area):
        state = state.with_turf(hex_, gang, strength)
        changed = added(changed, hex_)
    return state.with_(ledger=ledger.with_(changed=changed))
