"""Forced moves: when a seat's only legal move is forced (one choice: a roll's only stay, a lone
pass), the server may play it for the seat's player, who then spends no round trip on it. Who
wants that is the caller's to say (mail: `mail.services.forced_moves_play`, per account); this
plays one such move, as the player's own, after the commit that made it due.

Safe to call twice or late: the move is keyed by (game, seq, seat), and a game that moved on, a
seat not to act or a seat with a real choice is left alone.
"""

from __future__ import annotations

from typing import Any

from apikit import errors as apikit_errors
from games import selectors
from games.services.moves import Submitted, move_submit
from rules.errors import RulesError


def forced_move_play(*, game_id: int, seq: int, user: Any) -> Submitted | None:
    """Play the account's seat's only legal move in the game at `seq`; None if there is none."""
    game = selectors.game_get(game_id=game_id)
    if game.status != "active" or game.seq != seq:
        return None
    seat = selectors.seat_of(game=game, user=user)
    if seat is None or seat not in game.to_act:
        return None
    moves = selectors.legal_moves_for(game=game, user=user)["moves"]
    if len(moves) != 1:
        return None
    try:
        return move_submit(game_id=game_id, user=user, move=moves[0], expected_seq=seq,
                           idempotency_key=f"{selectors.FORCED_KEY_PREFIX}{game_id}-{seq}-{seat}")
    except (apikit_errors.ServiceError, RulesError):  # another move or a deadline came first: nothing to do
        return None
