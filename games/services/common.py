"""What every write shares: taking the game's row lock, checking the version, finding a seat."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games import hotpath, selectors
from games.errors import GameNotFound, NotAPlayer, StaleSeq
from games.models import Game

# A bot seat, or a person's seat a stand-in bot plays after a timeout (`games.timeouts`).
BOT_PLAYED = ~Q(bot="") | ~Q(stand_in="")


def locked_game(game_id: int) -> Game:
    """The game, with its row locked until the transaction ends (every write takes this). The
    row is changed too, so that a move read before this transaction commits finds its version
    moved on and is decided again (`games.hotpath.move_transaction`)."""
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotFound(f"there is no game {game_id}") from None
    hotpath.version_moved_on(game_id)
    hotpath.remember_loaded(game)
    return game


def locked_game_loaded(game_id: int, *, user_id: int | None = None, idempotency_key: str | None = None,
                       tx: hotpath.MoveTransaction | None = None) -> Game:
    """The game for the path of a move: in the same statement, the seats, the deadline rows, the
    newest event's hash and the caller's earlier use of its idempotency key
    (`games.hotpath.locked_read`): locked as by `locked_game`, or, in a move's transaction `tx`
    that checks versions instead, with the version its unit of work checks."""
    game = hotpath.locked_read(game_id, user_id=user_id, idempotency_key=idempotency_key, tx=tx)
    if game is None:
        raise GameNotFound(f"there is no game {game_id}")
    return game


def check_version(game: Game, expected_seq: int) -> None:
    if expected_seq != game.seq:
        raise StaleSeq(f"expected_seq is {expected_seq} but the game is at {game.seq}", seq=game.seq)


def hide_from_strangers(game: Game, user: Any) -> None:
    """A private game is, to anyone who may not see it, a game that does not exist: every write
    checks this before anything else about the game (its seq, its status, the caller's seat)
    could be told. A public game costs one attribute read."""
    if game.private and not selectors.may_see(game=game, user=user):
        raise GameNotFound(f"there is no game {game.pk}")


def seat_of(game: Game, user: Any) -> int:
    index = next((seat.index for seat in game.seat_rows() if seat.user_id == user.pk and user.pk is not None), None)
    if index is None:
        raise NotAPlayer(f"you have no seat in game {game.pk}")
    return index
