"""What every write's decision shares: checking the version, hiding a private game, finding a seat."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games import selectors
from games.errors import GameNotFound, NotAPlayer, StaleSeq
from games.models import Game
from rules.words import msg

# A bot seat, or a person's seat a stand-in bot plays after a timeout (`games.timeouts`).
BOT_PLAYED = ~Q(bot="") | ~Q(stand_in="")


def check_version(game: Game, expected_seq: int) -> None:
    if expected_seq != game.seq:
        raise StaleSeq(msg("expected_seq is {expected} but the game is at {seq}", expected=expected_seq, seq=game.seq), seq=game.seq)


def hide_from_strangers(game: Game, user: Any) -> None:
    """A private game is, to anyone who may not see it, a game that does not exist: every write
    checks this before anything else about the game (its seq, its status, the caller's seat)
    could be told. A public game costs one attribute read."""
    if game.private and not selectors.may_see(game=game, user=user):
        raise GameNotFound(msg("there is no game {id}", id=game.pk))


def seat_of(game: Game, user: Any) -> int:
    index = next((seat.index for seat in game.seat_rows() if seat.user_id == user.pk and user.pk is not None), None)
    if index is None:
        raise NotAPlayer(msg("you have no seat in game {pk}", pk=game.pk))
    return index
