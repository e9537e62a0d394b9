"""Step 4: slingshots bean the pieces they reach.
"""

from __future__ import annotations

from rules.errors import IllegalMove
from rules.terrain_vague import costs, words
from rules.terrain_vague.data import CLUBHOUSE, SLINGSHOT
from rules.terrain_vague.hexes import Hex, to_json
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.lines import SHOOT, targets
from rules.terrain_vague.moves import SHOOT_PAWN, hex_field
from rules.terrain_vague.position import (
    active_pawns,
    added,
    board_of,
    check_on_board,
    current_ledger,
    own_active_pawn,
    pay,
    protection_of,
)
from rules.terrain_vague.state import Pawn, State
from rules.words import msg


def bean_cost(state: State, target: Hex) -> int:
    """The price of beaning the piece on `target`: its kind's cost x its lids (+1)."""
    piece = state.occupants[target]
    if piece.kind == CLUBHOUSE:
        return costs.BEAN[CLUBHOUSE]
    lids = protection_of(state, piece.gang)[target]
    return costs.BEAN[piece.kind] * costs.multiplier(lids)


def list_step_4(state: State, gang: str) -> list[dict]:
    ledger, points, board = current_ledger(state), state.points.get(gang, 0), board_of(state)
    moves = []
    for hex_, _ in active_pawns(state, gang, (SLINGSHOT,)):
        if hex_ in ledger.fired:
            continue
        for at in sorted(targets(board, gang, SHOOT, hex_)):
            if bean_cost(state, at) <= points:
                moves.append({"type": SHOOT_PAWN, "from": to_json(hex_), "at": to_json(at)})
    return moves


def apply_shoot(state: State, gang: str, move: dict) -> State:
    start, at = hex_field(move, "from"), hex_field(move, "at")
    ledger = current_ledger(state)
    own_active_pawn(state, gang, start, (SLINGSHOT,), "shoot")
    if start in ledger.fired:
        raise IllegalMove(
            msg("shoot: the slingshot on {start} already fired this turn", start=to_json(start)), "already_fired"
        )
    check_on_board(state, at, move)
    target = state.occupants.get(at)
    if target is None:
        raise IllegalMove(msg("shoot: nothing to bean on {at}", at=to_json(at)), "no_target")
    if target.gang == gang:
        raise IllegalMove(msg("shoot: the {kind} on {at} is {gang}'s own", kind=words.piece(target.kind), at=to_json(at), gang=words.gang(gang)), "own_gang")
    if at not in targets(board_of(state), gang, SHOOT, start):
        raise IllegalMove(
            msg("shoot: {at} is not in range of {start} along a clear line", at=to_json(at), start=to_json(start)),
            "out_of_range",
        )
    points = pay(state, gang, bean_cost(state, at), lambda: msg("beaning the {kind} on {at}", kind=words.piece(target.kind), at=to_json(at)))
    ledger = ledger.with_(fired=added(ledger.fired, start))
    return _bean(state.with_(points=points), at, target, ledger)


def _bean(state: State, at: Hex, target: Pawn, ledger: Ledger) -> State:
    if target.kind == CLUBHOUSE:
        return state.with_(
            clubhouses=state.clubhouses.set(target.gang, None),
            ledger=ledger.with_(destroyed=added(ledger.destroyed, target.gang)),
        )
    return state.with_(
        pawns=state.pawns.without(at),
        ledger=ledger.with_(beaned=added(ledger.beaned, (target.gang, target.kind))),
    )
