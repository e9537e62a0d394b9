"""Space Junkyard (rules id `space_junkyard`), by Gilad Yarnitzky, for 2-4 players.

Rules in brief (book: shared/rules/space-junkyard.txt, settled by RULINGS.md):
- 76 tiles (32 asteroids, 44 ship sections; `data.py`) are shuffled face down; 36 are laid face up
  on a 6x6 map, the rest form the stack, whose order nobody sees. Each player has a bridge (stores
  2 of each resource, makes 1 radioactive a turn, one opening, 0 points) and a ship that it
  places on a free corner of the map, in seat order, before the first turn.
- A turn has four phases. Resources: each working section produces (a `Y/B` section one of the
  two, the owner's pick) and conversions (`Y>B`: one radioactive into one carbon) may be used, in
  any order and again while storage allows; storage is per colour, summed over the ship's working
  sections, and what does not fit is discarded. Movement: 3 orthogonal steps free, once a turn 3
  more for 1 radioactive; never onto another ship or off the map. Retrieval (during the movement):
  take the tile under the ship, up to 2 asteroids or 1 section a turn; a section is recycled for
  its scrap or connected at once, in any rotation, where every shared edge is open-open or
  closed-closed and at least one is open-open, paying both tiles' costs on every open joint. New
  sections work from the owner's next turn. New junk: the top tile is drawn and shown to all and
  pushed in from any of the 24 entries (20 on the 5x5 map); the line shifts with its ships; a
  tile pushed off leaves the game; a ship pushed off comes back at the start of its next move on
  a border cell of that side. No entry exactly opposite one another player used since your last
  turn.
- The game ends right after the push that empties the stack. Each section (the bridge too) scores
  its points, -1 if any opening is unconnected, -1 more per unconnected opening. Ties share.
- Options, all off by default and combinable: `short` (16 random tiles removed unseen first),
  `small_map` (5x5 map, 3-4 players only), `more_junk` (a turn that took 2 asteroids pushes a
  second tile), `less_empty_space` (a push shifts the line only up to its first empty cell; a ship fills its
  cell like a tile, so a ship standing on an empty cell is pushed one cell on with the line,
  taking its empty cell along, and the shift goes on to the first cell with neither tile nor
  ship, or off the far edge as without the option).

Moves (one decision each; ship places are [x, y] on the ship's own grid, bridge at [0, 0], x east,
y south; map entries and border cells are a side and a line from 1, e.g. "N3", "E2"):
- start: {"type": "place", "corner": "NW"|"NE"|"SE"|"SW"} (a corner without a ship).
- resources: {"type": "produce", "at": [x, y], "choice": "Y"|"B"|"R"} (each producer once);
  {"type": "convert", "at": [x, y]}; {"type": "end_resources"}.
- movement: {"type": "reenter", "entry": "E2"} (first, when pushed off); {"type": "step", "dir":
  "N"|"E"|"S"|"W"}; {"type": "buy_steps"}; {"type": "retrieve"} (the asteroid under the ship);
  {"type": "recycle"} or {"type": "connect", "at": [x, y], "rotation": 0|90|180|270} (the section
  under the ship); {"type": "end_move"} (draws the new tile).
- new junk: {"type": "push", "entry": "N3"}.

Rulings the book and RULINGS.md leave open (each also where the code makes it):
- Ships start with empty stores. Seat 0 is the first player; seats place their ships in seat
  order, then seat 0 plays the first turn.
- Ending the resource phase makes every producer that has not produced yet produce; one with a
  choice gives the colour with the most free storage (the first printed on a tie).
- A conversion needs a resource to turn and room to keep what it makes.
- "Empty border cell" for a returning ship means a cell without a ship; re-entering is the first
  thing a pushed-off ship does in its move and costs no step. The ship may then take the tile
  there.
- The tile under a ship may be taken before its first step. After an asteroid no section may be
  taken that turn (the book's "2 asteroids or 1 section").
- With `less_empty_space` a cell with a ship counts as filled: tiles push ships along, and only a
  cell with neither tile nor ship stops the slide (so two ships never share a cell).
- The opposite-entry rule looks at other players' pushes since the mover's last push, both
  pushes of a `more_junk` turn included; the mover's own first push does not bind the second.
- `short` may be used with any number of players.
- Scores are not bounded below: a ship of a bridge alone scores -2 (its opening is loose).
- A connection is listed once per legal rotation, even where two rotations look alike.
- The log's public copy of `end_move` (and of a `more_junk` first push) names the tile drawn.
- Forfeit: the ship leaves the map and the seat scores 0 and cannot win; play goes on for the
  others; when one seat is left it wins at once. A tile drawn but not yet pushed by a seat that
  forfeits leaves the game (shown to all); if the stack is then empty the game ends.
- Timeout: end the phase (end_resources, end_move; a pushed-off ship first re-enters at its first
  free cell); in the new-junk phase push at the first open entry; at the start take the first
  free corner (NW, NE, SE, SW order). A seat that forfeits before placing is skipped.
"""

