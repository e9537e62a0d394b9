"""What every write shares: taking the game's row lock, checking the version, finding a seat."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games.errors import GameNotFound, NotAPlayer, StaleSeq
from games.models import Game

# A bot seat, or a person's seat a stand-in bot plays after a timeout (`games.timeouts`).
BOT_PLAYED = ~Q(bot="") | ~Q(stand_in="")


def locked_game(game_id: int) -> Game:
    """The game, with its row locked until the transaction ends (every write takes this)."""
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotFound(f"there is no game {game_id}") from None


def check_version(game: Game, expected_seq: int) -> None:
    if expected_seq != game.seq:
        raise StaleSeq(f"expected_seq is {expected_seq} but the game is at {game.seq}", seq=game.seq)


def seat_of(game: Game, user: Any) -> int:
    index = game.seats.filter(user=user).values_list("index", flat=True).first()
    if index is None:
        raise NotAPlayer(f"you have no seat in game {game.pk}")
    return index
