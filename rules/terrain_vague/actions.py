"""Terrain Vague pawn actions of steps 2-5: call-out, moves, the big brother, slingshots, rips.

The engine (engine.py) routes every move whose type is in `ACTION_TYPES` here while it is the
acting gang's turn in steps 2-5; `legal_actions` lists every such move the gang can make now
(the engine adds `end_step`). `apply_action` checks everything, costs included, before it
changes anything. Lines, ranges and relays are in `lines.py`, lids in `protection.py`, the
cost table in `costs.py`, the per-turn bookkeeping in `ledger.py`.

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
- The rebuild goes on any empty hex of the gang's colour (not along lines); the engine
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

from collections import Counter
from typing import Any

from rules.errors import IllegalMove, MalformedMove
from rules.terrain_vague import costs
from rules.terrain_vague.data import (
    BIG_BROTHER,
    CLUBHOUSE,
    LID,
    PAWN_KINDS,
    SLINGSHOT,
    TOUGH,
    WHEELBARROW,
    WIMPY,
)
from rules.terrain_vague.hexes import CENTRE, Hex, from_json, neighbours_on_board, to_json
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.lines import CLEAN, MOVE, RIP, SHOOT, Board, targets
from rules.terrain_vague.protection import protection
from rules.terrain_vague.state import Pawn, State
from rules.terrain_vague.territory import home_turf

CALL_OUT = "call_out"
REBUILD = "rebuild"
MOVE_PAWN = "move"
CLEAN_HOUSE = "clean_house"
SHOOT_PAWN = "shoot"
RIP_HEX = "rip"
REINFORCE = "reinforce"
BIG_RIP_OFF = "big_rip_off"

STEP_OF: dict[str, int] = {
    CALL_OUT: 2,
    REBUILD: 2,
    MOVE_PAWN: 3,
    CLEAN_HOUSE: 3,
    SHOOT_PAWN: 4,
    RIP_HEX: 5,
    REINFORCE: 5,
    BIG_RIP_OFF: 5,
}
ACTION_TYPES: frozenset[str] = frozenset(STEP_OF)

RIPS_PER_WHEELBARROW = 2
WHOLE = "whole"


# --- the position as the actions see it -----------------------------------------------------


def board_of(state: State) -> Board:
    """The lines' view of the state, built once per state (states never change)."""
    cache = state.__dict__
    if "_lines_board" not in cache:
        cache["_lines_board"] = Board(
            cells=frozenset(state.board),
            toxic=CENTRE,
            turf={h: t.gang for h, t in state.board.items() if t is not None},
            pieces=state.occupants,
            clubhouses={g: h for g, h in state.clubhouses.items() if h is not None},
            reach=state.reach,
        )
    return cache["_lines_board"]


def current_ledger(state: State) -> Ledger:
    """The ledger with `moved` emptied when the step has changed since it was written."""
    ledger = state.ledger
    if ledger.step != state.step:
        ledger = ledger.with_(moved=(), step=state.step)
    return ledger


def protection_of(state: State, gang: str) -> Counter:
    """How many of `gang`'s lids protect each hex, cached per state."""
    cache = state.__dict__.setdefault("_protection", {})
    if gang not in cache:
        lids = [h for h, p in state.pawns.items() if p.gang == gang and p.kind == LID]
        cache[gang] = protection(board_of(state), gang, home_turf(state, gang), lids)
    return cache[gang]


def _added(items: tuple, item: Any) -> tuple:
    return tuple(sorted((*items, item)))


def _rips_used(ledger: Ledger, hex_: Hex) -> int:
    return dict(ledger.rips).get(hex_, 0)


def _with_rip(ledger: Ledger, hex_: Hex) -> Ledger:
    rips = dict(ledger.rips)
    rips[hex_] = rips.get(hex_, 0) + 1
    return ledger.with_(rips=tuple(sorted(rips.items())))


