"""Step 2: calling pawns out from the reserve along the clubhouse's lines, and rebuilding a
beaned clubhouse.
"""

from __future__ import annotations

from functools import lru_cache

from rules.errors import IllegalMove
from rules.terrain_vague import bits, costs, words
from rules.terrain_vague.data import PAWN_KINDS
from rules.terrain_vague.hexes import CENTRE, Hex, to_json
from rules.terrain_vague.lines import MOVE, targets
from rules.terrain_vague.moves import CALL_OUT, REBUILD, hex_field, kind_field
from rules.terrain_vague.position import added, board_of, check_on_board, current_ledger, occupied_bits, owner, pay
from rules.terrain_vague.state import Pawn, State
from rules.terrain_vague.territory import turf_masks
from rules.words import msg


def rebuild_hexes(state: State, gang: str) -> tuple[Hex, ...]:
    """The gang's empty hexes (where a clubhouse is rebuilt or moves to), sorted: step 3 lists
    them for every position, so they come from the bits of the gang's hexes and the occupied."""
    _, own = turf_masks(state)
    return _sorted_hexes(state.radius, own.get(gang, 0) & ~occupied_bits(state))


@lru_cache(maxsize=1 << 12)
def _sorted_hexes(radius: int, found: int) -> tuple[Hex, ...]:
    """The hexes of a set of bits, sorted: the same few sets come back again and again."""
    return tuple(sorted(bits.hexes_of(bits.layout(radius), found)))


def _call_out_hexes(state: State, gang: str) -> set[Hex]:
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is None or gang in current_ledger(state).rebuilt:
        return set()
    return targets(board_of(state), gang, MOVE, clubhouse)


def list_step_2(state: State, gang: str) -> list[dict]:
    if state.clubhouses.get(gang) is None:
        return [{"type": REBUILD, "to": to_json(h)} for h in rebuild_hexes(state, gang)]
    points = state.points.get(gang, 0)
    kinds = [k for k in PAWN_KINDS if state.reserve(gang, k) > 0 and costs.CALL_OUT[k] <= points]
    hexes = sorted(_call_out_hexes(state, gang)) if kinds else []
    return [{"type": CALL_OUT, "kind": k, "to": [q, r]} for k in kinds for q, r in hexes]


def check_destination(state: State, gang: str, to: Hex, move: dict) -> None:
    """The codes shared by call-out, rebuild and moves: the destination itself."""
    check_on_board(state, to, move)
    if to == CENTRE:
        raise IllegalMove(msg("{type}: no piece may stay on the Toxic Waste", type=move['type']), "toxic_waste")
    if to in state.occupants:
        raise IllegalMove(msg("{type}: {to} is occupied", type=move['type'], to=to_json(to)), "occupied")
    if owner(state, to) != gang:
        raise IllegalMove(msg("{type}: {to} is not {gang}'s turf", type=move['type'], to=to_json(to), gang=words.gang(gang)), "not_own_turf")


def apply_call_out(state: State, gang: str, move: dict) -> State:
    kind, to = kind_field(move), hex_field(move, "to")
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is None:
        raise IllegalMove(
            msg("call_out: {gang}'s clubhouse is destroyed; rebuild it", gang=words.gang(gang)), "clubhouse_destroyed"
        )
    if gang in current_ledger(state).rebuilt:
        raise IllegalMove(msg("call_out: {gang} rebuilt its clubhouse this step", gang=words.gang(gang)), "rebuilt_this_step")
    if state.reserve(gang, kind) <= 0:
        raise IllegalMove(msg("call_out: {gang} has no {kind} in reserve", gang=words.gang(gang), kind=words.piece(kind)), "none_in_reserve")
    check_destination(state, gang, to, move)
    if to not in _call_out_hexes(state, gang):
        raise IllegalMove(
            msg("call_out: {to} is not in range of the clubhouse", to=to_json(to)), "out_of_range"
        )
    points = pay(state, gang, costs.CALL_OUT[kind], lambda: msg("calling out a {kind}", kind=words.piece(kind)))
    return state.with_(
        pawns=state.pawns.set(to, Pawn(gang, kind)),
        reserves=state.reserves.add((gang, kind), -1),
        points=points,
        ledger=current_ledger(state),
    )


def apply_rebuild(state: State, gang: str, move: dict) -> State:
    to = hex_field(move, "to")
    if state.clubhouses.get(gang) is not None:
        raise IllegalMove(msg("rebuild: {gang}'s clubhouse is standing", gang=words.gang(gang)), "clubhouse_standing")
    check_destination(state, gang, to, move)
    points = pay(state, gang, costs.REBUILD_CLUBHOUSE, lambda: msg("rebuilding the clubhouse"))
    ledger = current_ledger(state)
    return state.with_(
        clubhouses=state.clubhouses.set(gang, to),
        points=points,
        ledger=ledger.with_(rebuilt=added(ledger.rebuilt, gang)),
    )
