"""The Terrain Vague game state: one immutable value, its JSON dump and its per-seat views.

Everything a game position holds lives in `State`; mappings are `FrozenMap`s (hashable, never
changed in place: `set`/`updated`/`without` return new maps). Hexes are axial `(q, r)` tuples
(see `hexes.py`); in the dump they become `[q, r]` lists.

The only secrets are the unrevealed wrestling choices (tiles and salt) and the random source; a
view hides both, showing other seats only each choice's commitment. Everything else is public,
so `from_view` rebuilds a full state from a view by drawing the hidden choices.

A state never changes, so what is costly to derive is cached on the object itself
(`state.__dict__`): home turf (`territory`), the lines board, lids' protection and enclosed
areas (`position`, `wheelbarrows`), the text board (`render`) and the presentation's cells
(`presentation`). `State.with_` leaves such caches behind with the old value, but keeps those
that depend on the position alone (`POSITION_CACHES`) when the fields they read have not changed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import islice
from typing import Any, NamedTuple

from rules.rng import Rng
from rules.terrain_vague import bits, data
from rules.terrain_vague.frozen import FrozenMap, kept_once
from rules.terrain_vague.hexes import CENTRE, Hex
from rules.terrain_vague.ledger import Ledger

# --- small immutable pieces ----------------------------------------------------------------


class Turf(NamedTuple):
    gang: str
    strength: str  # data.WIMPY or data.TOUGH


class Pawn(NamedTuple):
    gang: str
    kind: str  # one of data.PAWN_KINDS, or data.CLUBHOUSE from `State.occupant`


@dataclass(frozen=True)
class Choice:
    """A secret wrestling choice: the tiles, the salt, and the commitment shown to everyone."""

    tiles: tuple[int, ...]
    salt: str
    commitment: str


@dataclass(frozen=True)
class Duel:
    """One Indian-wrestling match: the attacker's digits against the defender's bars.

    `attack_number`/`defence_number` are how many tiles each side chooses (the red hideout
    numbers, the substitute's with 3 gangs); `scores` is False when the attacker earns nothing.
    """

    attacker: str
    defender: str
    attack_number: int
    defence_number: int
    scores: bool = True
    attack: Choice | None = None
    defence: Choice | None = None

    @property
    def resolved(self) -> bool:
        return self.attack is not None and self.defence is not None


# --- phases --------------------------------------------------------------------------------

BUILD = "build"  # players place the board's hexes
CLUBHOUSE_PLACEMENT = "clubhouse"  # gangs place their clubhouses in building order
PICK = "pick"  # a gang without a sworn enemy picks its wrestling opponent
WRESTLE = "wrestle"  # step 1 of a red turn: the duels, one at a time
ACT = "act"  # steps 2-5: the acting gang takes actions, then ends its step
OVER = "over"


# The caches (keys of a state's `__dict__`) derived from the position alone, each with the
# position's fields it reads (the player count never changes): `occupants`, the board's turf by
# gang (`position`) and as bits (`territory`), home turf (`territory`), the lines board and lids'
# protection (`position`), enclosed areas (`wheelbarrows`), the building's open positions
# (`setup`). A cache that reads anything else (points, the ledger, the step) is not here.
# `State.with_` carries a cache over to the new state when none of the fields it reads changed.
POSITION_FIELDS = frozenset({"board", "pawns", "clubhouses"})
POSITION_CACHES = {
    "occupants": POSITION_FIELDS - {"board"},
    "_turf_gangs": frozenset({"board"}),
    "_turf_masks": frozenset({"board"}),
    "_open_positions": frozenset({"board"}),
    "_home_turf_cache": frozenset({"board", "clubhouses"}),
    "_lines_board": POSITION_FIELDS,
    "_protection": POSITION_FIELDS,
    "_enclosed": POSITION_FIELDS,
}


@dataclass(frozen=True)
class State:
    players: int
    options: FrozenMap  # option name -> value (normalized)
    seats: tuple[str, ...]  # seat index -> gang
    phase: str
    turn: int  # 0 during setup, then 1, 2, ...
    step: int  # 1-5 during turns, 0 during setup
    order: tuple[str, ...]  # play order this turn (building order during setup)
    acting: str | None  # the gang to act in BUILD, CLUBHOUSE_PLACEMENT, PICK and ACT
    board: FrozenMap  # Hex -> Turf, or None for the Toxic Waste; unbuilt hexes are absent
    pawns: FrozenMap  # Hex -> Pawn (never a clubhouse)
    clubhouses: FrozenMap  # gang -> Hex, or None while destroyed (gangs in the game only)
    reserves: FrozenMap  # (gang, pawn kind) -> pawns off the board and available
    stacks: FrozenMap  # (gang, strength) -> hexes left to build the board with
    supplies: FrozenMap  # (gang, strength) -> hexes in the supply (not on the board, not stacks)
    points: FrozenMap  # gang -> action points left this turn
    challenges: FrozenMap  # gang without a sworn enemy -> the opponent it picked
    eliminated: tuple[str, ...]  # in data.GANGS order
    duels: tuple[Duel, ...]  # this red turn's duels still to resolve; the first is current
    wrestled: tuple[Duel, ...]  # this turn's resolved duels, choices revealed
    cancelled: FrozenMap  # gang -> its digits cancelled in its own scoring attack this turn
    ledger: Ledger
    rng: Rng
    winners: tuple[str, ...] = ()
    end_reason: str = ""

    # --- derived, read-only ----------------------------------------------------------------

    @property
    def radius(self) -> int:
        return data.BOARD_RADIUS[self.players]

    @property
    def reach(self) -> int:
        """The range of every action along a line: 3 with 4 gangs, 2 with 2 or 3."""
        return data.REACH[self.players]

    def option(self, name: str) -> Any:
        return self.options[name]

    @property
    def gangs(self) -> tuple[str, ...]:
        """Gangs in the game (one per seat), in data.GANGS order."""
        return _gangs(self.seats)

    @property
    def in_play(self) -> tuple[str, ...]:
        """Gangs not eliminated, in data.GANGS order."""
        return _in_play(self.seats, self.eliminated)

    def seat_of(self, gang: str) -> int:
        return self.seats.index(gang)

    def sworn_enemy(self, gang: str) -> str | None:
        """The gang's sworn enemy while both are in play, else None."""
        enemy = data.SWORN_ENEMY[gang]
        in_play = self.in_play
        return enemy if gang in in_play and enemy in in_play else None

    def turf(self, hex_: Hex) -> Turf | None:
        """The turf on a hex; None for the Toxic Waste (or an unbuilt hex)."""
        return self.board.get(hex_)

    @staticmethod
    def is_toxic_waste(hex_: Hex) -> bool:
        return hex_ == CENTRE

    @kept_once
    def occupants(self) -> dict[Hex, Pawn]:
        """Every occupied hex: the pawns and the standing clubhouses (kind data.CLUBHOUSE)."""
        found = dict(self.pawns.items())
        for gang, hex_ in self.clubhouses.items():
            if hex_ is not None:
                found[hex_] = Pawn(gang, data.CLUBHOUSE)
        return found

    def occupant(self, hex_: Hex) -> Pawn | None:
        return self.occupants.get(hex_)

    def reserve(self, gang: str, kind: str) -> int:
        return self.reserves.get((gang, kind), 0)

    def supply(self, gang: str, strength: str) -> int:
        return self.supplies.get((gang, strength), 0)

    # --- small updates shared by both halves of the package --------------------------------

    def with_(self, **changes: Any) -> State:
        """The state with `changes`; the position's caches whose fields are left alone (all of
        them for points paid, a step ended, a duel's choice; home turf for a pawn's move) are
        kept, since they depend on nothing else."""
        if not _FIELD_NAMES.issuperset(changes):
            unknown = sorted(changes.keys() - _FIELD_NAMES)[0]
            raise TypeError(f"State has no field {unknown!r}")
        memo = self.__dict__
        attrs = memo.copy()  # the fields and any caches, copied at C speed in one go ...
        attrs.update(changes)
        if len(memo) > _FIELD_COUNT:  # ... then the caches the changes make stale are dropped
            kept = _kept_caches(tuple(changes))
            # The fields lead every state's __dict__ (`__init__` sets them in order, and a copy
            # keeps the order), so the caches are what follows them.
            for name in islice(memo, _FIELD_COUNT, None):
                if name not in kept:
                    del attrs[name]
        new = object.__new__(type(self))
        object.__setattr__(new, "__dict__", attrs)  # a frozen dataclass refuses plain assignment
        return new

    def with_turf(self, hex_: Hex, gang: str, strength: str) -> State:
        """The hex becomes `gang`'s turf of `strength`: the new hex leaves that gang's supply and
        the old one returns to its owner's. The caller has checked that the supply has one."""
        old = self.board[hex_]
        supplies = self.supplies.add((gang, strength), -1)
        if old is not None:
            supplies = supplies.add((old.gang, old.strength), 1)
        new = self.with_(board=self.board.set(hex_, Turf(gang, strength)), supplies=supplies)
        self._carry_turf_caches(new, hex_, None if old is None else old.gang, gang)
        return new

    def _carry_turf_caches(self, new: State, hex_: Hex, before: str | None, after: str) -> None:
        """The board's turf by gang (`_turf_gangs`, `_turf_masks`), updated for one hex changing
        hands rather than worked out again over the whole board (rips come one after another)."""
        memo, kept = self.__dict__, new.__dict__
        gangs = memo.get("_turf_gangs")
        if gangs is not None:
            cells, turf = gangs
            kept["_turf_gangs"] = (cells, {**turf, hex_: after})
        masks = memo.get("_turf_masks")
        if masks is not None:
            cells, own = masks
            bit = bits.layout(self.radius).bit[hex_]
            own = dict(own)
            if before is not None:
                own[before] = own.get(before, 0) & ~bit
            own[after] = own.get(after, 0) | bit
            kept["_turf_masks"] = (cells, own)


_FIELD_NAMES = frozenset(f.name for f in fields(State))
_FIELD_COUNT = len(_FIELD_NAMES)


@lru_cache(maxsize=None)
def _kept_caches(changed: tuple[str, ...]) -> frozenset[str]:
    """The caches a change of these fields leaves valid (few sets of fields ever change)."""
    return frozenset(name for name, reads in POSITION_CACHES.items() if reads.isdisjoint(changed))


# Asked at every step of every turn, and only a handful of seatings exist: worked out once each.
@lru_cache(maxsize=None)
def _gangs(seats: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(g for g in data.GANGS if g in seats)


@lru_cache(maxsize=None)
def _in_play(seats: tuple[str, ...], eliminated: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(g for g in _gangs(seats) if g not in eliminated)


# --- dump and load -------------------------------------------------------------------------


def _pairs_dump(mapping: FrozenMap) -> dict[str, dict[str, int]]:
    """{(gang, x): n} -> {gang: {x: n}} for JSON."""
    nested: dict[str, dict[str, int]] = {}
    for (gang, kind), count in sorted(mapping.items()):
        nested.setdefault(gang, {})[kind] = count
    return nested


def _pairs_load(nested: dict[str, dict[str, int]]) -> FrozenMap:
    return FrozenMap({(g, k): n for g, inner in nested.items() for k, n in inner.items()})


def _hex_or_none(value: Any) -> Hex | None:
    return None if value is None else (value[0], value[1])


def _choice_dump(choice: Choice | None, secret_visible: bool) -> dict[str, Any] | None:
    if choice is None:
        return None
    if not secret_visible:
        return {"commitment": choice.commitment}
    return {"tiles": list(choice.tiles), "salt": choice.salt, "commitment": choice.commitment}


def _duel_dump(duel: Duel, seat_gang: str | None, everything: bool) -> dict[str, Any]:
    return {
        "attacker": duel.attacker,
        "defender": duel.defender,
        "attack_number": duel.attack_number,
        "defence_number": duel.defence_number,
        "scores": duel.scores,
        "attack": _choice_dump(duel.attack, everything or seat_gang == duel.attacker),
        "defence": _choice_dump(duel.defence, everything or seat_gang == duel.defender),
    }


def _choice_load(
    raw: dict[str, Any] | None, count: int, rnd: random.Random | None
) -> Choice | None:
    """A choice from its dump; a hidden one (commitment only) is drawn from `rnd`."""
    if raw is None:
        return None
    if "tiles" in raw:
        return Choice(tuple(raw["tiles"]), raw["salt"], raw["commitment"])
    assert rnd is not None, "a hidden choice can only be sampled"
    tiles = tuple(sorted(rnd.choice(data.TILE_VALUES) for _ in range(count)))
    return Choice(tiles, f"{rnd.getrandbits(256):064x}", raw["commitment"])


def _duel_load(raw: dict[str, Any], rnd: random.Random | None = None) -> Duel:
    return Duel(
        attacker=raw["attacker"],
        defender=raw["defender"],
        attack_number=raw["attack_number"],
        defence_number=raw["defence_number"],
        scores=raw["scores"],
        attack=_choice_load(raw["attack"], raw["attack_number"], rnd),
        defence=_choice_load(raw["defence"], raw["defence_number"], rnd),
    )


def revealed_duel(duel: Duel) -> dict[str, Any]:
    """A resolved duel with both choices and salts, for everyone."""
    return _duel_dump(duel, None, everything=True)


def public_dump(state: State, seat_gang: str | None, everything: bool) -> dict[str, Any]:
    """The state as JSON; unless `everything`, only `seat_gang`'s own secret choices show and
    the random source is left out."""
    dumped: dict[str, Any] = {
        "players": state.players,
        "options": dict(state.options),
        "seats": list(state.seats),
        "phase": state.phase,
        "turn": state.turn,
        "step": state.step,
        "order": list(state.order),
        "acting": state.acting,
        "board": [
            [h[0], h[1], t.gang, t.strength] if t is not None else [h[0], h[1], None, None]
            for h, t in sorted(state.board.items())
        ],
        "pawns": [[h[0], h[1], p.gang, p.kind] for h, p in sorted(state.pawns.items())],
        "clubhouses": {
            g: (None if h is None else [h[0], h[1]]) for g, h in sorted(state.clubhouses.items())
        },
        "reserves": _pairs_dump(state.reserves),
        "stacks": _pairs_dump(state.stacks),
        "supplies": _pairs_dump(state.supplies),
        "points": dict(sorted(state.points.items())),
        "challenges": dict(sorted(state.challenges.items())),
        "eliminated": list(state.eliminated),
        # A gang that left sees its pending duels as a spectator does: the bars drawn for it
        # stay secret from everyone until their duel resolves.
        "duels": [_duel_dump(d, None if seat_gang in state.eliminated else seat_gang, everything)
                  for d in state.duels],
        "wrestled": [_duel_dump(d, seat_gang, True) for d in state.wrestled],
        "cancelled": dict(sorted(state.cancelled.items())),
        "ledger": state.ledger.dump(),
        "winners": list(state.winners),
        "end_reason": state.end_reason,
    }
    if everything:
        dumped["rng"] = state.rng.dump()
    return dumped


def dump(state: State) -> dict[str, Any]:
    return public_dump(state, None, everything=True)


# Every turf and pawn value of the game, made once and shared (they never change): a search
# loads a state from its view at every iteration, and made afresh they were most of the load.
_TURFS = {g: {s: Turf(g, s) for s in data.STRENGTHS} for g in data.GANGS}
_PAWNS = {g: {k: Pawn(g, k) for k in data.PAWN_KINDS} for g in data.GANGS}


def _board_load(rows: list) -> FrozenMap:
    try:
        return FrozenMap({(q, r): None if g is None else _TURFS[g][s] for q, r, g, s in rows})
    except (KeyError, TypeError):  # a gang or strength the game does not have: made as given
        return FrozenMap({(q, r): None if g is None else Turf(g, s) for q, r, g, s in rows})


def _pawns_load(rows: list) -> FrozenMap:
    try:
        return FrozenMap({(q, r): _PAWNS[g][k] for q, r, g, k in rows})
    except (KeyError, TypeError):  # a gang or kind the game does not have: made as given
        return FrozenMap({(q, r): Pawn(g, k) for q, r, g, k in rows})


def load(dumped: dict[str, Any], rnd: random.Random | None = None) -> State:
    """The inverse of `dump`; from a view (no "rng", hidden choices), pass `rnd` to draw the
    hidden parts and a fresh seed."""
    rng = (
        Rng.load(dumped["rng"])
        if "rng" in dumped
        else Rng(f"{rnd.getrandbits(128):032x}" if rnd else "sampled")
    )
    return State(
        players=dumped["players"],
        options=FrozenMap(dumped["options"]),
        seats=tuple(dumped["seats"]),
        phase=dumped["phase"],
        turn=dumped["turn"],
        step=dumped["step"],
        order=tuple(dumped["order"]),
        acting=dumped["acting"],
        board=_board_load(dumped["board"]),
        pawns=_pawns_load(dumped["pawns"]),
        clubhouses=FrozenMap({g: _hex_or_none(h) for g, h in dumped["clubhouses"].items()}),
        reserves=_pairs_load(dumped["reserves"]),
        stacks=_pairs_load(dumped["stacks"]),
        supplies=_pairs_load(dumped["supplies"]),
        points=FrozenMap(dumped["points"]),
        challenges=FrozenMap(dumped["challenges"]),
        eliminated=tuple(dumped["eliminated"]),
        duels=tuple(_duel_load(d, rnd) for d in dumped["duels"]),
        wrestled=tuple(_duel_load(d) for d in dumped["wrestled"]),
        cancelled=FrozenMap(dumped["cancelled"]),
        ledger=Ledger.load(dumped["ledger"]),
        rng=rng,
        winners=tuple(dumped["winners"]),
        end_reason=dumped["end_reason"],
    )


def view(state: State, gang: str | None, to_act: tuple[int, ...], home_turf: dict[str, int]) -> dict:
    """What `gang` (None: a spectator) sees: everything public, its own secret choices, and who is
    to act and each gang's home turf size (derived by the caller, which knows the turn flow)."""
    seen = public_dump(state, gang, everything=False)
    seen["you"] = gang
    seen["to_act"] = list(to_act)
    seen["home_turf"] = home_turf
    return seen


def from_view(seen: dict[str, Any], rng: random.Random) -> State:
    """A full state for the view: the others' unrevealed wrestling choices are drawn at random
    (keeping the commitments shown), with a fresh seed."""
    return load(seen, rnd=rng)


__all__ = [
    "ACT",
    "BUILD",
    "CLUBHOUSE_PLACEMENT",
    "Choice",
    "Duel",
    "FrozenMap",
    "OVER",
    "PICK",
    "Pawn",
    "State",
    "Turf",
    "WRESTLE",
    "dump",
    "from_view",
    "load",
    "public_dump",
    "view",
]