def _owner(state: State, hex_: Hex) -> str | None:
    turf = state.board.get(hex_)
    return None if turf is None else turf.gang


def _pay(state: State, gang: str, cost: int, what: str) -> Any:
    """The points after paying `cost`; raises before anything changes if the gang cannot."""
    points = state.points.get(gang, 0)
    if cost > points:
        raise IllegalMove(
            f"{what} costs {cost} action points; {gang} has {points}", "not_enough_points"
        )
    return state.points.add(gang, -cost)


def _strength_for(state: State, gang: str, wanted: str) -> str | None:
    """The strength the gang lays for a hex: `wanted`, else the other, else None (no supply)."""
    other = TOUGH if wanted == WIMPY else WIMPY
    for strength in (wanted, other):
        if state.supply(gang, strength) > 0:
            return strength
    return None


# --- reading moves -------------------------------------------------------------------------


def _hex_field(move: dict, name: str) -> Hex:
    if name not in move:
        raise MalformedMove(f"{move['type']} needs a {name!r} hex [q, r]", "missing_field")
    try:
        return from_json(move[name])
    except ValueError as error:
        raise MalformedMove(f"{move['type']} {name!r}: {error}", "bad_hex") from None


def _kind_field(move: dict) -> str:
    kind = move.get("kind")
    if kind not in PAWN_KINDS:
        raise MalformedMove(
            f"call_out needs a 'kind' among {', '.join(PAWN_KINDS)}, not {kind!r}", "bad_kind"
        )
    return kind


def _on_board(state: State, hex_: Hex, move: dict) -> Hex:
    if hex_ not in state.board:
        raise IllegalMove(f"{move['type']}: {to_json(hex_)} is not on the board", "off_board")
    return hex_


def _own_active_pawn(state: State, gang: str, hex_: Hex, kinds: tuple[str, ...], what: str) -> Pawn:
    """The gang's pawn of one of `kinds` on `hex_`, on its home turf; else IllegalMove."""
    pawn = state.pawns.get(hex_)
    if pawn is None or pawn.gang != gang:
        raise IllegalMove(f"{what}: no pawn of {gang} on {to_json(hex_)}", "no_such_pawn")
    if pawn.kind not in kinds:
        raise IllegalMove(
            f"{what}: the {pawn.kind} on {to_json(hex_)} cannot do that", "wrong_pawn"
        )
    if hex_ not in home_turf(state, gang):
        raise IllegalMove(f"{what}: the {pawn.kind} on {to_json(hex_)} is isolated", "isolated")
    return pawn


def _unchanged(ledger: Ledger, hex_: Hex, what: str) -> None:
    if hex_ in ledger.changed:
        raise IllegalMove(
            f"{what}: {to_json(hex_)} already changed this turn", "hex_changed_this_turn"
        )


# --- step 2: call-out and rebuild ----------------------------------------------------------


def _rebuild_hexes(state: State, gang: str) -> list[Hex]:
    occupied = state.occupants
    return sorted(
        h for h, t in state.board.items() if t is not None and t.gang == gang and h not in occupied
    )


def _call_out_hexes(state: State, gang: str) -> set[Hex]:
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is None or gang in current_ledger(state).rebuilt:
        return set()
    return targets(board_of(state), gang, MOVE, clubhouse)


def _list_step_2(state: State, gang: str) -> list[dict]:
    if state.clubhouses.get(gang) is None:
        return [{"type": REBUILD, "to": to_json(h)} for h in _rebuild_hexes(state, gang)]
    points = state.points.get(gang, 0)
    kinds = [k for k in PAWN_KINDS if state.reserve(gang, k) > 0 and costs.CALL_OUT[k] <= points]
    hexes = sorted(_call_out_hexes(state, gang)) if kinds else []
    return [{"type": CALL_OUT, "kind": k, "to": to_json(h)} for k in kinds for h in hexes]


