"""Setting up the Junkyard: gangs, the board (built or dealt), and the clubhouses.

- Gangs: with 4 players seat order follows the lots drawn from the seed; with 3, the lots also
  decide which gang stays out (the book: "by drawing lots"); with 2, option `gangs` names the
  pair, the first gang being seat 0's.
- Building order (and clubhouse order): descending turn-1 hideout points.
- `board=build`: each builder in turn places one hex from a stack that is not its own gang's
  (`{"type": "place_hex", "hex": [q, r], "gang": ..., "strength": "wimpy"|"tough"}`) on an empty
  position touching the Toxic Waste or a placed hex. Ruling: a builder left with only its own
  gang's stacks is skipped (others place those hexes), so building never stalls.
- `board=random`: the stacks are dealt at random over the positions.
- With 4 players the two positions the stacks leave empty are filled with hexes drawn at random
  from the unused supply.
- Clubhouses (`{"type": "place_clubhouse", "hex": [q, r]}`), in building order: on own turf, or
  on another gang's hex (not the Toxic Waste, not a clubhouse) sharing an edge with own turf; that
  hex becomes the placer's tough turf and the old one returns to its owner's supply.
"""

from __future__ import annotations

from bisect import insort
from functools import lru_cache
from operator import itemgetter
from typing import Any

from rules.errors import IllegalMove
from rules.rng import Rng
from rules.terrain_vague import data, hexes, words
from rules.terrain_vague.hexes import CENTRE, Hex
from rules.terrain_vague.ledger import Ledger
from rules.terrain_vague.moves import read_hex, read_stack
from rules.terrain_vague.state import BUILD, CLUBHOUSE_PLACEMENT, FrozenMap, State, Turf
from rules.words import msg

PLACE_HEX = "place_hex"
PLACE_CLUBHOUSE = "place_clubhouse"


# --- the starting state --------------------------------------------------------------------


def draw_gangs(players: int, options: dict[str, Any], rng: Rng) -> tuple[tuple[str, ...], Rng]:
    if players == 2:
        first, second = options["gangs"].split("-")
        return (first, second), rng
    shuffled, rng = rng.shuffled(data.GANGS)
    return shuffled[:players], rng


def building_order(gangs: tuple[str, ...]) -> tuple[str, ...]:
    """Descending turn-1 action points; the fixed gang order breaks ties."""
    return tuple(sorted(gangs, key=lambda g: (-data.HIDEOUT[g][0], data.GANGS.index(g))))


def initial_state(players: int, options: dict[str, Any], seed: str) -> State:
    rng = Rng(seed)
    seats, rng = draw_gangs(players, options, rng)
    order = building_order(seats)
    stack = data.STACKS[players]
    state = State(
        players=players,
        options=FrozenMap(options),
        seats=seats,
        phase=BUILD,
        turn=0,
        step=0,
        order=order,
        acting=order[0],
        board=FrozenMap({CENTRE: None}),
        pawns=FrozenMap(),
        clubhouses=FrozenMap({g: None for g in seats}),
        reserves=FrozenMap({(g, k): n for g in seats for k, n in data.PAWNS_PER_GANG.items()}),
        stacks=FrozenMap({(g, s): stack[s] for g in data.GANGS for s in data.STRENGTHS}),
        supplies=FrozenMap(
            {
                (g, s): data.SUPPLY_PER_STRENGTH - stack[s]
                for g in data.GANGS
                for s in data.STRENGTHS
            }
        ),
        points=FrozenMap({g: 0 for g in seats}),
        challenges=FrozenMap(),
        eliminated=(),
        duels=(),
        wrestled=(),
        cancelled=FrozenMap(),
        ledger=Ledger.empty(),
        rng=rng,
    )
    if options["board"] == "random":
        return start_clubhouses(deal_board(state))
    return state


def deal_board(state: State) -> State:
    """board=random: every stack hex dealt onto a random empty position, then the fill."""
    pool = [key for key, count in sorted(state.stacks.items()) for _ in range(count)]
    positions = [h for h in hexes.board_hexes(state.radius) if h != CENTRE]
    dealt, rng = state.rng.shuffled(pool)
    board = {CENTRE: None, **{h: Turf(*key) for h, key in zip(positions, dealt)}}
    stacks = FrozenMap({key: 0 for key in state.stacks})
    return fill_from_supply(state.with_(board=FrozenMap(board), stacks=stacks, rng=rng))


