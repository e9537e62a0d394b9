"""Rate limits, counted in the shared cache so every web process sees the same counts.

Rates come from `settings.SCRAPYARD_RATE_LIMITS` (requests a minute) when a request is checked,
not when the class is defined, so an operator's setting and a test's override both take effect.
A refused request gets 429 `rate_limited` with `Retry-After` (games.errors). With the cache
unreachable, requests pass uncounted.

Counting: a sliding window, estimated from two fixed one-minute counters (this minute's, and the
last one's weighted by how much of it the sliding minute still covers), as many large services
count. DRF's own throttle keeps a list of every request's time and writes it back whole on each
request: two round trips and up to a limit's worth of timestamps, per request. Here a request
is one increment and one read, in a single round trip on Redis (`project.cache`), and most
requests none: far from its limit, a process counts several requests ahead in that round trip
(an eighth of what the limit leaves, at most `AHEAD`) and lets that many more through without
asking (`_Allowances`). The counter in Redis holds every request counted ahead by every process,
so all processes together stay under the one limit; near it, each request is counted alone, as
before. Requests counted ahead but not made when the minute turns go back to that minute's
counter with the client's next request, in the same round trip: the last minute still weighs on
the sliding one, and must weigh what the client did, not what a process expected it to do. A
process that stops holding requests counted ahead only makes the limit stricter, and only until
the minute after. What this saved: docs/decisions/0013-rate-limits-counted-ahead.md.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import threading

from django.conf import settings
from django.utils.translation import gettext as _
from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)

AHEAD = 16  # at most this many requests counted at once by one process


class _Allowances:
    """The requests this process counted ahead in a minute's counter, and may let through
    without asking Redis again. Threads of a process share it."""

    def __init__(self) -> None:
        self._left: dict[str, int] = {}
        self._unused: dict[str, int] = {}  # the last minute's counters: requests counted, never made
        self._used: dict[str, float] = {}  # this minute's counters: the sliding minute's requests, estimated
        self._window: int | None = None
        self._lock = threading.Lock()

    def take(self, counter: str, window: int) -> float | None:
        """Let one request through on what was counted ahead: the sliding minute's requests with
        it (as estimated), or None when Redis must count it."""
        with self._lock:
            if not self._turn(window):
                return None  # a request timed before the minute turned: Redis counts it
            left = self._left.get(counter, 0)
            if left <= 0:
                return None
            self._left[counter] = left - 1
            self._used[counter] = self._used.get(counter, 0) + 1
            return self._used[counter]

    def add(self, counter: str, window: int, count: int, used: float = 0) -> None:
        """`count` requests counted ahead, and `used`: the sliding minute's requests so far."""
        with self._lock:
            if self._turn(window):
                self._used[counter] = used
            if count <= 0:
                return
            if self._turn(window):
                self._left[counter] = self._left.get(counter, 0) + count
            else:  # counted ahead in the minute just closed: never made
                self._unused[counter] = self._unused.get(counter, 0) + count

    def give_back(self, counter: str) -> int:
        """The requests counted ahead in the last minute's `counter` and never made, once: the
        caller takes them off the counter."""
        with self._lock:
            return self._unused.pop(counter, 0)

    def forget(self) -> None:
        with self._lock:
            self._left.clear()
            self._unused.clear()
            self._used.clear()
            self._window = None

    def _turn(self, window: int) -> bool:
        """Move on to `window` unless it is the minute just closed (threads read the clock before
        the lock, so one timed before the turn can come after it; a clock set back further starts
        afresh); whether `window` is the minute held now."""
        if self._window is not None and window == self._window - 1:
            return False
        if window != self._window:  # a new minute: last minute's counters are closed
            follows = self._window is not None and window == self._window + 1
            self._unused = {counter: left for counter, left in self._left.items() if left > 0} if follows else {}
            self._left = {}
            self._used = {}
            self._window = window
        return True


_allowances = _Allowances()


def forget_allowances() -> None:
    """Tests: a count cleared from the cache is forgotten here too."""
    _allowances.forget()


