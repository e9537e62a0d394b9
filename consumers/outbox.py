"""The base of every consumer's outbox table: what the framework reads and writes on a row.

An abstract model, apart from `consumers.models`, so that another app's outbox (mail's
`Outgoing`, hooks' `Delivery`) grows from it without reaching into this app's own tables."""

from __future__ import annotations

from django.db import models

PENDING, FAILED = "pending", "failed"


class OutboxRow(models.Model):
    """What the framework needs of a consumer's outbox row: a `status` that is "pending" until
    done or "failed", the failed attempts retried so far, when the next attempt is due, the lease
    of the worker attempting it, and when it was last sent to the queue (the sweep resends what
    no worker took up)."""

    retries = models.PositiveSmallIntegerField(default=0, help_text="failed attempts since it was made or replayed")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    leased_until = models.DateTimeField(null=True, blank=True, help_text="a worker is attempting it until then")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="last time it was sent to the queue")

    class Meta:
        abstract = True