def fill_from_supply(state: State) -> State:
    """Positions the stacks left empty get hexes drawn at random from the unused supply."""
    supplies, board, rng = state.supplies, state.board, state.rng
    for position in hexes.board_hexes(state.radius):
        if position in board:
            continue
        pool = [key for key, count in sorted(supplies.items()) for _ in range(count)]
        key, rng = rng.choice(pool)
        board = board.set(position, Turf(*key))
        supplies = supplies.add(key, -1)
    return state.with_(board=board, supplies=supplies, rng=rng)


# --- building ------------------------------------------------------------------------------


def open_positions(state: State) -> tuple[Hex, ...]:
    """Empty positions sharing an edge with a placed hex (the Toxic Waste included), by row.
    Cached on the state (`_open_positions`); `apply_build` hands the next state its own."""
    cache = state.__dict__
    if "_open_positions" not in cache:
        board, near = state.board, hexes.neighbour_table(state.radius)
        cache["_open_positions"] = _by_row({n for h in board for n in near[h] if n not in board})
    return cache["_open_positions"]


def _by_row(positions: set[Hex]) -> tuple[Hex, ...]:
    return tuple(sorted(positions, key=_ROW_FIRST))


_ROW_FIRST = itemgetter(1, 0)  # (r, q): the board's reading order


def _open_after(state: State, placed: Hex, board: FrozenMap) -> tuple[Hex, ...]:
    """The open positions once `placed` is built on `state`'s board (giving `board`): it closes,
    its empty neighbours open. The few that open are put in their row's place rather than the
    whole list sorted again (a build move's largest cost after the legal moves' listing)."""
    positions = list(open_positions(state))
    if placed in positions:
        positions.remove(placed)
    for near in hexes.neighbours_on_board(placed, state.radius):
        if near not in board and near not in positions:
            insort(positions, near, key=_ROW_FIRST)
    return tuple(positions)


def _is_open(state: State, position: Hex) -> bool:
    return position not in state.board and any(
        n in state.board for n in hexes.neighbours_on_board(position, state.radius)
    )


def placeable_stacks(state: State, gang: str) -> tuple[tuple[str, str], ...]:
    stacks = state.stacks
    return tuple(key for key in _sorted_keys(stacks) if key[0] != gang and stacks[key] > 0)


def _sorted_keys(stacks: FrozenMap) -> tuple[tuple[str, str], ...]:
    """The stacks' keys in order; the same every game, so sorted once per set of keys."""
    return _sorted_tuple(frozenset(stacks))


@lru_cache(maxsize=None)
def _sorted_tuple(keys: frozenset) -> tuple:
    return tuple(sorted(keys))


def build_moves(state: State, gang: str) -> list[dict[str, Any]]:
    stacks = placeable_stacks(state, gang)
    return [
        {"type": PLACE_HEX, "hex": [q, r], "gang": g, "strength": s}
        for q, r in open_positions(state)
        for g, s in stacks
    ]


def apply_build(state: State, gang: str, move: dict[str, Any]) -> State:
    position, key = read_hex(move), read_stack(move)
    problem = _build_problem(state, gang, position, key)
    if problem is not None:
        message, code = problem
        raise IllegalMove(msg("place_hex at {position}: {message}", position=hexes.to_json(position), message=message), code)
    built = state.with_(
        board=state.board.set(position, Turf(*key)), stacks=state.stacks.add(key, -1)
    )
    built.__dict__["_open_positions"] = _open_after(state, position, built.board)
    return next_builder(built)


def _build_problem(
    state: State, gang: str, position: Hex, key: tuple[str, str]
) -> tuple[str, str] | None:
    """(message, code) of what forbids placing `key`'s hex on `position`, or None."""
    if not hexes.on_board(position, state.radius):
        return msg("off the board (radius {radius})", radius=state.radius), "off_board"
    if position in state.board:
        return msg("that position is already built"), "position_taken"
    if not _is_open(state, position):
        return msg("it must touch the Toxic Waste or a placed hex"), "not_adjacent"
    if key[0] == gang:
        return msg("{gang} may not place its own turf", gang=words.gang(gang)), "own_stack"
    if state.stacks[key] <= 0:
        return msg("the {key} {key2} stack is empty", key=key[0], key2=key[1]), "stack_empty"
    return None


