"""Rate limits, counted in the shared cache so every web process sees the same counts.

Rates come from `settings.SCRAPYARD_RATE_LIMITS` (requests a minute) when a request is checked,
not when the class is defined, so an operator's setting and a test's override both take effect.
A refused request gets 429 `rate_limited` with `Retry-After` (games.errors). With the cache
unreachable, requests pass uncounted.
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class _PerMinute(SimpleRateThrottle):
    limit_name = ""

    def get_rate(self) -> str:
        return f"{settings.SCRAPYARD_RATE_LIMITS[self.limit_name]}/min"

    def allow_request(self, request, view) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError):
            # The shared cache is away (a Redis outage): serving players unthrottled for the
            # outage beats refusing every request. The outage is logged where it starts.
            logger.warning("rate limits: the cache is unreachable; %s not counted", self.scope)
            return True


class AccountRate(_PerMinute):
    """Every request of a signed-in account, wherever it comes from."""

    scope = limit_name = "account"

    def get_cache_key(self, request, view) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AddressRate(_PerMinute):
    """Every request from one client address that is not signed in."""

    scope = limit_name = "address"

    def get_cache_key(self, request, view) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginAddressRate(_PerMinute):
    """Attempts at a password (token, sign-up) from one client address."""

    scope = limit_name = "login_address"

    def get_cache_key(self, request, view) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginUsernameRate(_PerMinute):
    """Attempts at one username's password, from anywhere: spreading a guess over many
    addresses does not make it faster."""

    scope = limit_name = "login"

    def get_cache_key(self, request, view) -> str | None:
        username = request.data.get("username") if isinstance(request.data, dict) else None
        if not isinstance(username, str) or not username:
            return None
        ident = hashlib.sha256(username.lower().encode("utf-8", "replace")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}
