from django.urls import path

from apikit.routes import with_and_without_slash
from hooks import apis

_routes = [
    path("webhooks/", apis.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<id:webhook_id>/", apis.WebhookApi.as_view(), name="webhook"),
    path("webhooks/<id:webhook_id>/ping/", apis.WebhookPingApi.as_view(), name="webhook-ping"),
    path("webhooks/<id:webhook_id>/deliveries/", apis.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
    path(
        "webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/replay/",
        apis.WebhookReplayApi.as_view(),
        name="webhook-replay",
    ),
]

urlpatterns = with_and_without_slash(_routes)
