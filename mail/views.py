"""Pages for people: the unsubscribe link of every mail (RFC 8058: a POST unsubscribes at once,
with no login, as mail programs' one-click button does) and the link that confirms an address."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from games import errors, words
from mail import services


@csrf_exempt  # the one-click POST comes from the reader's mail provider, with the signed token as proof
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    return _link_followed(request, token, "mail/unsubscribe.html", services.unsubscribe)


@require_http_methods(["GET", "POST"])
def verify(request, token: str):
    """The link in the one mail an address gets before any other: a GET shows a button (a link
    scanner's GET confirms nothing), its POST confirms the address."""
    return _link_followed(request, token, "mail/verify.html", services.address_verify)


def _link_followed(request, token: str, template: str, follow: Callable[..., int]) -> HttpResponse:
    """A mail's link: a GET shows its page, a POST does what it says (`follow(token=...)`), or
    tells why the link is not valid."""
    if request.method == "GET":
        return render(request, template, {"token": token, "done": False})
    try:
        follow(token=token)
    except errors.InvalidInput as error:
        return render(request, template, {"token": token, "error": words.translated(error.detail)}, status=400)
    return render(request, template, {"token": token, "done": True})


# An account made by mail has no password: the welcome mail's link (or the `password` command's)
# sets one, with Django's one-time reset token; then the web's login works too.
password_set = auth_views.PasswordResetConfirmView.as_view(
    template_name="mail/password.html", success_url="/login/", post_reset_login=False,
)
