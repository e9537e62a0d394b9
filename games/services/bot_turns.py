"""Bot turns: a bot seat (or a stand-in) that must act makes its move, and the sweep's list of
bot turns whose wake-up was lost. The bot searches before any lock is taken; the move then goes
through `seat_act`, whose version check refuses it if the game moved on meanwhile.

Bot turns are a consumer of the log (`consumers.framework`, `BotTurns`): the writer says at the
commit whether a bot seat is to act, the framework's fan-out (on the `bots` queue) makes one row
per (game, seq) and attempts it at once in the same worker, so a reply is one message after the
commit; the lease, the retries with backoff and the sweep are the framework's. A game's bots
take turns with its creator's other games (`games.bot_quota`): with every slot busy the row
waits its turn (`Outcome.again_in`), with no retry counted."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

import bots
from consumers import framework
from games import bot_quota, store
from games.errors import StaleSeq
from games.models import Event, EventKind, Game, GameStatus, Seat
from games.services.common import BOT_PLAYED
from games.services.moves import seat_act
from project import metrics
from project.celery import tasks_eager

# How long a bot turn over its account's quota waits before it asks again (plus jitter).
QUOTA_WAIT_SECONDS = 0.5
GAME = 0  # the one recipient of a game's bot turns: its bot seats together


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
            max_seconds=settings.SCRAPYARD_BOT_DECISION_SECONDS, in_a_row=actions_in_a_row(game_id, seat.index),
        )
    try:
        return seat_act(game_id=game_id, seat=seat.index, expected_seq=seq, kind=EventKind.MOVE, move=move)
    except StaleSeq:
        return None  # somebody else acted first: the task for the new seq takes over


def actions_in_a_row(game_id: int, seat: int) -> int:
    """How many of the log's latest events are this seat's moves, with no other seat's (nor a
    resignation, a draw, a forfeit) between: read up to the bots' limit, newest first."""
    latest = Event.objects.filter(game_id=game_id).order_by("-seq").values_list("seat", "kind")
    count = 0
    for event_seat, kind in latest[:bots.MOST_ACTIONS_IN_A_ROW]:
        if event_seat != seat or kind != EventKind.MOVE:
            break
        count += 1
    return count


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


class BotTurns(framework.Consumer):
    """A bot seat to act at (game, seq) makes its move: one row per (game, seq)."""

    name = "bots"
    queue = "bots"  # a bot's search never waits behind mail, nor a deadline behind a search
    attempt_in_fan_out = True
    retry_waits = (1, 5, 30, 120)  # a failed search (a worker's error): soon, then less often

    @property
    def lease_seconds(self) -> float:
        return 2 * settings.SCRAPYARD_BOT_DECISION_SECONDS + 10

    @property
    def missed_sweep_seconds(self) -> float:
        return min(10.0, settings.SCRAPYARD_BOT_STALLED_SECONDS)

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool | None:
        return hints.get("bots")  # the writer knows; None (news with no hints): ask `listens_to`

    def listens_to(self, game_id: int) -> bool:
        return Game.objects.filter(pk=game_id, status=GameStatus.ACTIVE, seats__in=Seat.objects.filter(BOT_PLAYED)).exists()

    def recipients(self, game_id: int) -> dict[int, int | None]:
        return {GAME: None}

    def game(self, game_id: int, seat: int | None) -> dict[str, Any]:
        seq, status = Game.objects.filter(pk=game_id).values_list("seq", "status").first() or (0, "")
        return {"game": game_id, "seq": seq, "status": status}

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        if game["status"] != GameStatus.ACTIVE:
            return []
        return [framework.message(recipient=GAME, kind="bot_turn", game_id=game["game"], seq=game["seq"],
                                  key=f"bots:{game['game']}:{game['seq']}")]

    def followed(self, since: Any) -> list[dict[str, Any]]:
        return [{"game": game_id, "seq": seq, "recipients": [GAME]}
                for game_id, seq in bots_stalled(idle_seconds=settings.SCRAPYARD_BOT_STALLED_SECONDS)]

    def deliver(self, row: Any) -> framework.Outcome:
        """The turn, once the game has one of its creator's bot slots; none free: it waits its go."""
        if tasks_eager():  # one process playing every bot in turn: nothing to share
            bot_seat_play(game_id=row.game_id, seq=row.seq)
            return framework.Outcome(delivered=True)
        owner = Game.objects.filter(pk=row.game_id).values_list("created_by_id", flat=True).first()
        with bot_quota.slot(owner, slots=settings.SCRAPYARD_BOT_GAMES_PER_ACCOUNT, hold_seconds=self.lease_seconds) as held:
            if held:
                bot_seat_play(game_id=row.game_id, seq=row.seq)
                return framework.Outcome(delivered=True)
        return framework.Outcome(delivered=False, again_in=QUOTA_WAIT_SECONDS, note="the account's bot slots are busy")


BOT_TURNS = framework.register(BotTurns())