def _check_destination(state: State, gang: str, to: Hex, move: dict) -> None:
    """The codes shared by call-out, rebuild and moves: the destination itself."""
    _on_board(state, to, move)
    if to == CENTRE:
        raise IllegalMove(f"{move['type']}: no piece may stay on the Toxic Waste", "toxic_waste")
    if to in state.occupants:
        raise IllegalMove(f"{move['type']}: {to_json(to)} is occupied", "occupied")
    if _owner(state, to) != gang:
        raise IllegalMove(f"{move['type']}: {to_json(to)} is not {gang}'s turf", "not_own_turf")


def _apply_call_out(state: State, gang: str, move: dict) -> State:
    kind, to = _kind_field(move), _hex_field(move, "to")
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is None:
        raise IllegalMove(
            f"call_out: {gang}'s clubhouse is destroyed; rebuild it", "clubhouse_destroyed"
        )
    if gang in current_ledger(state).rebuilt:
        raise IllegalMove(f"call_out: {gang} rebuilt its clubhouse this step", "rebuilt_this_step")
    if state.reserve(gang, kind) <= 0:
        raise IllegalMove(f"call_out: {gang} has no {kind} in reserve", "none_in_reserve")
    _check_destination(state, gang, to, move)
    if to not in _call_out_hexes(state, gang):
        raise IllegalMove(
            f"call_out: {to_json(to)} is not in range of the clubhouse", "out_of_range"
        )
    points = _pay(state, gang, costs.CALL_OUT[kind], f"calling out a {kind}")
    return state.with_(
        pawns=state.pawns.set(to, Pawn(gang, kind)),
        reserves=state.reserves.add((gang, kind), -1),
        points=points,
        ledger=current_ledger(state),
    )


def _apply_rebuild(state: State, gang: str, move: dict) -> State:
    to = _hex_field(move, "to")
    if state.clubhouses.get(gang) is not None:
        raise IllegalMove(f"rebuild: {gang}'s clubhouse is standing", "clubhouse_standing")
    _check_destination(state, gang, to, move)
    points = _pay(state, gang, costs.REBUILD_CLUBHOUSE, "rebuilding the clubhouse")
    ledger = current_ledger(state)
    return state.with_(
        clubhouses=state.clubhouses.set(gang, to),
        points=points,
        ledger=ledger.with_(rebuilt=_added(ledger.rebuilt, gang)),
    )


# --- step 3: moves and the big brother -----------------------------------------------------


def _clubhouse_destinations(state: State, gang: str) -> list[Hex]:
    return _rebuild_hexes(state, gang)  # any empty hex of its own colour


def _active_pawns(state: State, gang: str, kinds: tuple[str, ...]) -> list[tuple[Hex, Pawn]]:
    home = home_turf(state, gang)
    return sorted(
        (h, p) for h, p in state.pawns.items() if p.gang == gang and p.kind in kinds and h in home
    )


def _list_step_3(state: State, gang: str) -> list[dict]:
    ledger, points, board = current_ledger(state), state.points.get(gang, 0), board_of(state)
    moves: list[dict] = []
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is not None and clubhouse not in ledger.moved and costs.MOVE[CLUBHOUSE] <= points:
        for to in _clubhouse_destinations(state, gang):
            moves.append({"type": MOVE_PAWN, "from": to_json(clubhouse), "to": to_json(to)})
    for hex_, pawn in _active_pawns(state, gang, PAWN_KINDS):
        if hex_ in ledger.moved:
            continue
        if costs.MOVE[pawn.kind] <= points:
            for to in sorted(targets(board, gang, MOVE, hex_)):
                moves.append({"type": MOVE_PAWN, "from": to_json(hex_), "to": to_json(to)})
        if pawn.kind == BIG_BROTHER and costs.CLEAN_HOUSE <= points:
            for to in sorted(_clean_targets(state, gang, hex_, ledger)):
                moves.append({"type": CLEAN_HOUSE, "from": to_json(hex_), "to": to_json(to)})
    return moves


