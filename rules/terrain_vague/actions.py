"""Terrain Vague pawn actions of steps 2-5: call-out, moves, the big brother, slingshots, rips.

The turn flow (`turns.py`) routes every move whose type is in `ACTION_TYPES` here while it is the
acting gang's turn in steps 2-5; `legal_actions` lists every such move the gang can make now
(`turns` adds `end_step`). `apply_action` checks everything, costs included, before it
changes anything. Lines, ranges and relays are in `lines.py`, lids in `protection.py`, the
cost table in `costs.py`, the per-turn bookkeeping in `ledger.py`.

Errors, all raised before anything changes: MalformedMove `unknown_move_type`, `missing_field`,
`bad_hex`, `bad_kind`; IllegalMove `wrong_step`, `off_board`, `no_such_pawn`, `wrong_pawn`,
`isolated`, `already_moved`, `already_fired`, `no_rips_left`, `occupied`, `not_own_turf`,
`own_turf`, `toxic_waste`, `clubhouse`, `out_of_range`, `no_target`, `own_gang`,
`none_in_reserve`, `clubhouse_destroyed`, `clubhouse_standing`, `rebuilt_this_step`,
`not_home_turf`, `already_tough`, `hex_changed_this_turn`, `no_supply`, `not_enclosed`,
`no_big_rip_off`, `not_enough_points`. A lister offers only what the gang can pay.

Move encoding (a hex is the JSON list `[q, r]`):
- step 2 `{"type": "call_out", "kind": K, "to": hex}`: a pawn of kind K (wheelbarrow, slingshot,
  lid, big_brother) from the reserve onto an empty own hex reached from the clubhouse.
- step 2 `{"type": "rebuild", "to": hex}`: the beaned clubhouse back on an empty own hex, for 0.
- step 3 `{"type": "move", "from": hex, "to": hex}`: a pawn (big brother included, plain move)
  along its lines, or the clubhouse (`from` = the clubhouse hex) to any empty own hex.
- step 3 `{"type": "clean_house", "from": hex, "to": hex}`: the big brother cleans house.
- step 4 `{"type": "shoot", "from": hex, "at": hex}`: a slingshot beans the piece on `at`.
- step 5 `{"type": "rip", "from": hex, "at": hex}`: a wheelbarrow rips off another gang's hex.
- step 5 `{"type": "reinforce", "from": hex, "at": hex}`: a wheelbarrow turns an own wimpy
  home-turf hex tough (it uses one of the wheelbarrow's two rips).
- step 5 `{"type": "big_rip_off", "at": hex}`: the enclosed area holding `at` becomes the gang's
  (option `rip_off` = `whole` only).

Rulings (beyond the books and RULINGS.md):
- Only pawns on the gang's home turf act (the clubhouse is never isolated). With the clubhouse
  destroyed the home turf is empty, so the gang does nothing but rebuild in step 2.
- A pawn acts once per step: a move, or for the big brother a move or cleaning house; the
  clubhouse moves at most once per step too. A pawn placed by cleaning house (the replacement,
  or the attacking big brother that stays) counts as having acted that step.
- A pawn removed by cleaning house counts as beaned: back in its owner's reserve next turn. A
  big brother that cleaned house (or was beaned) is back in the reserve next turn and must be
  called out again.
- Cleaning house turns the hex into the attacker's tough turf, or wimpy when no tough hex is
  left in the supply; with neither, it is impossible (`no_supply`), like a rip.
- Lids never make their own gang's actions dearer: reinforcing costs 2 flat.
- The rebuild goes on any empty hex of the gang's colour (not along lines); `turns`
  eliminates a gang that has none. After a rebuild the gang calls out nothing else that step.
- Slingshots fly over own pawns as over empty hexes ("never through another gang's pawn").
- Relay links (lines.py): every hex between pawn and relay must be own turf with no other
  gang's piece; own pawns on it are fine; a Toxic Waste on the way is itself a relay (chain).
- A lid counts once for a hex however many of its lines (direct or relayed) reach it.
- Call-out needs only the standing clubhouse (never isolated) and a clear line from it.
- Big rip-off: a maximal connected area of hexes that are not the gang's (the Toxic Waste
  included, which stays unowned), holding no pawn and no clubhouse, with at least one owned hex;
  its neighbours are then all the gang's turf or the board edge. It needs the gang's clubhouse
  standing, every hex unchanged this turn and enough supply (each hex like-for-like, else the
  other strength). Cost: half, rounded up, of the summed rip costs (lids included, though an
  enclosed area is isolated and so unprotected). With `rip_off` = `halved` there is no big
  rip-off action; instead a wheelbarrow rip of a hex in such an area costs half, rounded up.
"""

from __future__ import annotations

from typing import Any

from rules.errors import IllegalMove, MalformedMove
from rules.terrain_vague.call_out import apply_call_out, apply_rebuild, list_step_2
from rules.terrain_vague.data import BIG_BROTHER
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.movement import apply_clean_house, apply_move, list_step_3
from rules.terrain_vague.moves import (
    BIG_RIP_OFF,
    CALL_OUT,
    CLEAN_HOUSE,
    MOVE_PAWN,
    REBUILD,
    REINFORCE,
    RIP_HEX,
    SHOOT_PAWN,
    STEP_OF,
)
from rules.terrain_vague.slingshots import apply_shoot, list_step_4
from rules.terrain_vague.state import State
from rules.terrain_vague.wheelbarrows import apply_big_rip_off, apply_reinforce, apply_rip, list_step_5
from rules.words import msg

_LISTERS = {2: list_step_2, 3: list_step_3, 4: list_step_4, 5: list_step_5}


_APPLIERS = {
    CALL_OUT: apply_call_out,
    REBUILD: apply_rebuild,
    MOVE_PAWN: apply_move,
    CLEAN_HOUSE: apply_clean_house,
    SHOOT_PAWN: apply_shoot,
    RIP_HEX: apply_rip,
    REINFORCE: apply_reinforce,
    BIG_RIP_OFF: apply_big_rip_off,
}


def legal_actions(state: State, gang: str) -> list[dict[str, Any]]:
    """Every pawn action `gang` can take now (steps 2-5), each accepted by `apply_action`."""
    lister = _LISTERS.get(state.step)
    return [] if lister is None else lister(state, gang)


def apply_action(state: State, gang: str, move: dict[str, Any]) -> State:
    """The state after the action; checks everything (costs included) before changing anything."""
    kind = move.get("type")
    if kind not in _APPLIERS:
        raise MalformedMove(msg("unknown action type {kind!r}", kind=kind), "unknown_move_type")
    if STEP_OF[kind] != state.step:
        raise IllegalMove(
            msg("{kind} belongs to step {step_of}, not step {step}", kind=kind, step_of=STEP_OF[kind], step=state.step), "wrong_step"
        )
    return _APPLIERS[kind](state, gang, move)


def start_turn(state: State) -> State:
    """A new turn: beaned pawns and big brothers that cleaned house return to their reserves,
    and the ledger starts empty."""
    ledger, reserves = state.ledger, state.reserves
    for gang, kind in ledger.beaned:
        if gang not in state.eliminated:
            reserves = reserves.add((gang, kind), 1)
    for gang in ledger.big_brother_out:
        if gang not in state.eliminated:
            reserves = reserves.add((gang, BIG_BROTHER), 1)
    return state.with_(reserves=reserves, ledger=Ledger.empty())
