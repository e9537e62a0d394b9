"""The framework's tasks, the same for every consumer, each sent to the consumer's own queue
(`Consumer.queue`). Each takes ids and is safe to run twice: a fan-out is guarded by its cursor,
an attempt by its lease."""

from __future__ import annotations

from celery import shared_task

from consumers import framework
from games.dispatch import INFRASTRUCTURE_ERRORS


@shared_task(name=framework.FAN_OUT, acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def fan_out(consumer: str, game_id: int) -> int:
    return framework.fan_out(framework.get(consumer), game_id)


@shared_task(name=framework.DELIVER, acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True,
             max_retries=3, time_limit=180)
def deliver(consumer: str, row_id: int) -> str | None:
    """What the attempt came to (None: not due, or another worker has it); the metrics count it
    per consumer (project.metrics)."""
    declared = framework.get(consumer)
    outcome = framework.attempt(declared, row_id)
    if outcome is None:
        return None
    return outcome.status or (declared.done_status if outcome.delivered else "retry" if outcome.retry else "refused")


@shared_task(name=framework.SWEEP, acks_late=True, ignore_result=True, expires=5)
def sweep() -> int:
    """Every second: each consumer's due rows, lost fan-outs and own periodic work, at its own
    pace. No retry: the next beat is the retry."""
    return framework.sweep()
