"""Celery tasks. Each takes ids, reloads, and does nothing if the game has moved on, so a
redelivered or duplicated task is harmless: the version check in the service refuses it.

Deadlines are never parked in the broker as long countdowns: beat runs `sweep_deadlines` every
second, which sends `apply_timeout` for the deadlines that fall due (see `games.clocks`).
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games import clocks, services

# Retry only what the infrastructure did wrong; a refused move is an answer, not a failure.
INFRASTRUCTURE_ERRORS = (OperationalError, InterfaceError, ConnectionError)


@shared_task(
    name="games.play_bots",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    max_retries=5,
)
def play_bots(game_id: int, seq: int) -> None:
    """The bot seat that must act at (game, seq) moves; the next event wakes the next bot."""
    services.bot_seat_play(game_id=game_id, seq=seq)


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
    clocks.timeout_apply(game_id=game_id, seq=seq, seat=seat)


@shared_task(name="games.sweep_deadlines", acks_late=True, ignore_result=True, expires=5)
def sweep_deadlines() -> int:
    """Send `apply_timeout` for every deadline falling due; beat runs this every second. No
    retry: the next beat is the retry, and a sweep that outlived its beat expires unrun."""
    return clocks.sweep()


@shared_task(name="games.wake_stalled_bots", acks_late=True, ignore_result=True, expires=10)
def wake_stalled_bots() -> int:
    """Beat's safety net for bot seats whose wake-up was lost. Each wake-up expires unrun if it
    waits too long, so an outage cannot pile up work; a duplicate finds its seq gone and stops."""
    stalled = services.bots_stalled(idle_seconds=30)
    for game_id, seq in stalled:
        play_bots.apply_async((game_id, seq), expires=30)
    return len(stalled)
