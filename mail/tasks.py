"""Play-by-email tasks (`mail.services` has the design). Each takes ids and is safe to run twice:
a fan-out is guarded by its cursor, a send by its lease, a reply by its stored outcome."""

from __future__ import annotations

from celery import shared_task

from games.dispatch import INFRASTRUCTURE_ERRORS
from mail import services


@shared_task(name="mail.fan_out", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def fan_out(game_id: int) -> int:
    return services.fan_out(game_id=game_id)


@shared_task(name="mail.send", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=3, time_limit=120)
def send(outgoing_id: int) -> str | None:
    """The mail's status after this attempt (None: not due, or another worker has it); the
    metrics count it (project.metrics)."""
    return services.outgoing_send(outgoing_id=outgoing_id)


@shared_task(name="mail.handle_inbound", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def handle_inbound(inbound_id: int) -> str:
    return services.inbound_handle(inbound_id=inbound_id)


@shared_task(name="mail.forced_moves", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def forced_moves(game_id: int) -> int:
    return services.forced_moves_play(game_id=game_id)


@shared_task(name="mail.sweep", acks_late=True, ignore_result=True, expires=10)
def sweep() -> int:
    """Every few seconds: mails due (retries, lost sends), digests due, deadline warnings, and
    games whose fan-out request was lost. No retry: the next beat is the retry."""
    return (services.due_send() + services.digests_send() + services.deadline_warnings_note() + services.fan_outs_missed() + services.inbound_unread_handle()
            + services.forced_moves_missed())
