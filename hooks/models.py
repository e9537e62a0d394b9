"""Webhook endpoints, what each has been told, and every attempt to tell it.

A game is named by its id only (`game_id`), never by a foreign key into `games`: this app reads
games through `games.selectors` alone.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from consumers.outbox import OutboxRow
from hooks.transport import KEPT_BYTES


class Endpoint(models.Model):
    """A URL an account wants POSTed to when something it follows happens (`hooks.events`)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField(max_length=2000)
    events = models.JSONField(help_text="the notice types it wants (hooks.events.TYPES)")
    game_id = models.BigIntegerField(null=True, blank=True, help_text="only this game's news (any game, as its spectator if not seated)")
    description = models.CharField(max_length=200, blank=True, default="")
    secret = models.CharField(max_length=64, help_text="whsec_ + base64 of the HMAC key")
    active = models.BooleanField(default=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=("active", "game_id"), name="endpoint_active_game")]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.owner_id} -> {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "pending: due at next_attempt_at"
    DELIVERED = "delivered", "delivered: the endpoint answered 2xx"
    FAILED = "failed", "failed: refused, or retried for a day in vain"


class Delivery(OutboxRow):
    """One message to one endpoint: the webhooks consumer's outbox row (`consumers.framework`
    leases, retries and sweeps it). `webhook_id` is derived from (endpoint, game, seq, type), so
    a repeated fan-out finds the message already there, and every retry carries the same id."""

    KEY_FIELD, KIND_FIELD = "webhook_id", "type"

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    webhook_id = models.CharField(max_length=100, unique=True)
    type = models.CharField(max_length=32)
    game_id = models.BigIntegerField(null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=("status", "next_attempt_at"), name="delivery_due"),
            models.Index(fields=("endpoint", "-id"), name="delivery_log"),
            models.Index(fields=("created_at",), name="delivery_age"),
        ]

    def __str__(self) -> str:
        return f"{self.webhook_id} ({self.status})"


class Replay(models.Model):
    """A delivery sent again at its owner's asking: a POST a person causes at will, counted with
    the pings against the account's quota (`hooks.services.replay`)."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="replays")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=("owner", "created_at"), name="replay_quota")]


class Attempt(models.Model):
    """One POST of a delivery and what came back (at most 1 KB of the body: `transport.KEPT_BYTES`)."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    response_body = models.CharField(max_length=KEPT_BYTES, blank=True, default="")

    class Meta:
        ordering = ("at",)
