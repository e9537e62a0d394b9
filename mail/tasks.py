"""Play-by-email tasks (`mail.services` has the design). Each takes ids and is safe to run twice:
a reply by its stored outcome, a forced move by the game's version. The fan-out, the sends and
the sweep are the consumer framework's tasks (`consumers.tasks`, `mail.consumer`)."""

from __future__ import annotations

from celery import shared_task

from games.dispatch import INFRASTRUCTURE_ERRORS
from mail import services


@shared_task(name="mail.handle_inbound", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def handle_inbound(inbound_id: int) -> str:
    return services.inbound_handle(inbound_id=inbound_id)


@shared_task(name="mail.forced_moves", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def forced_moves(game_id: int) -> int:
    return services.forced_moves_play(game_id=game_id)
