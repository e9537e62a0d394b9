"""Celery tasks. Each takes ids, reloads, and does nothing if the game has moved on, so a
redelivered or duplicated task is harmless: the version check in the service refuses it.

Deadlines are never parked in the broker as long countdowns: beat runs `sweep_deadlines` every
second, which sends `apply_timeout` for the deadlines that fall due (`games.deadlines`); a
timeout itself is `games.timeouts`. Writers send these tasks by name (`games.dispatch`): tasks
import the services, never the reverse.
"""

from __future__ import annotations

import datetime as dt
import random

from celery import shared_task
from django.conf import settings

from accounts import services as account_services
from games import bot_quota, deadlines, selectors, services, time_controls, timeouts
from games.dispatch import INFRASTRUCTURE_ERRORS

# How long a bot turn over its account's quota waits before it asks again (plus jitter).
QUOTA_WAIT_SECONDS = 0.5


@shared_task(
    name="games.play_bots",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    max_retries=5,
    bind=True,
)
def play_bots(self, game_id: int, seq: int) -> None:
    """The bot seat that must act at (game, seq) moves; the next event wakes the next bot.

    The game first takes one of its creator's bot slots (`games.bot_quota`); with every slot
    busy the turn goes back in the queue for a moment, so one account's many games take turns
    with each other and never hold every bot worker."""
    if self.request.is_eager:  # one process playing every bot in turn: nothing to share
        services.bot_seat_play(game_id=game_id, seq=seq)
        return
    owner = selectors.game_owner_id(game_id=game_id)
    hold = 2 * settings.SCRAPYARD_BOT_DECISION_SECONDS + 10
    with bot_quota.slot(owner, slots=settings.SCRAPYARD_BOT_GAMES_PER_ACCOUNT, hold_seconds=hold) as held:
        if held:
            services.bot_seat_play(game_id=game_id, seq=seq)
            return
    # Jitter, so an account's waiting games do not all come back in the same instant.
    play_bots.apply_async((game_id, seq), countdown=QUOTA_WAIT_SECONDS * (1 + random.random()), expires=120)


@shared_task(
    name="games.apply_timeout",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=5,
    max_retries=5,
)
def apply_timeout(game_id: int, seq: int, seat: int) -> None:
    """The timeout of `seat` at (game, seq), once: nothing if the game moved on or time is left."""
    timeouts.timeout_apply(game_id=game_id, seq=seq, seat=seat)


@shared_task(name="games.sweep_deadlines", acks_late=True, ignore_result=True, expires=5)
def sweep_deadlines() -> int:
    """Send `apply_timeout` for every deadline falling due; beat runs this every second. No
    retry: the next beat is the retry, and a sweep that outlived its beat expires unrun. Vacations
    whose days ran out end here too, so their clocks run again on time."""
    sent = deadlines.sweep()
    account_services.vacations_expire()
    return sent


@shared_task(name="games.sweep_abandoned", acks_late=True, ignore_result=True, expires=600)
def sweep_abandoned() -> int:
    """Every hour: adjourn the games no person has moved in for SCRAPYARD_ABANDON_DAYS, and abort
    those still untouched SCRAPYARD_ADJOURN_GRACE_DAYS later."""
    at = time_controls.now()
    idle = dt.timedelta(days=settings.SCRAPYARD_ABANDON_DAYS)
    grace = dt.timedelta(days=settings.SCRAPYARD_ADJOURN_GRACE_DAYS)
    ended = 0
    for game_id in selectors.games_maybe_abandoned(before=at - idle):
        ended += services.abandoned_end(game_id=game_id, at=at, idle=idle, grace=grace) is not None
    return ended


@shared_task(name="games.wake_stalled_bots", acks_late=True, ignore_result=True, expires=10)
def wake_stalled_bots() -> int:
    """Beat's safety net for bot seats whose wake-up was lost. Each wake-up expires unrun if it
    waits too long, so an outage cannot pile up work; a duplicate finds its seq gone and stops."""
    stalled = services.bots_stalled(idle_seconds=settings.SCRAPYARD_BOT_STALLED_SECONDS)
    for game_id, seq in stalled:
        play_bots.apply_async((game_id, seq), expires=30)
    return len(stalled)


@shared_task(
    name="games.play_conditionals",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=5,
    max_retries=5,
)
def play_conditionals(game_id: int, seq: int) -> None:
    """After event `seq` of the game committed: the queued conditional line it answers plays its
    reply (`games.services.conditionals`); once per (game, seq), a duplicate finds nothing due."""
    services.conditionals_play(game_id=game_id, seq=seq)


@shared_task(name="games.sweep_conditionals", acks_late=True, ignore_result=True, expires=10)
def sweep_conditionals() -> int:
    """Beat's net for conditional lines whose wake-up was lost."""
    stalled = services.conditionals_stalled(idle_seconds=settings.SCRAPYARD_CONDITIONALS_STALLED_SECONDS)
    for game_id, seq in stalled:
        play_conditionals.apply_async((game_id, seq), expires=30)
    return len(stalled)
