"""Home turf and isolation.

A gang's home turf is the set of its own hexes connected to the hex holding its clubhouse, when
that set has at least two hexes. Two own hexes that both touch the Toxic Waste are connected
through it (the book's territory example), but the Toxic Waste itself never counts. Every other
hex of a gang is isolated: its pawns do nothing until reconnected. A gang whose clubhouse is
destroyed has no home turf (RULINGS: its home turf counts 0).

Results are cached on the state object (states are immutable, so a cache never goes stale), and
shared between states with the same clubhouse hex and own hexes (`_home_turf_of`).
"""

from __future__ import annotations

from functools import lru_cache

from rules.terrain_vague import bits, data
from rules.terrain_vague.hexes import CENTRE, Hex
from rules.terrain_vague.state import State

_CACHE = "_home_turf_cache"


def turf_masks(state: State) -> tuple[int, dict[str, int]]:
    """The board's hexes, and each gang's own hexes, as bits (`bits`); cached per board
    (`_turf_masks`), which a pawn's move or a paid point leaves alone."""
    cache = state.__dict__
    if "_turf_masks" not in cache:
        bit = bits.layout(state.radius).bit
        cells, own = 0, {}
        for hex_, turf in state.board.items():
            cells |= bit[hex_]
            if turf is not None:
                own[turf.gang] = own.get(turf.gang, 0) | bit[hex_]
        cache["_turf_masks"] = (cells, own)
    return cache["_turf_masks"]


def home_turf(state: State, gang: str) -> frozenset[Hex]:
    """The gang's home turf: empty while its clubhouse is destroyed or stands alone."""
    cache = state.__dict__.setdefault(_CACHE, {})
    if gang not in cache:
        cache[gang] = _compute_home_turf(state, gang)
    return cache[gang]


def _compute_home_turf(state: State, gang: str) -> frozenset[Hex]:
    clubhouse = state.clubhouses.get(gang)
    if clubhouse is None:
        return frozenset()
    _, own = turf_masks(state)
    return _home_turf_of(state.radius, clubhouse, own.get(gang, 0))


# A home turf depends on the clubhouse's hex and the gang's own hexes alone; a search's states,
# each new, keep asking it for the few layouts their moves make. Bounded, as states are not.
@lru_cache(maxsize=1 << 12)
def _home_turf_of(radius: int, clubhouse: Hex, own: int) -> frozenset[Hex]:
    """The own hexes (bits `own`) connected to the clubhouse through own hexes and the Toxic
    Waste, when the clubhouse stands on its own turf and they are enough to make a home turf."""
    grid = bits.layout(radius)
    start = grid.bit[clubhouse]
    if not own & start:
        return frozenset()
    centre = grid.bit[CENTRE]
    area = bits.flood(grid, start, own | centre) & ~centre
    connected = frozenset(bits.hexes_of(grid, area))
    return connected if len(connected) >= data.MIN_HOME_TURF else frozenset()


def home_turf_size(state: State, gang: str) -> int:
    return len(home_turf(state, gang))


def is_isolated(state: State, hex_: Hex) -> bool:
    """True for a hex of turf outside its owner's home turf. A standing clubhouse's own hex is
    never isolated (the book: "your clubhouse is never isolated"); the Toxic Waste never is."""
    turf = state.board.get(hex_)
    if turf is None:
        return False
    if state.clubhouses.get(turf.gang) == hex_:
        return False
    return hex_ not in home_turf(state, turf.gang)


def own_hex_count(state: State, gang: str) -> int:
    """Every hex of the gang's turf on the board, home or isolated (the first end tie-break)."""
    return sum(1 for turf in state.board.values() if turf is not None and turf.gang == gang)
