"""Browser-facing defences that every answer carries.

- `ContentSecurityPolicyMiddleware` sends a Content-Security-Policy: scripts only from this site
  (no inline script, no eval), network reads from this site and the stream server, no plugins,
  no framing. It is one precomputed header per answer.
- With `DJANGO_SECURE=1` (a deployment behind TLS) the settings add HSTS, Secure session and CSRF
  cookies, and trust the proxy's `X-Forwarded-Proto` (see `project.settings`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of a URL, as a browser's Origin header names it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def content_security_policy() -> str:
    streams = origin_of(settings.SCRAPYARD_STREAM_URL)
    connect = " ".join(dict.fromkeys(filter(None, ["'self'", streams])))
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        # The pages set no inline style either, but the bundled API docs (Swagger UI) insert some.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        f"connect-src {connect}",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        # (the stream server's URL, the policy naming it); None matches no setting, "" included
        # (streams on the site's own origin): the first request always makes the policy.
        self.policy_for: tuple[str | None, str] = (None, "")

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self._policy()
        return response

    def _policy(self) -> str:
        stream_url = settings.SCRAPYARD_STREAM_URL
        if self.policy_for[0] != stream_url:  # made once (again only if the setting changes)
            self.policy_for = (stream_url, content_security_policy())
        return self.policy_for[1]
