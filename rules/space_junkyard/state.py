"""The game state: immutable values only, their exact JSON form (`dump`/`load`), and what a seat
sees of them (`view`, and `from_view` for the bots' samples).

Map cells are numbered row by row from the north-west corner: cell (x, y) is `cells[y * size + x]`,
x growing east and y growing south. A cell holds a tile id or None (empty space).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules.rng import Rng
from rules.space_junkyard import board
from rules.space_junkyard.data import ALL_TILES, ASTEROIDS, BRIDGE_ID, SHIP_PARTS
from rules.space_junkyard.ship import Bag, Part, capacity, score
from rules.values import evolve

START_PHASE = "start"  # each seat in turn places its ship on a free corner
RESOURCES_PHASE = "resources"
MOVE_PHASE = "move"
JUNK_PHASE = "junk"
OVER = "over"


@dataclass(frozen=True)
class Options:
    short: bool = False
    small_map: bool = False
    more_junk: bool = False
    less_empty_space: bool = False

    def as_dict(self) -> dict[str, bool]:
        return {
            "short": self.short,
            "small_map": self.small_map,
            "more_junk": self.more_junk,
            "less_empty_space": self.less_empty_space,
        }


@dataclass(frozen=True)
class Ship:
    """A player's ship: its map cell (None while pushed off, or after a forfeit), the side it was
    pushed off, its sections (the bridge first) and its stored resources."""

    at: tuple[int, int] | None
    off_side: str | None
    parts: tuple[Part, ...]
    stores: Bag
    out: bool = False


@dataclass(frozen=True)
class Turn:
    """The running turn: whose, its number (from 1), its phase and what it has used so far."""

    seat: int
    number: int
    phase: str
    produced: tuple[tuple[int, int], ...] = ()
    steps: int = 0
    bought: bool = False
    asteroids: int = 0
    sections: int = 0
    pushes: int = 0


@dataclass(frozen=True)
class State:
    players: int
    options: Options
    size: int
    cells: tuple[str | None, ...]
    ships: tuple[Ship, ...]
    stack: tuple[str, ...]  # secret order; the top is stack[0]
    removed: tuple[str, ...]  # taken out unseen by the `short` option: secret
    gone: tuple[str, ...]  # tiles that left the game in sight of all
    drawn: str | None  # the tile shown to all, waiting to be pushed in
    recent: tuple[tuple[int, str], ...]  # (seat, entry) of the latest pushes, oldest first
    turn: Turn
    rng: Rng
    end_reason: str = ""

    def cell(self, x: int, y: int) -> str | None:
        return self.cells[y * self.size + x]

    def with_ship(self, seat: int, **changes: Any) -> State:
        return evolve(self, ships=self.ships_with(seat, evolve(self.ships[seat], **changes)))

    def with_turn(self, **changes: Any) -> State:
        return evolve(self, turn=evolve(self.turn, **changes))

    def with_mover(
        self, ship: dict[str, Any] | None = None, turn: dict[str, Any] | None = None, **changes: Any
    ) -> State:
        """The state with the mover's ship, the turn and any of its own fields changed in one
        copy: a move usually changes all three, and searches apply millions of moves."""
        if ship:
            seat = self.turn.seat
            changes["ships"] = self.ships_with(seat, evolve(self.ships[seat], **ship))
        if turn:
            changes["turn"] = evolve(self.turn, **turn)
        return evolve(self, **changes)

    def ships_with(self, seat: int, ship: Ship) -> tuple[Ship, ...]:
        """The ships with `seat`'s replaced."""
        ships = list(self.ships)
        ships[seat] = ship
        return tuple(ships)


def _dump_part(part: Part) -> dict[str, Any]:
    return {
        "at": [part.x, part.y],
        "tile": part.tile,
        "rotation": part.rotation,
        "added": part.added,
    }


def _load_part(data: dict[str, Any]) -> Part:
    return Part(data["at"][0], data["at"][1], data["tile"], data["rotation"], data["added"])


def dump_ship(ship: Ship) -> dict[str, Any]:
    return {
        "at": list(ship.at) if ship.at is not None else None,
        "off_side": ship.off_side,
        "sections": [_dump_part(part) for part in ship.parts],
        "stores": list(ship.stores),
        "out": ship.out,
    }


def load_ship(data: dict[str, Any]) -> Ship:
    return Ship(
        at=tuple(data["at"]) if data["at"] is not None else None,
        off_side=data["off_side"],
        parts=tuple(_load_part(part) for part in data["sections"]),
        stores=tuple(data["stores"]),
        out=data["out"],
    )


def dump_turn(turn: Turn) -> dict[str, Any]:
    return {
        "seat": turn.seat,
        "number": turn.number,
        "phase": turn.phase,
        "produced": [list(place) for place in turn.produced],
        "steps_left": turn.steps,
        "bought_steps": turn.bought,
        "asteroids_taken": turn.asteroids,
        "sections_taken": turn.sections,
        "pushes": turn.pushes,
    }


