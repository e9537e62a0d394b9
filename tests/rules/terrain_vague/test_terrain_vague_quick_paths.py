"""The playout speed-ups (issue 54) against the plain ways they replaced, in every position of
random games: home turf and enclosed areas flooded as bits, the turf caches carried over a hex
changing hands, and a FrozenMap that is a dict underneath but never changes."""

from __future__ import annotations

import pickle
import random

import pytest

from rules.terrain_vague import RULES, bits
from rules.terrain_vague.hexes import CENTRE, neighbours_on_board
from rules.terrain_vague.position import turf_gangs
from rules.terrain_vague.setup import _by_row, _clubhouse_sites, clubhouse_sites, open_positions
from rules.terrain_vague.state import BUILD, CLUBHOUSE_PLACEMENT, OVER, FrozenMap
from rules.terrain_vague.territory import home_turf, turf_masks
from rules.terrain_vague.wheelbarrows import enclosed_areas


def _positions(players: int, games: int):
    rnd = random.Random(players)
    for n in range(games):
        state = RULES.setup(players, {}, f"quick-{players}-{n}")
        while state.phase != OVER:
            yield state
            seat = rnd.choice(RULES.to_act(state))
            state = RULES.apply(state, seat, rnd.choice(RULES.legal_moves(state, seat)))


def _plain_home_turf(state, gang):
    clubhouse = state.clubhouses.get(gang)
    turf = state.board.get(clubhouse) if clubhouse is not None else None
    if turf is None or turf.gang != gang:
        return frozenset()
    seen, frontier = {clubhouse}, [clubhouse]
    while frontier:
        for near in neighbours_on_board(frontier.pop(), state.radius):
            owned = state.board.get(near)
            if near not in seen and (near == CENTRE or (owned is not None and owned.gang == gang)):
                seen.add(near)
                frontier.append(near)
    seen.discard(CENTRE)
    return frozenset(seen) if len(seen) >= 2 else frozenset()


def _plain_enclosed_areas(state, gang):
    seen, areas = set(), []
    for start in sorted(state.board):
        owned = state.board[start]
        if start in seen or (owned is not None and owned.gang == gang):
            continue
        area, frontier = {start}, [start]
        while frontier:
            for near in neighbours_on_board(frontier.pop(), state.radius):
                turf = state.board.get(near, "off")
                if near in area or turf == "off" or (turf is not None and turf.gang == gang):
                    continue
                area.add(near)
                frontier.append(near)
        seen |= area
        if not any(h in state.occupants for h in area) and any(h != CENTRE for h in area):
            areas.append(frozenset(area))
    return areas


@pytest.mark.parametrize("players", [2, 4])
def test_the_floods_and_turf_caches_agree_with_the_plain_ways(players: int) -> None:
    checked = 0
    for state in _positions(players, 3):
        if state.turn == 0:
            continue
        cells, own = turf_masks(state)
        grid = bits.layout(state.radius)
        assert cells == bits.mask(grid, state.board)
        assert turf_gangs(state)[1] == {h: t.gang for h, t in state.board.items() if t is not None}
        for gang in state.gangs:
            owned = [h for h, t in state.board.items() if t is not None and t.gang == gang]
            assert own.get(gang, 0) == bits.mask(grid, owned)
            assert home_turf(state, gang) == _plain_home_turf(state, gang)
            assert enclosed_areas(state, gang) == _plain_enclosed_areas(state, gang)
        checked += 1
    assert checked > 100


def test_a_frozen_map_never_changes_in_place_and_survives_a_pickle() -> None:
    frozen = FrozenMap({"a": 1})
    for change in (lambda m: m.__setitem__("b", 2), lambda m: m.update(b=2),
                   lambda m: m.pop("a"), lambda m: m.clear(), lambda m: m.setdefault("b", 2)):
        with pytest.raises(TypeError):
            change(frozen)
    assert frozen == {"a": 1} and frozen.set("b", 2) == {"a": 1, "b": 2}
    assert frozen.without("a") == {} and frozen.add("a", 2) == {"a": 3}
    assert pickle.loads(pickle.dumps(frozen)) == frozen
    assert hash(FrozenMap({"a": 1})) == hash(frozen)


@pytest.mark.parametrize("players", [2, 4])
def test_clubhouse_sites_kept_on_a_state_are_the_ones_worked_out_afresh(players: int) -> None:
    """The sites are kept on the state the listing asked (the placement asks again); the next
    state, made by `with_`, must work them out anew, since a placement changes them."""
    checked = 0
    for state in _positions(players, 2):
        if state.phase != CLUBHOUSE_PLACEMENT:
            continue
        gang = state.acting
        listed = clubhouse_sites(state, gang)
        assert listed == _clubhouse_sites(state, gang)
        site = listed[0]
        after = RULES.apply(state, state.seat_of(gang), {"type": "place_clubhouse", "hex": list(site)})
        assert "_clubhouse_sites" not in after.__dict__
        for other in after.gangs:
            assert clubhouse_sites(after, other) == _clubhouse_sites(after, other)
            assert site not in clubhouse_sites(after, other)
        checked += 1
    assert checked >= 2 * players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_open_positions_carried_by_a_build_are_the_ones_worked_out_afresh(players: int) -> None:
    """`apply_build` hands the next state its open positions (the placed one closed, its empty
    neighbours put in their row's place); they must be what the board gives worked out anew."""
    checked = 0
    for state in _positions(players, 2):
        if state.phase != BUILD or "_open_positions" not in state.__dict__:
            continue
        carried = open_positions(state)
        fresh = _by_row({n for h in state.board for n in neighbours_on_board(h, state.radius)
                         if n not in state.board})
        assert carried == fresh
        checked += 1
    assert checked > 20 * players
