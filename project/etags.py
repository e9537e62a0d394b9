"""ETags keyed with the server's secret.

An ETag that is a plain digest of the body lets anyone holding it test a guess of the body
offline: a read-only token, say, confirming a guess of its account's email from the ETag of
`/api/accounts/me/`. Every ETag here is an HMAC of the body under a key derived from
`SECRET_KEY`, so it still changes exactly when the body does, and says nothing without the key.
"""

from __future__ import annotations

import functools
import hashlib
import hmac

from django.conf import settings


@functools.cache
def _key(secret: str) -> bytes:
    return hashlib.sha256(b"scrapyard etag\x00" + secret.encode()).digest()


def keyed_etag(body: bytes) -> str:
    return '"%s"' % hmac.digest(_key(settings.SECRET_KEY), body, "sha256").hex()[:32]  # one C call


class KeyedETagMiddleware:
    """Gives a GET or HEAD answer that has no ETag a keyed one; listed just after Django's
    ConditionalGetMiddleware, which then answers If-None-Match with 304 from it (and would
    otherwise set an unkeyed digest of its own)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            request.method in ("GET", "HEAD")
            and not response.streaming
            and not response.has_header("ETag")
            and "no-store" not in response.get("Cache-Control", "")
        ):
            response["ETag"] = keyed_etag(response.content)
        return response
