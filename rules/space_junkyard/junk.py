"""The new junk phase: the drawn tile is pushed into the map from an entry not closed to the mover.
"""

from __future__ import annotations

from rules.base import Move
from rules.errors import IllegalMove
from rules.space_junkyard import board
from rules.space_junkyard.data import ASTEROIDS_PER_TURN
from rules.space_junkyard.flow import draw, finish, next_turn
from rules.space_junkyard.moves import entry_field
from rules.space_junkyard.state import State, forbidden_entries
from rules.words import msg


def junk_moves(state: State) -> list[Move]:
    forbidden = forbidden_entries(state)
    entries = board.all_entries(state.size)
    return [{"type": "push", "entry": entry} for entry in entries if entry not in forbidden]


def push_junk(state: State, move: Move) -> State:
    entry = entry_field(state, move)
    if entry in forbidden_entries(state):
        raise IllegalMove(
            msg("push {entry}: another player pushed in at {entry2} since your last turn", entry=entry, entry2=board.opposite_entry(entry)),
            "opposite_entry",
        )
    recent = (*state.recent, (state.turn.seat, entry))[-2 * state.players :]
    state = state.with_mover(
        turn={"pushes": state.turn.pushes + 1},
        drawn=None,
        recent=recent,
        **board.pushing(state, entry, state.drawn),
    )
    return _after_push(state)


def _after_push(state: State) -> State:
    """With `more_junk` a turn that took two asteroids pushes a second tile; the game ends right
    after the push that empties the stack."""
    if not state.stack:
        return finish(state, "stack_empty")
    extra = state.options.more_junk and state.turn.asteroids == ASTEROIDS_PER_TURN
    if extra and state.turn.pushes == 1:
        return draw(state)
    return next_turn(state)
