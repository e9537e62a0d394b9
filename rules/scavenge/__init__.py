"""Scavenge (Ken Leyhe, piecepack), settled by RULINGS.md.

Rules in short. 2-4 players. The board is a 10x10 grid of squares with a 2x2 hole in the middle,
which is one square, the centre, where "the good stuff" lies. Each player has a token starting
on their start corner and 3 pieces of trash. The first player is drawn at random, then play goes
in seat order. At the start of each turn the die (0-5) is rolled for the seat to move, in the
open; the seat moves its token exactly that many steps, orthogonally, turning as it likes, never
on the same square twice, never off the board, never through the centre. A 0, or a roll with no
legal path, means the token stays. Tokens may pass over players and start points but never end
on another player's start point. Landing on a player sends that player home; a lander with
trash also hands one piece to the victim. A player with no trash may end on the centre, by exact
count, and takes the good stuff. On its next turn the carrier leaves the centre: its first step
is onto any square touching the hole (orthogonally or at a corner). The carrier may step
diagonally but may not pass over or land on any token. Landing on the carrier: a trash-free
lander takes the good stuff; a lander with trash gives one piece and the good stuff goes back to
the centre; the carrier goes home either way. The carrier wins by landing exactly on its own start
point. Option `straight_moves` (default false): every move is one straight line. Option
`first_player` (`drawn`, the book's way, by default; or `seat_0`): a house option for tournaments,
whose pairing gives out the first turn as chess gives out White; the seed's draw is still made, so
the dice after it are the same either way.

Moves (JSON):
- {"type": "move", "to": [row, col]} or {"type": "move", "to": "centre"}: end the move there
  (rows and columns 0-9; the four hole squares are named "centre" only). Only the destination is
  named; any legal path to it will do. legal_moves lists each reachable destination once.
- {"type": "stay"}: only when the roll is 0 or no legal path exists, and then it is the only
  legal move.
Error codes: `must_move`, `roll_is_zero`, `off_board`, `hole_square`, `own_start_only`,
`centre_needs_no_trash`, `no_good_stuff_in_centre`, `carrier_keeps_out_of_centre`,
`carrier_cannot_land_on_token`, `not_reachable` (IllegalMove); `unknown_move_type`,
`missing_destination`, `bad_destination` (MalformedMove); `not_your_turn`; `no_such_seat` (forfeit).

Our rulings, where the book and RULINGS.md are silent:
- Start corners: 2 players take opposite corners (0,0) and (9,9); 3 players (0,0), (0,9), (9,9);
  4 players go clockwise (0,0), (0,9), (9,9), (9,0) (data.START_CORNERS).
- The centre is a legal end only while the good stuff is there: lying there, or on a carrier still
  standing there (a trash-free player landing then steals it, as on any carrier). At any other
  time no one may end on it, and no one ever passes through it. The carrier never re-enters it.
- Non-carriers may pass over the carrier (the book lets them pass over players); they land on it
  only by ending their move there.
- The carrier may pass over start points (they are not tokens) but, like everyone, not end on
  another player's start point. Players standing on their own start point are therefore safe.
- With `straight_moves`, a player reaches the centre only by a line running into the hole, and
  the carrier leaves the centre by a line running out of it: its first square touches the hole
  and each further step keeps the direction from the hole square behind it (so (3,4) leads on
  up or up-left, the corner (3,3) only up-left). A line that runs off the board, passes or lands
  on a token, or ends on another player's start point is no move; with no line for the roll the
  carrier stays.
- A diagonal step between two squares that touch the hole at a corner is allowed: it crosses no
  square of the hole.
- Forfeit: the seat's token, trash and start point leave the board (others may then end on that
  corner); if it carried the good stuff, the good stuff returns to the centre. If it was that
  seat's turn, the next seat in order rolls and moves. With one player left, that player wins.
- Timeout: stay if that is legal (it is then the only move), else the first listed move.
- Outcome scores: 1 for the winner, 0 for everyone else.
"""

