"""What happens when a deadline passes (`games.apply_timeout` runs this), by the game's policy:

- `auto` plays the rules' `timeout_move`;
- `bot` seats a stand-in (`SCRAPYARD_STAND_IN_BOT`) that makes the timeout move and every later
  move of that seat until its owner returns (`services.seat_return`);
- `forfeit` forfeits the seat.

The policy's move is worked out before the game's row lock is taken (a stand-in bot searches for
up to `SCRAPYARD_BOT_DECISION_SECONDS`, which must not hold up the game's other writers); under
the lock the seq and the deadline are checked again, so a move made meanwhile wins and the
timeout does nothing. A duplicate or late task finds the game moved on and does nothing too, and
a task killed mid-way rolls back with its transaction. After a bank timeout the seat has only
the increment left (at most the cap).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from django.conf import settings
from django.db.models import F

import bots
from games import deadlines, services, store, time_controls, writer
from games.models import Deadline, Event, EventKind, Game, GameStatus
from project import metrics

log = logging.getLogger(__name__)

FORFEIT = object()  # the policy's answer when the seat is forfeited rather than moved for


def timeout_apply(*, game_id: int, seq: int, seat: int) -> Event | None:
    """The timeout of (game, seq, seat) if it is still due; None when the game moved on."""
    if deadlines.hand_back_if_moved(game_id, seat):
        return None
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not deadlines.is_due(game, seq, seat):
        return None
    move = _policy_move(game, seat)
    due_at = None

    def decide(change: writer.Change) -> Event | None:
        nonlocal due_at
        if not deadlines.is_due(change.game, seq, seat):
            return None  # a move or another timeout came first
        due_at = Deadline.objects.filter(game_id=game_id, seat=seat, seq=seq).values_list("due_at", flat=True).first()
        _fault_injection_pause()
        if game.timeout_policy == "bot":
            services.stand_in_take(change=change, seat=seat, bot=settings.SCRAPYARD_STAND_IN_BOT)
        payload = {"forfeit": True} if move is FORFEIT else {"move": move}
        return services.act(change, seat, EventKind.TIMEOUT, payload)

    event = writer.write(game_id, decide)
    if event is None:
        return None
    if due_at is not None:
        metrics.deadline_late((time_controls.now() - due_at).total_seconds())
    services.resign_after_timeouts(game_id=game_id, seat=seat)  # the owner gone: N timeouts in a row
    return event


def apply_overdue(*, grace_seconds: float, limit: int = 20, budget_seconds: float = 2.0) -> int:
    """Apply here, without the broker, the timeouts more than `grace_seconds` overdue (beat's
    backstop, `project.beat`): their messages were lost with a broker outage, or wait behind a
    worker still reconnecting. Each is applied as `games.apply_timeout` would (idempotent under the
    game's lock, so a message that does arrive later does nothing). The pass stops after
    `budget_seconds` (a stand-in bot's move is a search), leaving the rest to the next, so that
    beat goes on sending its schedule. Returns how many fired."""
    before = time_controls.now() - dt.timedelta(seconds=grace_seconds)
    overdue = (Deadline.objects.filter(due_at__lte=before, game__status=GameStatus.ACTIVE, seq=F("game__seq"))
               .order_by("due_at").values_list("game_id", "seq", "seat")[:limit])
    fired, stop_at = 0, time.monotonic() + budget_seconds
    for game_id, seq, seat in list(overdue):
        if time.monotonic() > stop_at:
            break
        try:
            fired += timeout_apply(game_id=game_id, seq=seq, seat=seat) is not None
        except Exception:  # one game's failure must not hold up the others' timeouts
            log.warning("overdue timeout of game %s seat %s not applied", game_id, seat, exc_info=True)
    return fired


def _policy_move(game: Game, seat: int) -> Any:
    """The move the policy makes for a timed-out seat at the game's current seq, or FORFEIT."""
    if game.timeout_policy == "forfeit":
        return FORFEIT
    game_rules = store.rules_of(game)
    state = store.state_at(game)
    if game.timeout_policy == "auto":
        return game_rules.timeout_move(state, seat)
    spec = bots.get(settings.SCRAPYARD_STAND_IN_BOT)
    return bots.choose_move(
        game_rules, game_rules.view(state, seat), seat, bot=spec.name, level=spec.default_level,
        seed=services.bot_seed(game, game.seq), max_seconds=settings.SCRAPYARD_BOT_DECISION_SECONDS,
    )


def _fault_injection_pause() -> None:
    """Tests kill a worker here (SCRAPYARD_CLOCKS_FAULT_PAUSE seconds, 0 in production)."""
    pause = settings.SCRAPYARD_CLOCKS_FAULT_PAUSE
    if pause:
        log.warning("apply_timeout: pausing %.1f s inside the game lock (fault injection)", pause)
        time.sleep(pause)