class _PerMinute(SimpleRateThrottle):
    limit_name = ""
    duration = 60  # seconds: every limit is a number of requests a minute

    def __init__(self) -> None:
        # DRF's reads and parses a rate string here; the limit is read at each request instead
        # (a throttle is made for every request, and a test may change the setting in between).
        pass

    def allow_request(self, request, view) -> bool:
        self.num_requests = settings.SCRAPYARD_RATE_LIMITS[self.limit_name]
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        counter = f"{self.key}:{window}"
        used = _allowances.take(counter, window)
        if used is not None:
            self._tell(request, used, (window + 1) * self.duration - now)
            return True
        still_covered = 1 - (now - window * self.duration) / self.duration
        last_counter = f"{self.key}:{window - 1}"
        try:
            current, previous, counted = _count(self.cache, counter, last_counter, self.duration,
                                                self.num_requests, still_covered, _allowances.give_back(last_counter))
        except (RedisError, OSError):
            # The shared cache is away (a Redis outage): serving players unthrottled for the
            # outage beats refusing every request. The outage is logged where it starts. Nothing
            # is told, and nothing is tried again for this request (`RateLimitHeadersMiddleware`).
            logger.warning("rate limits: the cache is unreachable; %s not counted", self.scope)
            _told(request)
            return True
        # This request's count; the others counted with it are this process's to let through.
        estimate = previous * still_covered + current - (counted - 1)
        if estimate <= self.num_requests:
            _allowances.add(counter, window, counted - 1, estimate)
            self._tell(request, estimate, (window + 1) * self.duration - now)
            return True
        # Back when the last minute's weight has fallen enough, or at the latest when it is gone.
        if previous:
            wait = (estimate - self.num_requests) / (previous / self.duration)
        else:
            wait = (window + 1) * self.duration - now
        self.wait_seconds = min(wait, (window + 2) * self.duration - now)
        self._tell(request, self.num_requests, self.wait())
        return False

    def wait(self) -> float:
        return max(1, math.ceil(self.wait_seconds))

    def _tell(self, request, used: float, reset: float) -> None:
        """Leave this limit's standing on the request, for `RateLimitHeadersMiddleware`."""
        told = _told(request)
        if told is None:
            return
        remaining = max(0, int(self.num_requests - used))
        told[self.limit_name] = (self.num_requests, self.duration, remaining, max(0, math.ceil(reset)))


def _told(request) -> dict | None:
    """The limits counted for the request so far (made empty at the first count), on Django's
    request; None for one that does not answer (a form's stand-in)."""
    target = getattr(request, "_request", request)  # DRF's request wraps Django's
    told = getattr(target, "rate_limits", None)
    if told is None:
        told = {}
        try:
            target.rate_limits = told
        except AttributeError:
            return None
    return told


