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
from django.http import HttpRequest, parse_cookie
from django.middleware.locale import LocaleMiddleware
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers

from project.middleware import names_a_token

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


def language_of_headers(accept_language: str = "", cookie: str = "") -> str:
    """The language a request's headers ask for (the switcher's cookie, else Accept-Language,
    else the default), as LocaleMiddleware would choose it: for the few answers made before
    Django's middleware runs (`project.front`, `project.asgi`)."""
    request = HttpRequest()
    if accept_language:
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept_language
    if cookie:
        request.COOKIES = parse_cookie(cookie)
    return translation.get_language_from_request(request)


class ReaderLanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware, but a token caller that names no language (no Accept-Language,
    no cookie: every bot and most programs) is served in the default one without looking for a
    language or installing a translation: it has nothing to choose by, and a token's account is
    known only later, to DRF (its errors follow Accept-Language). Its answer carries the same
    Vary and Content-Language as Django's would. Every other request goes Django's way."""

    def __call__(self, request):
        meta = request.META
        if meta.get("HTTP_ACCEPT_LANGUAGE") or meta.get("HTTP_COOKIE") or not names_a_token(request):
            return super().__call__(request)
        translation.deactivate()  # what an earlier request in this thread installed
        request.LANGUAGE_CODE = settings.LANGUAGE_CODE
        response = self.get_response(request)
        vary = response.headers.get("Vary")  # most often DRF's "Accept": added to as patch_vary_headers would
        if not vary:
            response.headers["Vary"] = "Accept-Language"
        elif vary == "Accept":
            response.headers["Vary"] = "Accept, Accept-Language"
        else:
            patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", settings.LANGUAGE_CODE)
        return response


class AccountLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if names_a_token(request):  # its account is DRF's to find, later: nothing to choose here
            return self.get_response(request)
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