def _not_moved(ledger: Ledger, hex_: Hex, move: dict) -> None:
    if hex_ in ledger.moved:
        raise IllegalMove(
            f"{move['type']}: the piece on {to_json(hex_)} already acted this step",
            "already_moved",
        )


def _apply_move(state: State, gang: str, move: dict) -> State:
    start, to = _hex_field(move, "from"), _hex_field(move, "to")
    ledger = current_ledger(state)
    if state.clubhouses.get(gang) == start and start is not None:
        return _apply_clubhouse_move(state, gang, move, start, to, ledger)
    pawn = _own_active_pawn(state, gang, start, PAWN_KINDS, "move")
    _not_moved(ledger, start, move)
    _check_destination(state, gang, to, move)
    if to not in targets(board_of(state), gang, MOVE, start):
        raise IllegalMove(
            f"move: {to_json(to)} is not in range of {to_json(start)} along a clear line",
            "out_of_range",
        )
    points = _pay(state, gang, costs.MOVE[pawn.kind], f"moving a {pawn.kind}")
    return state.with_(
        pawns=state.pawns.without(start).set(to, pawn),
        points=points,
        ledger=ledger.with_(moved=_added(ledger.moved, to)),
    )


def _apply_clubhouse_move(
    state: State, gang: str, move: dict, start: Hex, to: Hex, ledger: Ledger
) -> State:
    _not_moved(ledger, start, move)
    _check_destination(state, gang, to, move)
    points = _pay(state, gang, costs.MOVE[CLUBHOUSE], "moving the clubhouse")
    return state.with_(
        clubhouses=state.clubhouses.set(gang, to),
        points=points,
        ledger=ledger.with_(moved=_added(ledger.moved, to)),
    )


def _clean_targets(state: State, gang: str, start: Hex, ledger: Ledger) -> set[Hex]:
    """Hexes the big brother may clean: in reach, unchanged this turn, with supply to lay."""
    if _strength_for(state, gang, TOUGH) is None:
        return set()
    return {h for h in targets(board_of(state), gang, CLEAN, start) if h not in ledger.changed}


def _apply_clean_house(state: State, gang: str, move: dict) -> State:
    start, to = _hex_field(move, "from"), _hex_field(move, "to")
    ledger = current_ledger(state)
    _own_active_pawn(state, gang, start, (BIG_BROTHER,), "clean_house")
    _not_moved(ledger, start, move)
    _on_board(state, to, move)
    _check_clean_target(state, gang, to)
    _unchanged(ledger, to, "clean_house")
    if to not in targets(board_of(state), gang, CLEAN, start):
        raise IllegalMove(
            f"clean_house: {to_json(to)} is not in range of {to_json(start)} along a clear line",
            "out_of_range",
        )
    strength = _strength_for(state, gang, TOUGH)
    if strength is None:
        raise IllegalMove(f"clean_house: {gang} has no turf hex left in its supply", "no_supply")
    points = _pay(state, gang, costs.CLEAN_HOUSE, "cleaning house")
    return _clean(state.with_(points=points), gang, start, to, strength, ledger)


def _check_clean_target(state: State, gang: str, to: Hex) -> None:
    if to == CENTRE:
        raise IllegalMove("clean_house: the Toxic Waste cannot be taken", "toxic_waste")
    if _owner(state, to) == gang:
        raise IllegalMove(f"clean_house: {to_json(to)} is already {gang}'s turf", "own_turf")
    occupant = state.occupants.get(to)
    if occupant is not None and occupant.kind == CLUBHOUSE:
        raise IllegalMove(f"clean_house: never on a clubhouse ({to_json(to)})", "clubhouse")


