"""Webhook tasks (`hooks.services` has the design). Each takes ids and is safe to run twice: a
fan-out is guarded by its cursor, an attempt by its lease."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from games.dispatch import INFRASTRUCTURE_ERRORS
from hooks import services

# An attempt's own timeouts end it well before this; the limit only stops a stuck worker.
ATTEMPT_LIMIT_SECONDS = 3 * settings.SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS + 10


@shared_task(name="hooks.fan_out", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def fan_out(game_id: int) -> int:
    return services.fan_out(game_id=game_id)


@shared_task(
    name="hooks.deliver",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    max_retries=3,
    time_limit=ATTEMPT_LIMIT_SECONDS,
)
def deliver(delivery_id: int) -> str | None:
    """What the attempt came to (None: not due, or another worker has it); the metrics count it
    (project.metrics)."""
    outcome = services.delivery_attempt(delivery_id=delivery_id)
    if outcome is None:
        return None
    return "delivered" if outcome.delivered else "retry" if outcome.retry else "refused"


@shared_task(name="hooks.sweep", acks_late=True, ignore_result=True, expires=5)
def sweep() -> int:
    """Every second: deliveries due (retries, and messages lost on the way to a worker), and
    deadline warnings. No retry: the next beat is the retry."""
    return services.deliveries_due_send() + services.deadline_warnings_note()


@shared_task(name="hooks.sweep_missed", acks_late=True, ignore_result=True, expires=30)
def sweep_missed() -> int:
    """Every few seconds: games whose fan-out request was lost; old delivery logs."""
    services.log_prune()
    return services.fan_outs_missed()
