"""Terrain Vague (Junkyard), by Franck Parcabe and Roland Scaron (Ludodelire), for 2-4 gangs.

Rules summary. Gangs fight over a hexagonal junkyard of turf hexes (wimpy and tough per gang)
around the Toxic Waste. The players build the board (or deal it), place their clubhouses, then
play 12 turns of 5 steps: 1 action points from the hideout (on red turns 3, 6, 9, 12 from Indian
wrestling), 2 call out pawns, 3 move (and the big brother), 4 slingshots, 5 wheelbarrows rip
turf. Each gang, in play order (most points first), acts in each step and then ends it; unspent
points are lost. The biggest home turf (own hexes connected to the clubhouse) after turn 12 wins;
with 4 gangs 25 home-turf hexes at the end of a turn win at once. Level on home turf, the gang
with more of its turf anywhere on the board (cut off or not) wins; level on both, they share the
win. Each panel shows both counts, and the end's line names the second where it decided.

Sources: terrain-vague.en.txt, the Dutch original terrain-vague.nl.txt, settled by RULINGS.md.
Modules: `hexes` geometry, `data` tables, `state` the State and its dump, `setup` board and
clubhouses, `turns` turns and the end, `wrestling` the duels, `territory` home turf, `render`
the text board; the pawn actions (B's half) are `actions`, `lines`, `costs`, `protection`,
`ledger`.

Moves (a hex is `[q, r]` in axial coordinates, see `hexes`):
- `{"type": "place_hex", "hex": [q, r], "gang": g, "strength": "wimpy"|"tough"}` building.
- `{"type": "place_clubhouse", "hex": [q, r]}` clubhouse placement.
- `{"type": "choose_opponent", "gang": g}` a gang without a sworn enemy picks its duel opponent.
- `{"type": "choose_digits", "digits": [..]}` / `{"type": "choose_bars", "bars": [..]}` secret
  wrestling choices; others see `{"type": ..., "commitment": sha256}` until the duel resolves.
- `{"type": "end_step"}` ends the acting gang's step (always legal in steps 2-5).
- the pawn actions of steps 2-5 (`actions.ACTION_TYPES`, documented in `actions`).

Options: `board` (`build` | `random`), `gangs` (2 players: which pair, first is seat 0),
`to_25` (4 players: play to 25 home-turf hexes; capped at data.TO_25_TURN_LIMIT turns),
`rip_off` (`whole` | `halved`, the big rip-off, see `actions`).

Protocol rulings (the books are silent):
- Seats get gangs by lots drawn from the seed (3 players: the lots also choose the absent gang).
- `forfeit`: the gang is eliminated (pawns and clubhouse leave, its turf stays) and play goes on;
  with one gang left it wins. Leaving during the wrestling (RULINGS): every attack on the gang
  this turn is still fought, with the bars it had chosen or, where it had not, bars drawn from
  the seed as for a timeout, committed and kept secret until that duel resolves; its own attacks
  are called off. So leaving never takes an attacker's points away.
- Slingshots (RULINGS): a shot passes over the shooter's own pawns and clubhouse as over empty
  hexes; the first other gang's pawn or clubhouse on a line is the only target there.
- `timeout_move`: in steps 2-5 `end_step` (RULINGS); a wrestling choice, and any setup choice, at
  random from the seed.
- Outcome scores: 1 shared among the winners, 0 for the others.
- Rules version 2 brought the leaving-during-the-wrestling ruling above; under version 1 a gang
  leaving mid-wrestling took all its unfought duels with it, the attacks on it included. A game
  recorded under version 1 is folded (and played on) by `RULES.folding(1)`, which keeps that way.
More rulings sit where the code makes them: the docstrings of `setup`, `turns`, `wrestling` and
`territory` (the frame), and of `actions`, `lines` and `protection` (pawn actions, lines and relays,
lids). `actions` also gives the pawn actions' move encoding and error codes.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from rules.base import Outcome, Rules
from rules.errors import InvalidOptions
from rules.fields import require_mapping
from rules.options import Option
from rules.rng import Rng
from rules.terrain_vague import data, moves, presentation, render, setup, turns, words, wrestling
from rules.terrain_vague import state as st
from rules.terrain_vague.state import OVER, State
from rules.terrain_vague.territory import home_turf_size
from rules.words import msg


class TerrainVague(Rules):
    id = "terrain_vague"
    title = "Terrain Vague"
    min_players = 2
    max_players = 4
    version = 2  # 2: a gang leaving mid-wrestling still has the attacks on it fought
    hidden_information = True
    simultaneous = True
    options = (
        Option("board", "choice", "build", msg("build: players build the board; random: dealt"),
               choices=("build", "random"), label=msg("Board"), choice_labels=(msg("build"), msg("random"))),
        Option("gangs", "choice", data.DEFAULT_GANG_PAIR,
               msg("2 players: the two gangs, the first is seat 0's"), choices=data.GANG_PAIRS,
               label=msg("Gangs"), choice_labels=tuple(words.gang_pair(pair) for pair in data.GANG_PAIRS)),
        Option("to_25", "bool", False,
               msg("4 players: play until a home turf reaches 25 hexes (no 12-turn limit)"), label=msg("Play to 25")),
        Option("rip_off", "choice", "whole",
               msg("big rip-off: whole (an enclosed area at once) or halved (halved rip costs)"),
               choices=("whole", "halved"), label=msg("Big rip-off"), choice_labels=(msg("whole"), msg("halved"))),
    )

    def folds_version(self, version: int) -> bool:
        return version in (1, 2)

    def folding(self, version: int) -> Rules:
        return VERSION_1 if version == 1 else self

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        if players != 2 and options["gangs"] != data.DEFAULT_GANG_PAIR:
            raise InvalidOptions("gangs", msg("only a 2-player game chooses its gangs"))
        if players != 4 and options["to_25"]:
            raise InvalidOptions("to_25", msg("playing to 25 hexes needs 4 players"))

    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> State:
        return setup.initial_state(players, self.normalize_options(players, options), seed)

    def to_act(self, state: State) -> tuple[int, ...]:
        return _seats_of(state.seats, turns.gangs_to_act(state))

    def legal_moves(self, state: State, seat: int) -> list[dict[str, Any]]:
        return turns.legal_moves(state, state.seats[seat])

    def apply(self, state: State, seat: int, move: dict[str, Any]) -> State:
        return turns.apply(state, state.seats[seat], require_mapping(move))

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        gang = None if seat is None else state.seats[seat]
        home_turf = {g: home_turf_size(state, g) for g in state.gangs}
        return st.view(state, gang, self.to_act(state), home_turf)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        winners = tuple(sorted(state.seat_of(g) for g in state.winners))
        share = 1.0 / len(winners) if winners else 0.0
        scores = tuple(share if s in winners else 0.0 for s in range(state.players))
        details = {"home_turf": {g: home_turf_size(state, g) for g in state.gangs}}
        return Outcome(scores, winners, state.end_reason, details)

    def timeout_move(self, state: State, seat: int) -> dict[str, Any]:
        gang = state.seats[seat]
        if state.phase == st.ACT:
            return dict(turns.END_STEP_MOVE)
        if state.phase == st.WRESTLE:
            return wrestling.random_choice(state, gang)
        moves = turns.legal_moves(state, gang)
        index, _ = Rng(f"{state.rng.seed}:timeout:{gang}", state.rng.drawn).below(len(moves))
        return moves[index]

    def forfeit(self, state: State, seat: int) -> State:
        return turns.forfeit(state, state.seats[seat])

    def describe_move(self, state: State, seat: int, move: dict[str, Any]) -> str:
        return moves.describe(state, move)

    def panels(self, state: State, seat: int | None) -> list[dict[str, Any]]:
        return presentation.panels(state, seat)

    def prompt(self, state: State, seat: int) -> str:
        return presentation.prompt(state, seat)

    def cells(self, state: State, seat: int | None) -> dict[str, str]:
        return presentation.cells(state, seat)

    def ending(self, state: State) -> str | None:
        return presentation.ending(state)

    def render_text(self, state: State, seat: int | None) -> str:
        return render.render(state, None if seat is None else state.seats[seat])

    def dump(self, state: State) -> dict[str, Any]:
        return st.dump(state)

    def load(self, data: dict[str, Any]) -> State:
        return st.load(data)

    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        return st.from_view(view, rng)

    def public_move(
        self, before: State, seat: int, move: dict[str, Any], after: State
    ) -> dict[str, Any]:
        if move.get("type") not in wrestling.SECRET_TYPES:
            return move
        choice = wrestling.find_choice(after, after.seats[seat])
        shown: dict[str, Any] = {"type": move["type"], "commitment": choice.commitment}
        # A choice never ends the turn, so the duels it resolved are the new tail of `wrestled`.
        newly = after.wrestled[len(before.wrestled) :]
        if newly:
            shown["revealed"] = [st.revealed_duel(d) for d in newly]
        return shown


@cache
def _seats_of(seats: tuple[str, ...], gangs: tuple[str, ...]) -> tuple[int, ...]:
    """The seats of these gangs, in seat order: asked before every move, and only a handful of
    seatings and acting sets exist."""
    return tuple(sorted(seats.index(g) for g in gangs))


class TerrainVagueVersion1(TerrainVague):
    """Rules version 1, kept for the games recorded under it: the same but for a gang leaving
    during the wrestling, whose unfought duels all went with it."""

    version = 1

    def forfeit(self, state: State, seat: int) -> State:
        return turns.forfeit(state, state.seats[seat], leave_duels=wrestling.drop_gang_duels)


RULES = TerrainVague()
VERSION_1 = TerrainVagueVersion1()
