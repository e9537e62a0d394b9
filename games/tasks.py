"""Celery tasks. Each takes ids, reloads, and does nothing if the game has moved on, so a
redelivered or duplicated task is harmless: the version check in the service refuses it.

Deadlines are never parked in the broker as long countdowns: beat runs `sweep_deadlines` every
second, which sends `apply_timeout` for the deadlines that fall due (`games.deadlines`); a
timeout itself is `games.timeouts`. Writers send these tasks by name (`games.dispatch`): tasks
import the services, never the reverse. Bot turns and conditional lines are consumers of the log:
their tasks are the framework's (`consumers.tasks`).
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings

from accounts import services as account_services
from games import deadlines, selectors, services, time_controls, timeouts
from games.dispatch import INFRASTRUCTURE_ERRORS


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
