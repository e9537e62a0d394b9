"""Bot turns: a bot seat (or a stand-in) that must act makes its move, and the sweep's list of
bot turns whose wake-up was lost. The bot searches before any lock is taken; the move then goes
through `seat_act`, whose version check refuses it if the game moved on meanwhile."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

import bots
from games import store
from games.errors import StaleSeq
from games.models import Event, EventKind, Game, GameStatus, Seat
from games.services.common import BOT_PLAYED
from games.services.moves import seat_act
from project import metrics


def bot_seat_play(*, game_id: int, seq: int) -> Event | None:
    """One bot seat that must act at `seq` makes its move; None if the game has moved on or no
    bot is to act. The bot sees only its seat's view."""
    game = Game.objects.filter(pk=game_id, seq=seq, status=GameStatus.ACTIVE).first()
    if game is None:
        return None
    seat = game.seats.filter(BOT_PLAYED, index__in=game.to_act).order_by("index").first()
    if seat is None:
        return None
    game_rules = store.rules_of(game)
    view = game_rules.view(store.state_at(game), seat.index)
    spec = bots.get(seat.bot or seat.stand_in)
    level = seat.bot_level if seat.bot else spec.default_level
    with metrics.timed(metrics.BOT_DECISION):
        move = bots.choose_move(
            game_rules, view, seat.index, bot=spec.name, level=level, seed=bot_seed(game, seq),
            max_seconds=settings.SCRAPYARD_BOT_DECISION_SECONDS,
        )
    try:
        return seat_act(game_id=game_id, seat=seat.index, expected_seq=seq, kind=EventKind.MOVE, move=move)
    except StaleSeq:
        return None  # somebody else acted first: the task for the new seq takes over


def bot_seed(game: Game, seq: int) -> str:
    """A bot's randomness for the decision at `seq`: reproducible from the game's seed, one-way,
    so a bot never holds the seed that decides the game's chance."""
    return hashlib.sha256(f"bot:{game.seed}:{seq}".encode()).hexdigest()


def bots_stalled(*, idle_seconds: float, limit: int = 500) -> list[tuple[int, int]]:
    """(game, seq) of active games where a bot-played seat is to act and nothing has happened
    for `idle_seconds`: its wake-up message was lost (a broker outage, a worker lost mid-task)."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    candidates = (
        Game.objects.filter(status=GameStatus.ACTIVE, updated_at__lt=cutoff, seats__in=Seat.objects.filter(BOT_PLAYED))
        .distinct()
        .prefetch_related("seats")[:limit]
    )
    return [
        (game.pk, game.seq)
        for game in candidates
        if any(seat.index in game.to_act and (seat.bot or seat.stand_in) for seat in game.seats.all())
    ]
