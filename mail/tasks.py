"""Play-by-email tasks (`mail.services` has the design). Each takes ids and is safe to run twice:
a reply by its stored outcome. The fan-out, the sends, the forced moves and the sweep are the
consumer framework's tasks (`consumers.tasks`, `mail.consumer`, `mail.forced`)."""

from __future__ import annotations

from celery import shared_task

from games.dispatch import INFRASTRUCTURE_ERRORS
from mail import services


@shared_task(name="mail.handle_inbound", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True, max_retries=5)
def handle_inbound(inbound_id: int) -> str:
    return services.inbound_handle(inbound_id=inbound_id)