def next_builder(state: State) -> State:
    """The next builder in order with a stack to take from; once the stacks are empty, the fill
    and then the clubhouses."""
    if not any(state.stacks.values()):
        return start_clubhouses(fill_from_supply(state))
    builders = [g for g in state.order if g in state.in_play]
    start = builders.index(state.acting) + 1 if state.acting in builders else 0
    for offset in range(len(builders)):
        candidate = builders[(start + offset) % len(builders)]
        if placeable_stacks(state, candidate):
            return state.with_(acting=candidate)
    # Only eliminated gangs could place what is left: the dealer finishes the board.
    return start_clubhouses(fill_rest_at_random(state))


def fill_rest_at_random(state: State) -> State:
    """Deal whatever is left in the stacks (only after forfeits), then the fill."""
    empties = [h for h in hexes.board_hexes(state.radius) if h not in state.board]
    pool = [key for key, count in sorted(state.stacks.items()) for _ in range(count)]
    dealt, rng = state.rng.shuffled(pool)
    board = state.board.updated(zip(empties, (Turf(*k) for k in dealt)))
    stacks = FrozenMap({key: 0 for key in state.stacks})
    return fill_from_supply(state.with_(board=board, stacks=stacks, rng=rng))


# --- clubhouses ----------------------------------------------------------------------------


def start_clubhouses(state: State) -> State:
    first = next(g for g in state.order if g in state.in_play)
    return state.with_(phase=CLUBHOUSE_PLACEMENT, acting=first)


def clubhouse_sites(state: State, gang: str) -> tuple[Hex, ...]:
    """Where `gang` may place its clubhouse, by row. Kept on the state (`_clubhouse_sites`, which
    `State.with_` drops as it drops every cache it does not know): the placement's check asks
    again what the listing found."""
    memo = state.__dict__.setdefault("_clubhouse_sites", {})
    sites = memo.get(gang)
    if sites is None:
        sites = memo[gang] = _clubhouse_sites(state, gang)
    return sites


def _clubhouse_sites(state: State, gang: str) -> tuple[Hex, ...]:
    taken = {h for h in state.clubhouses.values() if h is not None}
    tough_left = state.supply(gang, data.TOUGH) > 0
    sites = []
    for h, turf in sorted(state.board.items()):
        if turf is None or h in taken:
            continue
        if turf.gang == gang or (tough_left and _touches_own_turf(state, h, gang)):
            sites.append(h)
    return tuple(sites)


def _touches_own_turf(state: State, hex_: Hex, gang: str) -> bool:
    for near in hexes.neighbours_on_board(hex_, state.radius):
        turf = state.board.get(near)
        if turf is not None and turf.gang == gang:
            return True
    return False


def clubhouse_moves(state: State, gang: str) -> list[dict[str, Any]]:
    sites = clubhouse_sites(state, gang)
    return [{"type": PLACE_CLUBHOUSE, "hex": hexes.to_json(h)} for h in sites]


def apply_clubhouse(state: State, gang: str, move: dict[str, Any]) -> State:
    """Place the clubhouse; the caller moves on to the next gang."""
    site = read_hex(move)
    where = msg("place_clubhouse at {hex}", hex=hexes.to_json(site))
    if site not in state.board or state.board[site] is None:
        raise IllegalMove(msg("{where}: not a hex of turf on the board", where=where), "not_turf")
    if site in clubhouse_sites(state, gang):
        turf = state.board[site]
        if turf.gang != gang:
            state = state.with_turf(site, gang, data.TOUGH)
        return state.with_(clubhouses=state.clubhouses.set(gang, site))
    if site in state.clubhouses.values():
        raise IllegalMove(msg("{where}: another clubhouse stands there", where=where), "occupied")
    raise IllegalMove(
        msg("{where}: a clubhouse goes on own turf or on enemy turf touching own turf", where=where),
        "not_next_to_own_turf",
    )


def next_clubhouse_placer(state: State) -> str | None:
    return next(
        (g for g in state.order if g in state.in_play and state.clubhouses.get(g) is None), None
    )
