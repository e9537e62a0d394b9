"""Step 3: pawns (and the clubhouse) move; the big brother may clean house instead.
"""

from __future__ import annotations

from rules.errors import IllegalMove
from rules.terrain_vague import costs, words
from rules.terrain_vague.call_out import check_destination, rebuild_hexes
from rules.terrain_vague.data import BIG_BROTHER, CLUBHOUSE, PAWN_KINDS, TOUGH
from rules.terrain_vague.hexes import CENTRE, Hex, to_json
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.lines import CLEAN, MOVE, targets
from rules.terrain_vague.moves import CLEAN_HOUSE, MOVE_PAWN, hex_field
from rules.terrain_vague.position import (
    active_pawns,
    added,
    board_of,
    check_on_board,
    current_ledger,
    own_active_pawn,
    owner,
    pay,
    strength_for,
    unchanged,
)
from rules.terrain_vague.state import Pawn, State
from rules.words import msg


def _clubhouse_destinations(state: State, gang: str) -> tuple[Hex, ...]:
    return rebuild_hexes(state, gang)  # any empty hex of its own colour


def list_step_3(state: State, gang: str) -> list[dict]:
    ledger, points, board = current_ledger(state), state.points.get(gang, 0), board_of(state)
    moves: list[dict] = []
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is not None and clubhouse not in ledger.moved and costs.MOVE[CLUBHOUSE] <= points:
        cq, cr = clubhouse  # each move gets lists of its own, built inline: a step lists dozens
        moves += [
            {"type": MOVE_PAWN, "from": [cq, cr], "to": [tq, tr]}
            for tq, tr in _clubhouse_destinations(state, gang)
        ]
    for hex_, pawn in active_pawns(state, gang, PAWN_KINDS):
        if hex_ in ledger.moved:
            continue
        q, r = hex_
        if costs.MOVE[pawn.kind] <= points:
            moves += [
                {"type": MOVE_PAWN, "from": [q, r], "to": [tq, tr]}
                for tq, tr in sorted(targets(board, gang, MOVE, hex_))
            ]
        if pawn.kind == BIG_BROTHER and costs.CLEAN_HOUSE <= points:
            moves += [
                {"type": CLEAN_HOUSE, "from": [q, r], "to": [tq, tr]}
                for tq, tr in sorted(_clean_targets(state, gang, hex_, ledger))
            ]
    return moves


def _not_moved(ledger: Ledger, hex_: Hex, move: dict) -> None:
    if hex_ in ledger.moved:
        raise IllegalMove(
            msg("{type}: the piece on {hex} already acted this step", type=move['type'], hex=to_json(hex_)),
            "already_moved",
        )


def apply_move(state: State, gang: str, move: dict) -> State:
    start, to = hex_field(move, "from"), hex_field(move, "to")
    ledger = current_ledger(state)
    if state.clubhouses.get(gang) == start and start is not None:
        return _apply_clubhouse_move(state, gang, move, start, to, ledger)
    pawn = own_active_pawn(state, gang, start, PAWN_KINDS, "move")
    _not_moved(ledger, start, move)
    check_destination(state, gang, to, move)
    if to not in targets(board_of(state), gang, MOVE, start):
        raise IllegalMove(
            msg("move: {to} is not in range of {start} along a clear line", to=to_json(to), start=to_json(start)),
            "out_of_range",
        )
    points = pay(state, gang, costs.MOVE[pawn.kind], lambda: msg("moving a {kind}", kind=words.piece(pawn.kind)))
    return state.with_(
        pawns=state.pawns.without(start).set(to, pawn),
        points=points,
        ledger=ledger.with_(moved=added(ledger.moved, to)),
    )


def _apply_clubhouse_move(
    state: State, gang: str, move: dict, start: Hex, to: Hex, ledger: Ledger
) -> State:
    _not_moved(ledger, start, move)
    check_destination(state, gang, to, move)
    points = pay(state, gang, costs.MOVE[CLUBHOUSE], lambda: msg("moving the clubhouse"))
    return state.with_(
        clubhouses=state.clubhouses.set(gang, to),
        points=points,
        ledger=ledger.with_(moved=added(ledger.moved, to)),
    )


def _clean_targets(state: State, gang: str, start: Hex, ledger: Ledger) -> set[Hex]:
    """Hexes the big brother may clean: in reach, unchanged this turn, with supply to lay."""
    if strength_for(state, gang, TOUGH) is None:
        return set()
    return {h for h in targets(board_of(state), gang, CLEAN, start) if h not in ledger.changed}


def apply_clean_house(state: State, gang: str, move: dict) -> State:
    start, to = hex_field(move, "from"), hex_field(move, "to")
    ledger = current_ledger(state)
    own_active_pawn(state, gang, start, (BIG_BROTHER,), "clean_house")
    _not_moved(ledger, start, move)
    check_on_board(state, to, move)
    _check_clean_target(state, gang, to)
    unchanged(ledger, to, "clean_house")
    if to not in targets(board_of(state), gang, CLEAN, start):
        raise IllegalMove(
            msg("clean_house: {to} is not in range of {start} along a clear line", to=to_json(to), start=to_json(start)),
            "out_of_range",
        )
    strength = strength_for(state, gang, TOUGH)
    if strength is None:
        raise IllegalMove(msg("clean_house: {gang} has no turf hex left in its supply", gang=words.gang(gang)), "no_supply")
    points = pay(state, gang, costs.CLEAN_HOUSE, lambda: msg("cleaning house"))
    return _clean(state.with_(points=points), gang, start, to, strength, ledger)


def _check_clean_target(state: State, gang: str, to: Hex) -> None:
    if to == CENTRE:
        raise IllegalMove(msg("clean_house: the Toxic Waste cannot be taken"), "toxic_waste")
    if owner(state, to) == gang:
        raise IllegalMove(msg("clean_house: {to} is already {gang}'s turf", to=to_json(to), gang=words.gang(gang)), "own_turf")
    occupant = state.occupants.get(to)
    if occupant is not None and occupant.kind == CLUBHOUSE:
        raise IllegalMove(msg("clean_house: never on a clubhouse ({to})", to=to_json(to)), "clubhouse")


def _clean(state: State, gang: str, start: Hex, to: Hex, strength: str, ledger: Ledger) -> State:
    """The hex becomes the gang's; a pawn on it is replaced; the big brother leaves or stays."""
    victim = state.pawns.get(to)
    state = state.with_turf(to, gang, strength)
    pawns, reserves = state.pawns.without(start).without(to), state.reserves
    ledger = ledger.with_(changed=added(ledger.changed, to))
    if victim is not None:
        ledger = ledger.with_(beaned=added(ledger.beaned, (victim.gang, victim.kind)))
    if victim is not None and victim.kind == BIG_BROTHER:
        pawns = pawns.set(to, Pawn(gang, BIG_BROTHER))  # against a big brother, it stays
        ledger = ledger.with_(moved=added(ledger.moved, to))
    else:
        ledger = ledger.with_(big_brother_out=added(ledger.big_brother_out, gang))
        if victim is not None and state.reserve(gang, victim.kind) > 0:
            pawns = pawns.set(to, Pawn(gang, victim.kind))
            reserves = reserves.add((gang, victim.kind), -1)
            ledger = ledger.with_(moved=added(ledger.moved, to))
    return state.with_(pawns=pawns, reserves=reserves, ledger=ledger)
