"""The webhooks' refusals, in the API's one error shape (their statuses: `apikit.http_errors`)."""

from apikit.errors import ServiceError


class WebhookNotFound(ServiceError):
    code = "webhook_not_found"


class DeliveryNotFound(ServiceError):
    code = "delivery_not_found"


class TooManyWebhooks(ServiceError):
    code = "too_many_webhooks"


class WebhookDisabled(ServiceError):
    code = "webhook_disabled"


class TooManyPings(ServiceError):
    code = "too_many_pings"


class TooManyReplays(ServiceError):
    code = "too_many_replays"


class UrlNotAllowed(ServiceError):
    code = "url_not_allowed"