def _clean(state: State, gang: str, start: Hex, to: Hex, strength: str, ledger: Ledger) -> State:
    """The hex becomes the gang's; a pawn on it is replaced; the big brother leaves or stays."""
    victim = state.pawns.get(to)
    state = state.with_turf(to, gang, strength)
    pawns, reserves = state.pawns.without(start).without(to), state.reserves
    ledger = ledger.with_(changed=_added(ledger.changed, to))
    if victim is not None:
        ledger = ledger.with_(beaned=_added(ledger.beaned, (victim.gang, victim.kind)))
    if victim is not None and victim.kind == BIG_BROTHER:
        pawns = pawns.set(to, Pawn(gang, BIG_BROTHER))  # against a big brother, it stays
        ledger = ledger.with_(moved=_added(ledger.moved, to))
    else:
        ledger = ledger.with_(big_brother_out=_added(ledger.big_brother_out, gang))
        if victim is not None and state.reserve(gang, victim.kind) > 0:
            pawns = pawns.set(to, Pawn(gang, victim.kind))
            reserves = reserves.add((gang, victim.kind), -1)
            ledger = ledger.with_(moved=_added(ledger.moved, to))
    return state.with_(pawns=pawns, reserves=reserves, ledger=ledger)


# --- step 4: slingshots --------------------------------------------------------------------


def bean_cost(state: State, target: Hex) -> int:
    """The price of beaning the piece on `target`: its kind's cost x its lids (+1)."""
    piece = state.occupants[target]
    if piece.kind == CLUBHOUSE:
        return costs.BEAN[CLUBHOUSE]
    lids = protection_of(state, piece.gang)[target]
    return costs.BEAN[piece.kind] * costs.multiplier(lids)


def _list_step_4(state: State, gang: str) -> list[dict]:
    ledger, points, board = current_ledger(state), state.points.get(gang, 0), board_of(state)
    moves = []
    for hex_, _ in _active_pawns(state, gang, (SLINGSHOT,)):
        if hex_ in ledger.fired:
            continue
        for at in sorted(targets(board, gang, SHOOT, hex_)):
            if bean_cost(state, at) <= points:
                moves.append({"type": SHOOT_PAWN, "from": to_json(hex_), "at": to_json(at)})
    return moves


def _apply_shoot(state: State, gang: str, move: dict) -> State:
    start, at = _hex_field(move, "from"), _hex_field(move, "at")
    ledger = current_ledger(state)
    _own_active_pawn(state, gang, start, (SLINGSHOT,), "shoot")
    if start in ledger.fired:
        raise IllegalMove(
            f"shoot: the slingshot on {to_json(start)} already fired this turn", "already_fired"
        )
    _on_board(state, at, move)
    target = state.occupants.get(at)
    if target is None:
        raise IllegalMove(f"shoot: nothing to bean on {to_json(at)}", "no_target")
    if target.gang == gang:
        raise IllegalMove(f"shoot: the {target.kind} on {to_json(at)} is {gang}'s own", "own_gang")
    if at not in targets(board_of(state), gang, SHOOT, start):
        raise IllegalMove(
            f"shoot: {to_json(at)} is not in range of {to_json(start)} along a clear line",
            "out_of_range",
        )
    points = _pay(state, gang, bean_cost(state, at), f"beaning the {target.kind} on {to_json(at)}")
    ledger = ledger.with_(fired=_added(ledger.fired, start))
    return _bean(state.with_(points=points), at, target, ledger)


def _bean(state: State, at: Hex, target: Pawn, ledger: Ledger) -> State:
    if target.kind == CLUBHOUSE:
        return state.with_(
            clubhouses=state.clubhouses.set(target.gang, None),
            ledger=ledger.with_(destroyed=_added(ledger.destroyed, target.gang)),
        )
    return state.with_(
        pawns=state.pawns.without(at),
        ledger=ledger.with_(beaned=_added(ledger.beaned, (target.gang, target.kind))),
    )


# --- step 5: wheelbarrows and the big rip-off ----------------------------------------------