from __future__ import annotations

import random
from typing import Any

from rules.base import Move, Outcome, Rules
from rules.errors import IllegalMove
from rules.fields import require_mapping
from rules.options import Option, first_player, first_player_option
from rules.rng import Rng
from rules.scavenge import board, data, moves, presentation, render, turns
from rules.scavenge.state import ScavengeState, begin_turn, dump, finish, from_view, load, view
from rules.values import evolve
from rules.words import msg


class Scavenge(Rules):
    id = "scavenge"
    title = "Scavenge"
    min_players = 2
    max_players = 4
    chance = True
    options = (
        Option(
            name="straight_moves",
            type="bool",
            default=False,
            description=msg("Every move goes in one straight line."),
            label=msg("Straight moves"),
        ),
        first_player_option(),
    )

    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> ScavengeState:
        chosen = self.normalize_options(players, options)
        drawn, rng = Rng(seed).below(players)
        first = first_player(chosen, drawn)
        corners = data.START_CORNERS[players]
        state = ScavengeState(
            players=players,
            straight_moves=chosen["straight_moves"],
            positions=tuple(board.node_at(*corner) for corner in corners),
            trash=(data.TRASH_AT_START,) * players,
            carrier=None,
            turn=None,
            roll=None,
            rng=rng,
        )
        return begin_turn(state, first)

    def to_act(self, state: ScavengeState) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    def legal_moves(self, state: ScavengeState, seat: int) -> list[Move]:
        return turns.legal_moves(state, seat)

    def apply(self, state: ScavengeState, seat: int, move: Move) -> ScavengeState:
        destination = moves.parse(require_mapping(move))
        turns.check_turn(state, seat)
        node = moves.locate(destination)
        turns.check_destination(state, seat, node)
        return turns.resolve(state, seat, node)

    def view(self, state: ScavengeState, seat: int | None) -> dict[str, Any]:
        return view(state)

    def outcome(self, state: ScavengeState) -> Outcome | None:
        if not state.over:
            return None
        scores = tuple(1.0 if s == state.winner else 0.0 for s in range(state.players))
        return Outcome(scores=scores, winners=(state.winner,), reason=state.end_reason)

    def timeout_move(self, state: ScavengeState, seat: int) -> Move:
        return turns.legal_moves(state, seat)[0]  # "stay" when legal, as it is then the only move

    def forfeit(self, state: ScavengeState, seat: int) -> ScavengeState:
        if not 0 <= seat < state.players:
            raise IllegalMove(msg("there is no seat {seat}", seat=seat), "no_such_seat")
        if state.over or state.positions[seat] is None:
            return state
        positions = state.positions[:seat] + (None,) + state.positions[seat + 1 :]
        carrier = None if state.carrier == seat else state.carrier
        left = evolve(state, positions=positions, carrier=carrier)
        remaining = left.active_seats()
        if len(remaining) == 1:
            return finish(left, remaining[0], "last_player_standing")
        if state.turn == seat:
            return begin_turn(left, left.next_active_after(seat))
        return left

    def describe_move(self, state: ScavengeState, seat: int, move: Move) -> str:
        return moves.describe(state.roll, move)

    def panels(self, state: ScavengeState, seat: int | None) -> list[dict[str, Any]]:
        return presentation.panels(state, seat)

    def prompt(self, state: ScavengeState, seat: int) -> str:
        return presentation.prompt(state, seat)

    def cells(self, state: ScavengeState, seat: int | None) -> dict[str, str]:
        return presentation.cells(state, seat)

    def render_text(self, state: ScavengeState, seat: int | None) -> str:
        return render.render(state, seat)

    def dump(self, state: ScavengeState) -> dict[str, Any]:
        return dump(state)

    def load(self, data: dict[str, Any]) -> ScavengeState:
        return load(data)

    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> ScavengeState:
        return from_view(view, rng)


RULES = Scavenge()
