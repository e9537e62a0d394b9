"""Celery tasks. Each takes ids, reloads, and does nothing if the game has moved on, so a
redelivered or duplicated task is harmless: the version check in the service refuses it."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games import services

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
