"""Webhook reads: endpoints as their owner sees them, and each endpoint's delivery log."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from hooks.errors import WebhookNotFound
from hooks.models import Attempt, Delivery, Endpoint
from rules.words import msg

LOG_PAGE = 50


def endpoint_info(endpoint: Endpoint, *, with_secret: bool = False) -> dict[str, Any]:
    """An endpoint; its secret only in the answer that made it."""
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "events": endpoint.events,
        "game": endpoint.game_id,
        "description": endpoint.description,
        "active": endpoint.active,
        "disabled_at": endpoint.disabled_at,
        "disabled_reason": endpoint.disabled_reason,
        "created_at": endpoint.created_at,
        **({"secret": endpoint.secret} if with_secret else {}),
    }


def endpoint_list(*, user: Any) -> list[dict[str, Any]]:
    return [endpoint_info(endpoint) for endpoint in Endpoint.objects.filter(owner=user).order_by("pk")]


def endpoint_get(*, user: Any, endpoint_id: int) -> Endpoint:
    endpoint = Endpoint.objects.filter(owner=user, pk=endpoint_id).first()
    if endpoint is None:
        raise WebhookNotFound(msg("you have no webhook {endpoint_id}", endpoint_id=endpoint_id))
    return endpoint


def delivery_info(delivery: Delivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "webhook_id": delivery.webhook_id,
        "type": delivery.type,
        "game": delivery.game_id,
        "seq": delivery.seq,
        "status": delivery.status,
        "retries": delivery.retries,
        "next_attempt_at": delivery.next_attempt_at,
        "created_at": delivery.created_at,
        "delivered_at": delivery.delivered_at,
        "payload": delivery.payload,
        "attempts": [
            {
                "at": attempt.at,
                "status_code": attempt.status_code,
                "error": attempt.error,
                "duration_ms": attempt.duration_ms,
                "response_body": attempt.response_body,
            }
            for attempt in delivery.attempts.all()
        ],
    }


def delivery_log(*, user: Any, endpoint_id: int, before: int | None = None, limit: int = LOG_PAGE) -> dict[str, Any]:
    """The endpoint's deliveries, newest first, `limit` at a time; `next_before` asks for the
    page after this one."""
    endpoint = endpoint_get(user=user, endpoint_id=endpoint_id)
    deliveries = Delivery.objects.filter(endpoint=endpoint).order_by("-pk")
    if before is not None:
        deliveries = deliveries.filter(pk__lt=before)
    page = list(deliveries.prefetch_related(Prefetch("attempts", queryset=Attempt.objects.order_by("at")))[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return {
        "deliveries": [delivery_info(delivery) for delivery in page],
        "next_before": page[-1].pk if more else None,
    }


def delivery_of(*, delivery_id: int) -> dict[str, Any]:
    delivery = Delivery.objects.prefetch_related("attempts").get(pk=delivery_id)
    return delivery_info(delivery)