def enclosed_areas(state: State, gang: str) -> list[frozenset]:
    """Every area the gang encloses: a maximal connected run of hexes not its own (the Toxic
    Waste may be one), with no pawn and no clubhouse, holding at least one owned hex."""
    cache = state.__dict__.setdefault("_enclosed", {})
    if gang not in cache:
        cache[gang] = _compute_enclosed_areas(state, gang)
    return cache[gang]


def _compute_enclosed_areas(state: State, gang: str) -> list[frozenset]:
    seen: set[Hex] = set()
    areas = []
    for start in sorted(state.board):
        if start in seen or _owner(state, start) == gang:
            continue
        area = _area_from(state, gang, start)
        seen |= area
        if not any(h in state.occupants for h in area) and any(h != CENTRE for h in area):
            areas.append(frozenset(area))
    return areas


def _area_from(state: State, gang: str, start: Hex) -> set[Hex]:
    area, frontier = {start}, [start]
    while frontier:
        for near in neighbours_on_board(frontier.pop(), state.radius):
            if near not in area and near in state.board and _owner(state, near) != gang:
                area.add(near)
                frontier.append(near)
    return area


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
        if turf.gang != gang and _strength_for(state, gang, turf.strength) is not None:
            found.append((RIP_HEX, hex_))
        elif turf.gang == gang and _reinforceable(state, gang, hex_, home):
            found.append((REINFORCE, hex_))
    return found


def _reinforceable(state: State, gang: str, hex_: Hex, home: frozenset) -> bool:
    return state.board[hex_].strength == WIMPY and hex_ in home and state.supply(gang, TOUGH) > 0


def _list_step_5(state: State, gang: str) -> list[dict]:
    ledger, points = current_ledger(state), state.points.get(gang, 0)
    moves = []
    for hex_, _ in _active_pawns(state, gang, (WHEELBARROW,)):
        if _rips_used(ledger, hex_) >= RIPS_PER_WHEELBARROW:
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
    start = _hex_field(move, "from")
    _own_active_pawn(state, gang, start, (WHEELBARROW,), move["type"])
    if _rips_used(ledger, start) >= RIPS_PER_WHEELBARROW:
        raise IllegalMove(
            f"{move['type']}: the wheelbarrow on {to_json(start)} used both rips", "no_rips_left"
        )
    return start


def _check_rip_reach(state: State, gang: str, start: Hex, at: Hex, move: dict) -> None:
    if at not in targets(board_of(state), gang, RIP, start):
        raise IllegalMove(
            f"{move['type']}: {to_json(at)} is not the first other hex on a clear line"
            f" in range of {to_json(start)}",
            "out_of_range",
        )


def _apply_rip(state: State, gang: str, move: dict) -> State:
    ledger = current_ledger(state)
    start = _wheelbarrow(state, gang, move, ledger)
    at = _on_board(state, _hex_field(move, "at"), move)
    turf = state.board[at]
    if turf is None:
        raise IllegalMove("rip: the Toxic Waste cannot be taken", "toxic_waste")
    if turf.gang == gang:
        raise IllegalMove(
            f"rip: {to_json(at)} is {gang}'s own turf (reinforce it instead)", "own_turf"
        )
    if at in state.occupants:
        raise IllegalMove(f"rip: {to_json(at)} is occupied", "occupied")
    _unchanged(ledger, at, "rip")
    _check_rip_reach(state, gang, start, at, move)
    strength = _strength_for(state, gang, turf.strength)
    if strength is None:
        raise IllegalMove(f"rip: {gang} has no turf hex left in its supply", "no_supply")
    points = _pay(state, gang, _wheelbarrow_rip_cost(state, gang, at), f"ripping off {to_json(at)}")
    ledger = _with_rip(ledger, start).with_(changed=_added(ledger.changed, at))
    return state.with_(points=points).with_turf(at, gang, strength).with_(ledger=ledger)