def load_turn(data: dict[str, Any]) -> Turn:
    return Turn(
        seat=data["seat"],
        number=data["number"],
        phase=data["phase"],
        produced=tuple(tuple(place) for place in data["produced"]),
        steps=data["steps_left"],
        bought=data["bought_steps"],
        asteroids=data["asteroids_taken"],
        sections=data["sections_taken"],
        pushes=data["pushes"],
    )


def _rows(state: State) -> list[list[str | None]]:
    return [list(state.cells[y * state.size : (y + 1) * state.size]) for y in range(state.size)]


def dump_public(state: State) -> dict[str, Any]:
    """Everything but the secrets (the stack's order, the removed tiles, the seed)."""
    return {
        "players": state.players,
        "options": state.options.as_dict(),
        "size": state.size,
        "map": _rows(state),
        "ships": [dump_ship(ship) for ship in state.ships],
        "gone": list(state.gone),
        "drawn": state.drawn,
        "recent_pushes": [[seat, entry] for seat, entry in state.recent],
        "turn": dump_turn(state.turn),
        "end_reason": state.end_reason,
    }


def load_public(
    data: dict[str, Any], stack: tuple[str, ...], removed: tuple[str, ...], rng: Rng
) -> State:
    return State(
        players=data["players"],
        options=Options(**data["options"]),
        size=data["size"],
        cells=tuple(cell for row in data["map"] for cell in row),
        ships=tuple(load_ship(ship) for ship in data["ships"]),
        stack=stack,
        removed=removed,
        gone=tuple(data["gone"]),
        drawn=data["drawn"],
        recent=tuple((seat, entry) for seat, entry in data["recent_pushes"]),
        turn=load_turn(data["turn"]),
        rng=rng,
        end_reason=data["end_reason"],
    )


def dump(state: State) -> dict[str, Any]:
    return {
        **dump_public(state),
        "stack": list(state.stack),
        "removed": list(state.removed),
        "rng": state.rng.dump(),
    }


def load(data: dict[str, Any]) -> State:
    return load_public(data, tuple(data["stack"]), tuple(data["removed"]), Rng.load(data["rng"]))


# --- what a seat sees ------------------------------------------------------------------------


def forbidden_entries(state: State) -> set[str]:
    """Entries opposite to those another player pushed in since the mover's last turn (the
    book's "for a full round"). The mover's own pushes of this turn restrict nothing."""
    seat = state.turn.seat
    earlier = state.recent[: len(state.recent) - state.turn.pushes]
    forbidden = set()
    for pusher, entry in reversed(earlier):
        if pusher == seat:
            break
        forbidden.add(board.opposite_entry(entry))
    return forbidden


def face(tile: str) -> dict[str, Any]:
    """What is printed on a tile, for clients that draw it: an asteroid's resources, or a
    section's production, storage, conversion, recycling value, points and edges (N, E, S, W as
    printed; null is closed, "" an opening with no cost, else the resources the opening costs)."""
    if tile in ASTEROIDS:
        return {"kind": "asteroid", "resources": ASTEROIDS[tile]}
    section = SHIP_PARTS[tile]
    return {
        "kind": "bridge" if tile == BRIDGE_ID else "section",
        "produce": section.produce,
        "store": section.store,
        "convert": list(section.convert) if section.convert else None,
        "recycle": section.recycle,
        "points": section.points,
        "edges": list(section.edges),
    }


def view(state: State) -> dict[str, Any]:
    """Everything is public but the stack's order (and, with `short`, which tiles were
    removed): the view gives the stack's size and, per ship, its working storage and score, and
    the printed faces of the tiles in sight (so a client needs no table of its own)."""
    seen = dump_public(state)
    for data, ship in zip(seen["ships"], state.ships):
        data["capacity"] = list(capacity(ship.parts, state.turn.number))
        data["score"] = 0 if ship.out else score(ship.parts)
    seen["stack_size"] = len(state.stack)
    running = state.turn.phase != OVER
    seen["closed_entries"] = sorted(forbidden_entries(state)) if running else []
    seen["faces"] = {tile: face(tile) for tile in sorted(_seen_tiles(state) | {BRIDGE_ID})}
    return seen


def _seen_tiles(state: State) -> set[str]:
    seen = {tile for tile in state.cells if tile is not None}
    seen.update(part.tile for ship in state.ships for part in ship.parts)
    seen.update(state.gone)
    if state.drawn is not None:
        seen.add(state.drawn)
    return seen


def from_view(view: dict[str, Any], rng: random.Random) -> State:
    """The unseen tiles (the stack and any removed by `short`) reshuffled with `rng`."""
    public = load_public(view, (), (), Rng("sample"))
    seen = _seen_tiles(public)
    unseen = [tile for tile in ALL_TILES if tile not in seen]
    rng.shuffle(unseen)
    size = view["stack_size"]
    fresh = Rng(f"{rng.getrandbits(128):032x}")
    return evolve(public, stack=tuple(unseen[:size]), removed=tuple(unseen[size:]), rng=fresh)
