"""The consumer framework's tables: how far each consumer has followed each game for each
recipient (`Cursor`), the fields every outbox row carries for its lease and retries
(`OutboxRow`), and a plain outbox (`Message`) for consumers that need no table of their own.

A game is named by its id only, never by a foreign key into `games`."""

from __future__ import annotations

from django.db import models


class Cursor(models.Model):
    """How far `consumer` has followed a game for one recipient (an account, an endpoint): every
    notice up to `seq` is made. The fan-out takes this row's lock inside its transaction, so two
    fan-outs of one (consumer, recipient, game) never interleave, on any node."""

    consumer = models.CharField(max_length=40)
    recipient = models.BigIntegerField()
    game_id = models.BigIntegerField()
    seq = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("consumer", "recipient", "game_id"), name="consumer_cursor_unique"),
        ]
        indexes = [models.Index(fields=("consumer", "game_id"), name="consumer_cursor_game")]


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


class Message(OutboxRow):
    """One notice of a consumer with no table of its own, made once per `key` (by default
    consumer, recipient, game, seq, kind)."""

    consumer = models.CharField(max_length=40)
    recipient = models.BigIntegerField()
    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=40)
    game_id = models.BigIntegerField(null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=10, default=PENDING)
    error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=("consumer", "status", "next_attempt_at"), name="consumer_message_due"),
            models.Index(fields=("consumer", "recipient", "created_at"), name="consumer_message_quota"),
        ]
