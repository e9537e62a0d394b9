"""`/api/webhooks/`: an account's webhook endpoints, their delivery logs, replay and ping.

Every operation needs the `webhooks` scope. The signing secret is in the answer that makes the
endpoint and nowhere else.
"""

from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apikit.schema import operation
from apikit.views import ScopedApi, validated
from hooks import events, selectors, services


class WebhookInfo(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=events.TYPES))
    game = serializers.IntegerField(allow_null=True, help_text="only this game's news; null: every game of yours")
    description = serializers.CharField()
    active = serializers.BooleanField(help_text="false: paused by you, or disabled after a day of failed deliveries")
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    secret = serializers.CharField(
        required=False, help_text="whsec_…: the Standard Webhooks signing secret, in the answer that made it only"
    )


class AttemptInfo(serializers.Serializer):
    at = serializers.DateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="null: no answer (see error)")
    error = serializers.CharField(help_text="empty when delivered; else e.g. timeout, http_503, address_not_allowed")
    duration_ms = serializers.IntegerField()
    response_body = serializers.CharField(help_text="the first 1 KB of the answer")


class DeliveryInfo(serializers.Serializer):
    id = serializers.IntegerField()
    webhook_id = serializers.CharField(help_text="the webhook-id header: the same on every attempt")
    type = serializers.CharField()
    game = serializers.IntegerField(allow_null=True)
    seq = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
    retries = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    payload = serializers.DictField(help_text='the body POSTed: {"type", "timestamp", "data"}')
    attempts = AttemptInfo(many=True)


class DeliveryLog(serializers.Serializer):
    deliveries = DeliveryInfo(many=True)
    next_before = serializers.IntegerField(allow_null=True, help_text="pass as ?before= for older deliveries")


class WebhooksScoped(ScopedApi):
    """Every webhook operation: an account's own, with the `webhooks` scope."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "webhooks", "POST": "webhooks", "PATCH": "webhooks", "DELETE": "webhooks"}


class _WebhookFields(serializers.Serializer):
    url = serializers.CharField(max_length=2000, help_text="http:// or https://; must resolve to a public address")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=events.TYPES), min_length=1, help_text="what to be told"
    )
    game = serializers.IntegerField(min_value=1, allow_null=True, required=False, help_text="only this game's news")
    description = serializers.CharField(max_length=200, allow_blank=True, required=False)


class WebhooksApi(WebhooksScoped):
    """An account's webhook endpoints."""

    class WebhookCreateInputSerializer(_WebhookFields):
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=events.TYPES), min_length=1, required=False,
            default=list(events.TYPES), help_text="what to be told (default: everything)",
        )

    @operation("webhookList", summary="Your webhook endpoints (never their secrets)", answer=WebhookInfo(many=True),
               auth="required", scope="webhooks")
    def get(self, request):
        return Response(selectors.endpoint_list(user=request.user))

    @operation("webhookCreate", summary="Register a webhook endpoint; its signing secret is in this answer only",
               answer=WebhookInfo, status=201, request=WebhookCreateInputSerializer, body=True, auth="required",
               scope="webhooks", codes=["too_many_webhooks", "url_not_allowed", "game_not_found"])
    def post(self, request):
        data = validated(self.WebhookCreateInputSerializer, request.data)
        endpoint = services.endpoint_create(user=request.user, **data)
        return Response(selectors.endpoint_info(endpoint, with_secret=True), status=status.HTTP_201_CREATED)


class WebhookApi(WebhooksScoped):
    """One endpoint: read, change (`active: true` resumes a disabled one), delete."""

    class WebhookUpdateInputSerializer(_WebhookFields):
        url = serializers.CharField(max_length=2000, required=False)
        events = serializers.ListField(child=serializers.ChoiceField(choices=events.TYPES), min_length=1, required=False)
        active = serializers.BooleanField(required=False, help_text="true resumes it; false pauses it")

    @operation("webhookGet", summary="One of your webhook endpoints", answer=WebhookInfo, auth="required",
               scope="webhooks", codes=["webhook_not_found", "not_found"])
    def get(self, request, webhook_id: int):
        return Response(selectors.endpoint_info(selectors.endpoint_get(user=request.user, endpoint_id=webhook_id)))

    @operation("webhookUpdate", summary="Change a webhook endpoint, or resume a disabled one", answer=WebhookInfo,
               request=WebhookUpdateInputSerializer, body=True, auth="required", scope="webhooks",
               codes=["webhook_not_found", "not_found", "url_not_allowed", "game_not_found"])
    def patch(self, request, webhook_id: int):
        changes = validated(self.WebhookUpdateInputSerializer, request.data)
        endpoint = services.endpoint_update(user=request.user, endpoint_id=webhook_id, **changes)
        return Response(selectors.endpoint_info(endpoint))

    @operation("webhookDelete", summary="Delete a webhook endpoint and its delivery log", answer=None, status=204,
               auth="required", scope="webhooks", codes=["webhook_not_found", "not_found"])
    def delete(self, request, webhook_id: int):
        services.endpoint_delete(user=request.user, endpoint_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookPingApi(WebhooksScoped):
    @operation("webhookPing", summary="Send the endpoint a signed `ping` message now", answer=DeliveryInfo,
               status=202, auth="required", scope="webhooks",
               codes=["webhook_not_found", "not_found", "webhook_disabled", "too_many_pings"])
    def post(self, request, webhook_id: int):
        delivery = services.ping(user=request.user, endpoint_id=webhook_id)
        return Response(selectors.delivery_of(delivery_id=delivery.pk), status=status.HTTP_202_ACCEPTED)


class WebhookDeliveriesApi(WebhooksScoped):
    class DeliveryLogFilterSerializer(serializers.Serializer):
        before = serializers.IntegerField(min_value=1, required=False, help_text="deliveries older than this id")
        limit = serializers.IntegerField(min_value=1, max_value=200, required=False, default=selectors.LOG_PAGE)

    @operation("webhookDeliveries", summary="The endpoint's deliveries and every attempt, newest first",
               answer=DeliveryLog, parameters=[DeliveryLogFilterSerializer], auth="required", scope="webhooks",
               codes=["webhook_not_found", "not_found", "invalid_input"])
    def get(self, request, webhook_id: int):
        page = validated(self.DeliveryLogFilterSerializer, request.query_params)
        return Response(selectors.delivery_log(user=request.user, endpoint_id=webhook_id, **page))


class WebhookReplayApi(WebhooksScoped):
    @operation("webhookReplay", summary="Send a delivery again: same webhook-id and body, signed anew",
               answer=DeliveryInfo, status=202, auth="required", scope="webhooks",
               codes=["webhook_not_found", "delivery_not_found", "not_found", "webhook_disabled", "too_many_replays"])
    def post(self, request, webhook_id: int, delivery_id: int):
        delivery = services.replay(user=request.user, endpoint_id=webhook_id, delivery_id=delivery_id)
        return Response(selectors.delivery_of(delivery_id=delivery.pk), status=status.HTTP_202_ACCEPTED)
