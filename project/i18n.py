"""The reader's language and time zone.

Django's LocaleMiddleware picks a language from the switcher's cookie or the browser's
Accept-Language (English when neither names one we have); a signed-in account's own choice
(`Account.language`, set on the account page, by mail or through the API) comes above both, and
its time zone (the one its deadlines are mailed in) is the one pages write times in. A token
caller is authenticated later, by DRF: its errors follow Accept-Language.
"""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.utils import timezone, translation

LANGUAGE_CODES = tuple(code for code, _ in settings.LANGUAGES)


def account_choice(user_id: int) -> tuple[str, str]:
    """(language, time zone) an account chose: "" where it chose no language, "UTC" where no zone."""
    from accounts import selectors  # here: this module is read with the settings, before the apps are

    return selectors.language_and_zone(user_id=user_id)


def zone_or_utc(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


class AccountLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language, zone = account_choice(user.pk)
            if language in LANGUAGE_CODES:
                translation.activate(language)
                request.LANGUAGE_CODE = language
            timezone.activate(zone_or_utc(zone))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
