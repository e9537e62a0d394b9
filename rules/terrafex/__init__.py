"""Terrafex (Steven Traver, 2001), rules id `terrafex`: terraforming with Icehouse pieces.

Rules in brief (terrafex.txt, settled by RULINGS.md)
----------------------------------------------------
Two players, White (seat drawn from the seed; moves first; row 0 is White's edge) and Black, on a
7x8 board. Green pieces are forests, yellow mountains, red fires, blue glaciers; sizes S/M/L are
worth 1/2/3. Each colour has 5 S, 5 M, 4 L in play (one L stands aside as a turn tracker); what is
not on the board is the pool; red pieces leaving the board go to the fire pit. A turn is four
actions, one per colour, in any order; an action with no legal option is skipped, one that has an
option may not be passed. Every exchange returns the outgoing pieces first, then takes the new
ones; if a needed piece is missing the whole action is illegal and nothing changes.
- Forest: grow a forest (not a frosted one) one size, or spread a small forest to an empty square
  next to a large forest.
- Mountain: start a small mountain on any empty square, or grow a mountain one size.
- Fire: the mover takes a red piece of a chosen size from the pool; the opponent plays it: start a
  small fire on an empty square (spread, next to a large fire, is a start there too), grow a fire
  one size smaller (the old one to the pit), burn a forest (the smaller shrinks the larger by its
  size and goes; equal: both go; a red result may come from the pit), or burn a frost.
- Glacier: move a glacier (capped forests included) one square orthogonally, away from a
  mountain, a glacier or the edge. Into a glacier: merge (above 3 gives L). Into a small
  mountain: push it to the empty square two beyond it. Into a medium mountain: shrink it; an M or L
  glacier splits in two (S+S, S+M). Into a large mountain: shrink it; the glacier splits into
  as many smalls as its size. Split glaciers are played one a square to the mountain's neighbours
  but the one beyond, each landing as if moved there. Into a fire: melt (smaller shrinks larger).
  Into a forest: shrink it, and the glacier tops it: capped if bigger, frosted if not.
- Capped forest (glacier bigger than the forest under it): out of the game and moves as a
  glacier; it returns when its glacier splits or melts. Glacier to capped: merge, forest under.
  Capped to capped: merge, a single medium forest under (illegal if none is to be had).
  Capped onto a forest (frosted or not): its own forest stays, uncapped, on the square it left,
  and the glacier then acts on the target as any glacier does.
- Frosted forest: a forest that may not grow; fire burns only its frost; a glacier merges with
  the frost and the forest is then capped or frosted by the result.
- The game ends the moment no glacier (capping glaciers count, frost does not) is on the board.
  Each forest and mountain scores its size, each fire costs its size, for the owner of the band
  round it (even squares: S White, M Black, L White; odd squares reversed). Higher score wins.

Move encoding (squares are [row, col]; sizes "S", "M", "L")
-----------------------------------------------------------
- {"type": "forest", "action": "grow", "at": [r, c]}
- {"type": "forest", "action": "spread", "to": [r, c]}
- {"type": "mountain", "action": "start", "to": [r, c]}
- {"type": "mountain", "action": "grow", "at": [r, c]}
- {"type": "fire", "size": "S"}: the mover takes the fire; then the opponent, inside the mover's
  turn (`to_act` names the opponent), plays {"type": "place_fire", "to": [r, c]}: the square says
  which of start, grow, burn forest or burn frost it is.
- {"type": "glacier", "from": [r, c], "dir": "N"|"E"|"S"|"W"} and, when it reaches a medium or
  large mountain, "place": [{"to": [r, c], "size": "S"}, ...], one entry per resulting glacier; an
  entry landing on another medium or large mountain carries its own "place" list. Placements
  resolve in the order listed (legal_moves lists them in square order).

Rulings made here (neither the book nor RULINGS.md says)
--------------------------------------------------------
- A glacier may not move off the board. A capped forest moves with its glacier.
- A split glacier is placed, not moved: it needs nothing behind it; it lands "as if moved" from
  the mountain's square towards its own (so a small mountain there is pushed on that way, and a
  medium or large one splits it again, with a nested "place" list).
- Placements resolve in the order the move lists them; legal_moves lists each distinct
  assignment of pieces to squares once, in square order (apply accepts any order).
- A frosted forest is still a forest for spreading: a frosted large forest may spread.
- An action with no option when the turn began, or after an earlier action, may still be taken
  (and must be) if a later action of the same turn gives it one; the turn ends when no untaken
  action has an option.
- The mover may take only a fire size that the opponent can then play somewhere; if no size can
  be played, the fire action has no option and is skipped.
- A fire as big as the frost it burns, or bigger, is spent: the frost goes to the pool, the whole fire to
  the fire pit, the forest is untouched ("only affect the frost, regardless of the size").
- A melt draws its red result from the pool only (RULINGS: the pit supplies only a burn's result).
- A capping glacier that melts, wholly or partly, returns its forest to the square it left (as a
  split does, RULINGS); what remains of the glacier or fire stays on the target square.
- A capped forest moving onto a forest or a frosted forest leaves its own forest on the square
  it left (a glacier covers one forest), then acts on the target as a glacier.
- A split that has fewer free neighbour squares (on the board, not beyond) than glaciers is
  illegal; a split that needs more pieces than the pool holds is illegal.
- Endless games: the book lets play go on forever once the fires are gone. The game also ends,
  scored as usual, after 40 turns in a row (both players' turns counted) in which no glacier met
  a fire (data.QUIET_TURN_LIMIT). A turn with no legal action passes (and counts).
- Equal scores are a draw: no winner. A forfeit: the other player wins (scores as on the board).
- Timeout: the first legal move in listing order (forest, mountain, fire, glacier options; for a
  fire placement, the first square in reading order). No move is secret; there is no chance after
  setup, so views are the whole state and `sample_state` rebuilds it from the view.
- Option `first_player` (`drawn`, the book's way, by default; or `seat_0`: seat 0 plays White), a
  house option for tournaments, whose pairing gives out White as a chess pairing does.
"""

