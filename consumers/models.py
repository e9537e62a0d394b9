"""The consumer framework's tables: how far each consumer has followed each game for each
recipient (`Cursor`), the fields every outbox row carries for its lease and retries
(`consumers.outbox.OutboxRow`), and a plain outbox (`Message`) for consumers that need no table of their own.

A game is named by its id only, never by a foreign key into `games`."""

from __future__ import annotations

from django.db import models

from consumers.outbox import PENDING, OutboxRow


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