from __future__ import annotations

import random
from typing import Any

from rules.base import Move, Outcome, Rules
from rules.errors import InvalidOptions
from rules.options import Option
from rules.rng import Rng
from rules.space_junkyard import flow, moves, placement, presentation, render, turns
from rules.space_junkyard.data import ALL_TILES, BRIDGE_ID, MAP_SIZE, SHORT_GAME_REMOVED, SMALL_MAP_SIZE
from rules.space_junkyard.ship import EMPTY_BAG, Part, score
from rules.space_junkyard.state import OVER, START_PHASE, Options, Ship, State, Turn, dump, from_view, load, view
from rules.values import evolve
from rules.words import msg


class SpaceJunkyard(Rules):
    id = "space_junkyard"
    title = "Space Junkyard"
    min_players = 2
    max_players = 4
    chance = True
    options = (
        Option("short", "bool", False, msg("remove 16 random tiles unseen before the game"), label=msg("Short game")),
        Option("small_map", "bool", False, msg("a 5x5 map (3-4 players only)"), label=msg("Small map")),
        Option("more_junk", "bool", False, msg("a turn that took 2 asteroids pushes a second tile"), label=msg("More junk")),
        Option("less_empty_space", "bool", False, msg("a push shifts its line up to its first space"), label=msg("Less empty space")),
    )

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        if options["small_map"] and players < 3:
            raise InvalidOptions("small_map", msg("the 5x5 map is for 3 or 4 players, not {players}", players=players))

    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> State:
        chosen = Options(**self.normalize_options(players, options))
        size = SMALL_MAP_SIZE if chosen.small_map else MAP_SIZE
        order, rng = Rng(seed).shuffled(ALL_TILES)
        removed = order[:SHORT_GAME_REMOVED] if chosen.short else ()
        rest = order[len(removed) :]
        bridge = (Part(0, 0, BRIDGE_ID, 0, 0),)
        ships = tuple(Ship(None, None, bridge, EMPTY_BAG) for _ in range(players))
        return State(
            players=players,
            options=chosen,
            size=size,
            cells=rest[: size * size],
            ships=ships,
            stack=rest[size * size :],
            removed=removed,
            gone=(),
            drawn=None,
            recent=(),
            turn=Turn(seat=0, number=1, phase=START_PHASE),
            rng=rng,
        )

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.turn.phase == OVER else (state.turn.seat,)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        return turns.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move) -> State:
        return turns.apply_move(state, seat, move)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.turn.phase != OVER:
            return None
        scores = tuple(0 if ship.out else score(ship.parts) for ship in state.ships)
        playing = [seat for seat, ship in enumerate(state.ships) if not ship.out]
        best = max(scores[seat] for seat in playing)
        winners = tuple(seat for seat in playing if scores[seat] == best)
        return Outcome(tuple(float(s) for s in scores), winners, state.end_reason)

    def timeout_move(self, state: State, seat: int) -> Move:
        moves = self.legal_moves(state, seat)
        ends = [m for m in moves if m["type"] in ("end_resources", "end_move")]
        return ends[0] if ends else moves[0]

    def forfeit(self, state: State, seat: int) -> State:
        if state.turn.phase == OVER or state.ships[seat].out:
            return state
        state = state.with_ship(seat, at=None, off_side=None, out=True)
        if seat == state.turn.seat and state.drawn is not None:
            state = evolve(state, gone=(*state.gone, state.drawn), drawn=None)
        if sum(not ship.out for ship in state.ships) == 1:
            return flow.finish(state, "last_player_left")
        if seat != state.turn.seat:
            return state
        if state.turn.phase == START_PHASE:
            return placement.next_placement(state)
        return flow.next_turn(state) if state.stack else flow.finish(state, "stack_empty")

    def public_move(self, before: State, seat: int, move: Move, after: State) -> Move:
        """The move, with the tile it made everyone see: the draw is chance, kept in the log."""
        if after.drawn is not None and after.drawn != before.drawn:
            return {**move, "drawn": after.drawn}
        return move

    def describe_move(self, state: State, seat: int, move: Move) -> str:
        return moves.describe(move)

    def panels(self, state: State, seat: int | None) -> list[dict[str, Any]]:
        return presentation.panels(state, seat)

    def prompt(self, state: State, seat: int) -> str:
        return presentation.prompt(state, seat)

    def cells(self, state: State, seat: int | None) -> dict[str, str]:
        return presentation.cells(state, seat)

    def cell_words(self, name: str, seat: int | None) -> str:
        return presentation.cell_words(name, seat)

    def render_text(self, state: State, seat: int | None) -> str:
        return render.render(state, seat)

    def dump(self, state: State) -> dict[str, Any]:
        return dump(state)

    def load(self, data: dict[str, Any]) -> State:
        return load(data)

    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        return from_view(view, rng)


RULES = SpaceJunkyard()
