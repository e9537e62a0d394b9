from django.urls import path

from apikit.routes import with_and_without_slash
from hooks import apis

_routes = [
    path("webhooks/", apis.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", apis.WebhookApi.as_view(), name="webhook"),
    path("webhooks/<int:webhook_id>/ping/", apis.WebhookPingApi.as_view(), name="webhook-ping"),
    path("webhooks/<int:webhook_id>/deliveries/", apis.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
    path(
        "webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/replay/",
        apis.WebhookReplayApi.as_view(),
        name="webhook-replay",
    ),
]

urlpatterns = with_and_without_slash(_routes)