from __future__ import annotations

import random
from typing import Any

from rules.base import Outcome, Rules
from rules.errors import IllegalMove, NotYourTurn
from rules.fields import require_mapping
from rules.options import Option, first_player, first_player_option
from rules.rng import Rng
from rules.terrafex import moves, presentation, render, turns
from rules.terrafex.board import has_glacier
from rules.terrafex.data import DEFAULT_LAYOUT, QUIET_TURN_LIMIT
from rules.terrafex.layout import layout_board, layout_pieces
from rules.terrafex.state import State, dump, from_view, load, seat_scores, view
from rules.values import evolve
from rules.words import msg

LAYOUT_OPTION = Option(
    name="layout",
    type="json",
    default=DEFAULT_LAYOUT,
    description=msg(
        "Starting layout: 1 or 2 (the book's appendix), or a custom list of pieces, each "
        '{"row": 0-6, "col": 0-7, "size": "S"|"M"|"L", "colour": "green"|"yellow"|"red"|"blue"} '
        "or [row, col, size, colour]; at least one glacier and one forest, one piece a square, "
        "no more pieces than the supply (5 S, 5 M, 4 L a colour)."
    ),
    choices=(1, 2),
    label=msg("Layout"),
)


class Terrafex(Rules):
    id = "terrafex"
    title = "Terrafex"
    min_players = 2
    max_players = 2
    options = (LAYOUT_OPTION, first_player_option())

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        layout_pieces(options["layout"])

    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> State:
        chosen = self.normalize_options(players, options)
        board, pool = layout_board(layout_pieces(chosen["layout"]))
        white = first_player(chosen, Rng(seed).below(2)[0])
        return turns.begin(State(board=board, pool=pool, pit=(0, 0, 0), white=white, mover=white))

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if turns.is_over(state) else (turns.actor(state),)

    def legal_moves(self, state: State, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act(state):
            return []
        return turns.moves_for(state)

    def apply(self, state: State, seat: int, move: dict[str, Any]) -> State:
        require_mapping(move)
        if turns.is_over(state):
            raise IllegalMove(msg("the game is over"), "game_over")
        if seat != turns.actor(state):
            acting = turns.actor(state)
            message = msg("seat {seat} may not play {type!r} now: seat {acting} is to act", seat=seat, type=move['type'], acting=acting)
            raise NotYourTurn(message)
        return turns.apply_move(state, move)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat, self.to_act(state))

    def outcome(self, state: State) -> Outcome | None:
        if not turns.is_over(state):
            return None
        scores = seat_scores(state)
        if state.forfeited is not None:
            return Outcome(tuple(map(float, scores)), (1 - state.forfeited,), "forfeit")
        reason = "the last glacier melted" if not has_glacier(state.board) else (
            f"no glacier met a fire for {QUIET_TURN_LIMIT} turns"
        )
        if scores[0] == scores[1]:
            return Outcome(tuple(map(float, scores)), (), f"{reason}; equal scores, a draw")
        return Outcome(tuple(map(float, scores)), (0 if scores[0] > scores[1] else 1,), reason)

    def timeout_move(self, state: State, seat: int) -> dict[str, Any]:
        moves = self.legal_moves(state, seat)
        if not moves:
            raise NotYourTurn(msg("seat {seat} is not to act", seat=seat))
        return moves[0]

    def forfeit(self, state: State, seat: int) -> State:
        """The other player wins at once; a game already over stays as it ended."""
        return state if turns.is_over(state) else evolve(state, forfeited=seat)

    def describe_move(self, state: State, seat: int, move: dict[str, Any]) -> str:
        return moves.describe(move)

    def render_text(self, state: State, seat: int | None) -> str:
        result = self.outcome(state)
        return render.render(state, seat, self.to_act(state), result.reason if result else None)

    def panels(self, state: State, seat: int | None) -> list[dict[str, Any]]:
        return presentation.panels(state, seat)

    def prompt(self, state: State, seat: int) -> str:
        return presentation.prompt(state, seat)

    def cells(self, state: State, seat: int | None) -> dict[str, str]:
        return presentation.cells(state, seat)

    def dump(self, state: State) -> dict[str, Any]:
        return dump(state)

    def load(self, data: dict[str, Any]) -> State:
        return load(data)

    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        return from_view(view)


RULES = Terrafex()
