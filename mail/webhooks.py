"""The mail provider's webhooks (django-anymail), under /mail/inbound/: only the provider named by
SCRAPYARD_MAIL_PROVIDER answers; every other provider's URL is a 404, as is every one when none is
named. The chosen provider's webhooks refuse every call (403) until ANYMAIL_WEBHOOK_SECRET is set,
and anymail then refuses a call without that secret (its basic auth) or, for a provider that signs
its calls, without a good signature. A forged bounce or a forged reply gets nowhere.

Which provider is chosen is read on each call (not when the URLs load), so changing it needs no
other change; the URLs themselves are anymail's own.
"""

from __future__ import annotations

import logging
from functools import wraps

from anymail import urls as anymail_urls
from django.conf import settings
from django.http import Http404, JsonResponse
from django.urls import URLPattern
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

log = logging.getLogger(__name__)


def provider_of(name: str) -> str:
    """The provider a webhook URL's name belongs to: 'postmark_inbound_webhook' -> 'postmark'."""
    for suffix in ("_inbound_webhook", "_tracking_webhook", "_webhook"):
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def secret_configured() -> bool:
    return bool(getattr(settings, "ANYMAIL", {}).get("WEBHOOK_SECRET") or getattr(settings, "ANYMAIL_WEBHOOK_SECRET", ""))


def _only_if_chosen(view, provider: str):
    @csrf_exempt
    @wraps(view)
    def guarded(request, *args, **kwargs):
        if provider != settings.SCRAPYARD_MAIL_PROVIDER:
            raise Http404("no such page")
        if not secret_configured():
            log.warning("the %s webhook was called but ANYMAIL_WEBHOOK_SECRET is not set: refused", provider)
            return JsonResponse({"code": "webhook_secret_missing",
                                 "detail": _("this webhook is off until its secret is configured")}, status=403)
        return view(request, *args, **kwargs)

    return guarded


app_name = "anymail"
urlpatterns = [
    URLPattern(pattern.pattern, _only_if_chosen(pattern.callback, provider_of(pattern.name or "")), pattern.default_args, pattern.name)
    for pattern in anymail_urls.urlpatterns
]
