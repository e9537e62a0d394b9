"""Pages for people: the unsubscribe link of every mail (RFC 8058: a POST unsubscribes at once,
with no login, as mail programs' one-click button does)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from games import errors
from mail import services


@csrf_exempt  # the one-click POST comes from the reader's mail provider, with the signed token as proof
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    if request.method == "GET":
        return render(request, "mail/unsubscribe.html", {"token": token, "done": False})
    try:
        services.unsubscribe(token=token)
    except errors.InvalidInput as error:
        return render(request, "mail/unsubscribe.html", {"token": token, "error": error.detail}, status=400)
    return render(request, "mail/unsubscribe.html", {"token": token, "done": True})


@require_http_methods(["GET", "POST"])
def verify(request, token: str):
    """The link in the one mail an address gets before any other: a GET shows a button (a link
    scanner's GET confirms nothing), its POST confirms the address."""
    if request.method == "GET":
        return render(request, "mail/verify.html", {"token": token, "done": False})
    try:
        services.address_verify(token=token)
    except errors.InvalidInput as error:
        return render(request, "mail/verify.html", {"token": token, "error": error.detail}, status=400)
    return render(request, "mail/verify.html", {"token": token, "done": True})