class RateLimitHeadersMiddleware:
    """Every answer of the API says where its caller stands, in the IETF httpapi draft's
    structured fields (draft-ietf-httpapi-ratelimit-headers):

        RateLimit-Policy: "account";q=1200;w=60
        RateLimit: "account";r=1187;t=42

    `q` requests per `w` seconds; `r` left now, `t` seconds until the count frees up (on a 429,
    Retry-After's). Each limit the request counted against is listed (a password attempt counts
    against its address's and its username's). `r` is estimated as the count is: a process that
    counted requests ahead (`_Allowances`) tells its own estimate.

    The API's views count their requests (DRF's throttles, the streams' `counted`). An /api/
    answer nothing counted (refused before any view: an unknown URL, a body too large; a view
    outside DRF's, such as readiness) is counted here, against its caller's address, its
    credentials unread; over the limit it becomes the 429 any refusal is, but for a view marked
    `never_refused`. First in the chain, so the edge's own refusals (`project.http`) pass here."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        told = getattr(request, "rate_limits", None)
        if told is None and request.path_info.startswith("/api/"):
            response = _counted_at_the_edge(request, response)
            told = getattr(request, "rate_limits", None)
        if told:
            response["RateLimit-Policy"] = ", ".join(f'"{name}";q={q};w={w}' for name, (q, w, _, _) in told.items())
            response["RateLimit"] = ", ".join(f'"{name}";r={r};t={t}' for name, (_, _, r, t) in told.items())
        return response


def _counted_at_the_edge(request, response):
    wait = _refused_for(_Caller(request, None), (AddressRate,))
    view = getattr(getattr(request, "resolver_match", None), "func", None)
    if wait is None or getattr(view, "never_refused", False):
        return response
    return _api_too_many(request, wait)


def never_refused(view):
    """A view whose requests count against their limit but are answered over it too: readiness,
    which a load balancer would read as a node down."""
    view.never_refused = True
    return view


def counted(request, user) -> float | None:
    """Count a request no DRF view counts (a stream's opening) against its caller's limit: the
    account's when `user` is signed in, else its address's (no account, or credentials that did
    not work). The seconds to wait if it is over the limit, else None."""
    limit = AccountRate if user is not None and user.is_authenticated else AddressRate
    return _refused_for(_Caller(request, user), (limit,))


def counted_elsewhere(request) -> None:
    """The request is counted by another process (a stream's connection handed over): not here."""
    _told(request)


class _Caller:
    """A request as the API's limits read it: its address, and the account counted (None: none)."""

    def __init__(self, request, user):
        self.META = request.META
        self.headers = request.headers
        self.user = user
        self._request = request


def _api_too_many(request, wait: float):
    """The API's 429, as DRF's throttles answer it (`apikit.http_errors`)."""
    from rest_framework.exceptions import Throttled

    from project import http

    seconds = max(1, math.ceil(wait))
    response = http.in_readers_language(
        request, lambda: http.error_response(429, "rate_limited", str(Throttled(seconds).detail)))
    response["Retry-After"] = str(seconds)
    return response


def _count(cache, current_key: str, previous_key: str, window_seconds: int, limit: int,
           still_covered: float, unused: int) -> tuple[int, int, int]:
    """Count this request (and on Redis, some ahead) in this window, after taking `unused`
    requests (counted ahead, never made) off the last window's count; the counts of this window
    and the last, and how many were counted."""
    if hasattr(cache, "count_ahead"):  # Redis: one round trip
        return cache.count_ahead(current_key, previous_key, window_seconds * 2, limit=limit,
                                 other_weight=still_covered, most=AHEAD, other_unused=unused)
    if cache.add(current_key, 1, window_seconds * 2):
        current = 1
    else:
        try:
            current = cache.incr(current_key)
        except ValueError:  # expired between the two calls
            cache.add(current_key, 1, window_seconds * 2)
            current = 1
    return current, cache.get(previous_key, 0), 1


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


# --- the same limits on Django's own password forms --------------------------------------------


class _FormPost:
    """What the limits read of a request (its address, the username it names), for a form POST
    that is not a DRF request. `_request` is where each limit leaves its standing, for the
    RateLimit headers (as on a DRF request)."""

    def __init__(self, request):
        self.META = request.META
        self.headers = request.headers
        self.data = request.POST
        self.user = getattr(request, "user", None)
        self._request = request


def _refused_for(asking: _FormPost | _Caller, limits) -> float | None:
    """The seconds to wait if one of `limits` refuses the request, else None. Each limit counts
    the request only while the ones before it let it through, as DRF checks its throttles."""
    for limit in limits:
        throttle = limit()
        if not throttle.allow_request(asking, None):
            return throttle.wait()
    return None


def password_form_limited(view, *, per_username: bool = True):
    """A form view that takes a password (the web login, the admin's login, sign-up), limited
    as the API's are: each POST counts against its address and the username it names, in the
    same counters, so guesses spread over the API and the forms add up. Over a limit: a 429 page
    with Retry-After, and the view never runs (the right password included)."""
    limits = (LoginAddressRate, LoginUsernameRate) if per_username else (LoginAddressRate,)

    @functools.wraps(view)
    def limited(request, *args, **kwargs):
        if request.method == "POST":
            wait = _refused_for(_FormPost(request), limits)
            if wait is not None:
                return _too_many(request, wait)
        return view(request, *args, **kwargs)

    return limited


# --- OAuth's endpoints -------------------------------------------------------------------------


class OAuthAddressRate(_PerMinute):
    """Calls to OAuth's endpoints (authorize, token, revocation) from one client address, signed in
    or not: a code or refresh token guessed, or a client secret tried, from one place."""

    scope = limit_name = "oauth_address"

    def get_cache_key(self, request, view) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class OAuthClientRate(_PerMinute):
    """Calls naming one client id, from anywhere: an app's secret or its players' codes are not
    guessed faster over many addresses, and one app's traffic has a ceiling of its own. An id
    no app has is counted too (under its digest: any string fits the key)."""

    scope = limit_name = "oauth_client"

    def get_cache_key(self, request, view) -> str | None:
        client_id = oauth_client_id(request)
        if not client_id:
            return None
        ident = hashlib.sha256(client_id.encode("utf-8", "replace")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


def oauth_client_id(request) -> str:
    """The client id a call to an OAuth endpoint names: in HTTP Basic authentication (a
    confidential app's), the form's `client_id`, or the query's (the authorization request's)."""
    import base64
    import binascii
    from urllib.parse import unquote_plus

    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header[:6].lower() == "basic ":
        try:
            user = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8").split(":", 1)[0]
            return unquote_plus(user)[:200]  # RFC 6749 2.3.1: form-encoded, then Basic
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return ""
    found = request.data.get("client_id") or request.GET.get("client_id") or ""
    return found[:200] if isinstance(found, str) else ""


class _OAuthCall(_FormPost):
    """An OAuth endpoint's request as the limits read it: its form and its query (any method)."""

    def __init__(self, request):
        super().__init__(request)
        self.GET = request.GET


def oauth_limited(view):
    """One of OAuth's endpoints, limited per client address and per client id as the API is
    limited per address and account: every call counts (a GET of the consent page too), the
    answer carries RateLimit and RateLimit-Policy, and over a limit the view never runs: 429 with
    Retry-After, in JSON (`rate_limited`, and OAuth's `error` field beside it for an app's
    library), or the site's page for a browser on the consent page."""
    limits = (OAuthAddressRate, OAuthClientRate)

    @functools.wraps(view)
    def limited(request, *args, **kwargs):
        wait = _refused_for(_OAuthCall(request), limits)
        if wait is not None:
            return _oauth_too_many(request, wait)
        return view(request, *args, **kwargs)

    return limited


def _oauth_too_many(request, wait: float):
    from django.http import JsonResponse

    from project import http

    seconds = math.ceil(wait)
    if http.for_people(request):
        return _too_many(request, wait)
    detail = _("too many requests: try again in %(seconds)s s") % {"seconds": seconds}
    response = JsonResponse({"code": "rate_limited", "detail": detail,
                             "error": "rate_limited", "error_description": detail}, status=429)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response


def _too_many(request, wait: float):
    from project import http  # project.http renders pages; imported here to keep this module light

    seconds = int(math.ceil(wait))
    response = http.error_page(request, 429, _("Too many tries: wait %(seconds)s s, then try again.") % {"seconds": seconds})
    response["Retry-After"] = str(seconds)
    return response
