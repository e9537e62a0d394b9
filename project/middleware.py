"""Middleware only where a request needs it.

Sessions, CSRF, the session's user and messages serve the browser: the web client, the admin, and
API calls made with the browser's session. A caller that names a token (`Authorization: Token ...` or `Bearer ...`:
every bot, third-party client and the load of play) is authenticated by DRF from that header alone
(`accounts.auth`: a token either authenticates or is refused, so the session is never consulted), and
running the session stack for it was a measurable share of a move's CPU
(docs/decisions/0007-browser-middleware-only-for-the-browser.md). Each class here is Django's own,
passing a token caller straight on (the admin's checks still find the classes they require); every
other request runs them exactly as Django would. A token caller's `request.user` is anonymous until
DRF sets the token's account.
"""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.middleware.csrf import CsrfViewMiddleware


def names_a_token(request) -> bool:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    return header[:6].lower() == "token " or header[:7].lower() == "bearer "


class _ForBrowsers:
    def __call__(self, request):
        if names_a_token(request):
            return self.get_response(request)
        return super().__call__(request)


class BrowserSessionMiddleware(_ForBrowsers, SessionMiddleware):
    pass


class BrowserCsrfViewMiddleware(_ForBrowsers, CsrfViewMiddleware):
    def process_view(self, request, callback, callback_args, callback_kwargs):
        if names_a_token(request):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class BrowserAuthenticationMiddleware(_ForBrowsers, AuthenticationMiddleware):
    def __call__(self, request):
        if names_a_token(request):
            request.user = AnonymousUser()
            return self.get_response(request)
        return super().__call__(request)


class BrowserMessageMiddleware(_ForBrowsers, MessageMiddleware):
    pass