def _apply_reinforce(state: State, gang: str, move: dict) -> State:
    ledger = current_ledger(state)
    start = _wheelbarrow(state, gang, move, ledger)
    at = _on_board(state, _hex_field(move, "at"), move)
    turf = state.board[at]
    if turf is None or turf.gang != gang or at not in home_turf(state, gang):
        raise IllegalMove(f"reinforce: {to_json(at)} is not {gang}'s home turf", "not_home_turf")
    if turf.strength != WIMPY:
        raise IllegalMove(f"reinforce: {to_json(at)} is already tough", "already_tough")
    if at in state.occupants:
        raise IllegalMove(f"reinforce: {to_json(at)} is occupied", "occupied")
    _unchanged(ledger, at, "reinforce")
    _check_rip_reach(state, gang, start, at, move)
    if state.supply(gang, TOUGH) <= 0:
        raise IllegalMove(f"reinforce: {gang} has no tough hex left in its supply", "no_supply")
    points = _pay(state, gang, costs.REINFORCE, f"reinforcing {to_json(at)}")
    ledger = _with_rip(ledger, start).with_(changed=_added(ledger.changed, at))
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
        return "a hex of the area already changed this turn", "hex_changed_this_turn"
    if _big_rip_off_layout(state, gang, area) is None:
        return f"{gang}'s supply cannot cover the area", "no_supply"
    return None


def _apply_big_rip_off(state: State, gang: str, move: dict) -> State:
    at = _on_board(state, _hex_field(move, "at"), move)
    ledger = current_ledger(state)
    if state.option("rip_off") != WHOLE:
        raise IllegalMove(
            "big_rip_off: option rip_off is 'halved' (rip enclosed hexes one by one)",
            "no_big_rip_off",
        )
    if state.clubhouses.get(gang) is None:
        raise IllegalMove(f"big_rip_off: {gang}'s clubhouse is destroyed", "clubhouse_destroyed")
    area = next((a for a in enclosed_areas(state, gang) if at in a), None)
    if area is None:
        raise IllegalMove(
            f"big_rip_off: {to_json(at)} is not in an area {gang} encloses", "not_enclosed"
        )
    problem = _big_rip_off_problem(state, gang, area, ledger)
    if problem is not None:
        raise IllegalMove(f"big_rip_off: {problem[0]}", problem[1])
    points = _pay(state, gang, _big_rip_off_cost(state, gang, area), "the big rip-off")
    state = state.with_(points=points)
    changed = ledger.changed
    for hex_, strength in _big_rip_off_layout(state, gang, area):
        state = state.with_turf(hex_, gang, strength)
        changed = _added(changed, hex_)
    return state.with_(ledger=ledger.with_(changed=changed))


# --- the interface with the engine ----------------------------------------------------------

_LISTERS = {2: _list_step_2, 3: _list_step_3, 4: _list_step_4, 5: _list_step_5}
_APPLIERS = {
    CALL_OUT: _apply_call_out,
    REBUILD: _apply_rebuild,
    MOVE_PAWN: _apply_move,
    CLEAN_HOUSE: _apply_clean_house,
    SHOOT_PAWN: _apply_shoot,
    RIP_HEX: _apply_rip,
    REINFORCE: _apply_reinforce,
    BIG_RIP_OFF: _apply_big_rip_off,
}


def legal_actions(state: State, gang: str) -> list[dict[str, Any]]:
    """Every pawn action `gang` can take now (steps 2-5), each accepted by `apply_action`."""
    lister = _LISTERS.get(state.step)
    return [] if lister is None else lister(state, gang)


def apply_action(state: State, gang: str, move: dict[str, Any]) -> State:
    """The state after the action; checks everything (costs included) before changing anything."""
    kind = move.get("type")
    if kind not in _APPLIERS:
        raise MalformedMove(f"unknown action type {kind!r}", "unknown_move_type")
    if STEP_OF[kind] != state.step:
        raise IllegalMove(
            f"{kind} belongs to step {STEP_OF[kind]}, not step {state.step}", "wrong_step"
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
