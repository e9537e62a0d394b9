"""Settings, all from the environment.

With nothing set, Scrapyard runs on an embedded default that needs no server process: SQLite in
`var/` and Celery's filesystem broker in `var/broker/`. `DATABASE_URL` (for example
`postgres://postgres@127.0.0.1:5432/test`) and `REDIS_URL` (`redis://127.0.0.1:6379/0`) switch to
PostgreSQL and Redis, which is what several web processes and workers share in production.
"""

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import dj_database_url

from project import installation

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SCRAPYARD_VAR_DIR", BASE_DIR / "var"))


def _env_flag(name: str, default: bool) -> bool:
    return os.environ.get(name, "1" if default else "0").lower() in ("1", "true", "yes", "on")


def _env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = _env_flag("DJANGO_DEBUG", False)
VAR_DIR.mkdir(parents=True, exist_ok=True)
# DJANGO_SECRET_KEY, or one generated for this installation and kept in var/secret_key (0600).
# A key anyone can read in a public repository signs nothing: refused unless DEBUG is on.
SECRET_KEY = installation.secret_key(os.environ.get("DJANGO_SECRET_KEY"), VAR_DIR / "secret_key", debug=DEBUG)
# Comma-separated. Serving on a public name needs both, e.g.
# DJANGO_ALLOWED_HOSTS=play.example.org DJANGO_CSRF_TRUSTED_ORIGINS=https://play.example.org
ALLOWED_HOSTS = _env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = _env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")
CSRF_FAILURE_VIEW = "project.http.csrf_failure"
# Routes answer with and without their trailing slash; a redirect would drop a POST's body.
APPEND_SLASH = False
# Moves and accounts are small; anything bigger is refused with 413 before it is read.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("SCRAPYARD_MAX_BODY_BYTES", str(64 * 1024)))
SCRAPYARD_MAX_JSON_DEPTH = 32

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # the docs page's assets, served from here: no CDN
    "apikit",
    "accounts",
    "games",
    "chat",
    "streams",
    "consumers",
    "hooks",
    "web",
    "mail",
    "competition",
    "analysis",
    "anymail",
    "oauth2_provider",  # OAuth 2 for third-party apps (accounts.oauth); after web, whose templates restyle its pages
]

MIDDLEWARE = [
    # RateLimit, RateLimit-Policy: where the caller stands, on every API answer, the edge's too.
    "project.throttles.RateLimitHeadersMiddleware",
    "project.http.ApiEdgeMiddleware",
    "project.metrics.MetricsMiddleware",  # counts and times each move's answer, and open streams
    # The headers every answer carries.
    "django.middleware.security.SecurityMiddleware",
    "project.security.ContentSecurityPolicyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Every GET answer gets an ETag (a digest of its body, so of what this caller may see), and
    # a request naming it in If-None-Match gets 304 with no body when nothing changed.
    "django.middleware.http.ConditionalGetMiddleware",
    # ... an ETag keyed with the server's secret, never a bare digest (project.etags).
    "project.etags.KeyedETagMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Sessions, CSRF, the session's user and messages: Django's, for every caller but a token's.
    "project.middleware.BrowserSessionMiddleware",
    # The reader's language: the switcher's cookie or Accept-Language (a token caller's errors too) ...
    "project.i18n.ReaderLanguageMiddleware",  # Django's LocaleMiddleware, a token's bare request spared
    "django.middleware.common.CommonMiddleware",
    "project.middleware.BrowserCsrfViewMiddleware",
    "project.middleware.BrowserAuthenticationMiddleware",
    # ... and a signed-in account's own choice above both (project.i18n).
    "project.i18n.AccountLanguageMiddleware",
    "project.middleware.BrowserMessageMiddleware",
]

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.tz",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database ------------------------------------------------------------------------------

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'scrapyard.sqlite3'}", conn_max_age=60,
        # A persistent connection the database dropped (a restart, a failover, a pooler's idle
        # cut) is found dead at a request's first query and replaced, rather than answering 503.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock when a transaction starts, so two writers queue instead of
    # failing on a lock upgrade; the timeout is how long one waits for the other. WAL lets the web
    # and worker processes read while one of them writes, and makes a commit cheap.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # The tests' database in a file too, not in memory: an in-memory database shared between the
    # live server's threads (the browser tests) locks whole tables, and a second request fails
    # at once instead of waiting its turn.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
else:
    # PostgreSQL may sit behind PgBouncer in transaction pooling (docs/scaling.md),
    # where a server connection is only ours for one transaction: `.iterator()` must not declare
    # a cursor that outlives it. (Django's psycopg 3 defaults already fit: client-side binding and
    # no prepared statements; keep `server_side_binding` and `prepare_threshold` unset. The move's
    # two statements are the one exception, where the connection keeps them: SCRAPYARD_DB_PREPARED_STATEMENTS.)
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that looks at the socket before it asks the server
    # (project/postgresql/base.py): no `SELECT 1` round trip before each request's first query.
    DATABASES["default"]["ENGINE"] = "project.postgresql"

# The store the event writer reads and writes through (`games.stores`): "fast", the hand-written
# statements (a move in two on PostgreSQL), or "reference", the plain ORM they are held to.
SCRAPYARD_STORE = os.environ.get("SCRAPYARD_STORE", "fast")

# The two statements of every move (the locked read and the unit of work, `games.stores.fast`) as
# prepared statements: PostgreSQL plans each once a connection instead of on every move
# (docs/decisions/0003-prepared-statements-where-kept.md). Only where a connection's prepared
# statements stay its own: straight to PostgreSQL, or through PgBouncer 1.21+ with
# `max_prepared_statements`; never through an older PgBouncer in transaction pooling, which hands
# the next transaction another server connection. Found out at the first move of each process
# (project/postgresql/base.py); SCRAPYARD_DB_PREPARED_STATEMENTS=on or off says it instead, for a
# pooler whose admin console the application may not read.
_prepared = os.environ.get("SCRAPYARD_DB_PREPARED_STATEMENTS", "").strip().lower()
SCRAPYARD_DB_PREPARED_STATEMENTS = None if _prepared in ("", "auto") else _env_flag("SCRAPYARD_DB_PREPARED_STATEMENTS", False)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- cache ---------------------------------------------------------------------------------

# What this installation's keys and channels begin with on a Redis it may share with another
# (staging beside production, or the test suite's parallel processes): a db number keeps keys
# apart, but not pub/sub channels, which Redis delivers across dbs (games.announce).
SCRAPYARD_REDIS_NAMESPACE = os.environ.get("SCRAPYARD_REDIS_NAMESPACE", "scrapyard")

# The rate limits count here, so every web process must share it: Redis when configured, else
# files under var/ (shared by the processes of one machine, which is all the default runs).
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "project.cache.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": SCRAPYARD_REDIS_NAMESPACE,
            # Rate limits and bot slots fail open when Redis is away; a request must not hang
            # on it meanwhile (project.throttles, games.bot_quota).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- web -----------------------------------------------------------------------------------

LOGIN_URL = "web:login"
LOGIN_REDIRECT_URL = "web:lobby"
LOGOUT_REDIRECT_URL = "web:lobby"

# English and Dutch (docs/development.md#translations): an account's own choice, else the
# browser's Accept-Language (or the switcher's cookie), else English (project.i18n).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("nl", "Nederlands")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.ScopedTokenAuthentication",  # the first token, and scoped ones
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": [
        "project.fastjson.OrjsonRenderer",  # DRF's JSON, encoded by orjson
    ],
    "DEFAULT_PARSER_CLASSES": ["project.http.StrictJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "project.fastjson.JsonFirstNegotiation",
    "EXCEPTION_HANDLER": "apikit.http_errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["project.throttles.AccountRate", "project.throttles.AddressRate"],
    # Behind N reverse proxies, the client's address is the Nth from the right of
    # X-Forwarded-For; with 0 (the default) the header is ignored, so nobody can pick an address.
    "NUM_PROXIES": int(os.environ.get("SCRAPYARD_PROXIES", "0")),
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI schema (`GET /api/schema/`) is generated from the views (games.schema documents
# their answers and every error code); its docs page (`/api/docs/`) works offline.
SPECTACULAR_SETTINGS = {
    "TITLE": "Scrapyard API",
    "DESCRIPTION": (
        "Slow and timed board games as a service. Every error is a JSON object "
        '`{"code": ..., "detail": ...}` with a stable `code`; each operation lists the codes it '
        "may answer with. Authenticate with `Authorization: Token <key>` "
        "(`POST /api/accounts/token/`), or a scoped token (`POST /api/tokens/`), or an OAuth access "
        "token of a third-party app (`/oauth/authorize/`, authorization code with PKCE), each also as "
        "`Authorization: Bearer <key>`: an operation's summary names the scope it needs. Rate limits, per minute by default: 1200 requests per "
        "signed-in account, 600 per address without one (a request whose credentials do not work counts "
        "against its address), 10 password attempts per username and 30 per address on the account and "
        "token endpoints; every answer (errors, stream openings and readiness included) says where the "
        "caller stands in `RateLimit-Policy` and `RateLimit` (the IETF draft's fields); over a limit, 429 "
        "`rate_limited` with `Retry-After` (readiness is never refused). Live streams (tag `streams`): "
        "`GET /api/games/{id}/stream/` on the stream server starts with `game_full` (SSE id: its seq) and goes "
        "on from there with the items of `/events/` as they come, each batch followed by a `game_state` "
        "(who is to act, the clocks, the status, your own legal moves when your seat is to act), as "
        "Server-Sent Events or NDJSON (`Accept: application/x-ndjson`); earlier events with "
        "`Last-Event-ID` or `?after=N`; `GET /api/stream/` is the account's feed of "
        "game_started, your_turn, deadline_warning and game_over notices. Webhooks "
        "(`/api/webhooks/`) POST the same notices, and each event, signed the Standard Webhooks way."
    ),
    "VERSION": "1",
    # 3.1: a nullable reference is `oneOf: [{$ref}, {type: null}]`, which generators read, where
    # 3.0's `allOf` beside `nullable` is ignored by them (issue 53).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # A row id in a path (`<id:game_id>`, apikit.routes.RowId): what the id column holds.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    "PREPROCESSING_HOOKS": ["apikit.schema.documented_endpoints"],
    # Enums stay inline (no enum postprocessing): each error response lists its own codes where a
    # client reads them. The streams, not DRF views, are added by hand.
    "POSTPROCESSING_HOOKS": [
        "streams.schema.document_streams", "apikit.schema.security_and_readiness",
        "apikit.schema.http_caching_and_strictness",
    ],
}

# OAuth 2 for third-party apps (accounts.oauth, docs/oauth.md): authorization code with PKCE
# (S256 only), the personal tokens' scopes, refresh tokens that rotate, RFC 7009 revocation. Tokens
# are kept as their SHA-256 only, as personal tokens are.
OAUTH2_PROVIDER = {
    "SCOPES": {scope: scope for scope in ("read", "play", "bot", "webhooks", "account")},  # words: accounts.oauth
    "DEFAULT_SCOPES": ["read"],
    "PKCE_REQUIRED": True,
    "OAUTH2_SERVER_CLASS": "accounts.oauth.Server",
    "ACCESS_TOKEN_GENERATOR": "accounts.oauth.access_token",
    "REFRESH_TOKEN_GENERATOR": "accounts.oauth.refresh_token",
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("SCRAPYARD_OAUTH_ACCESS_SECONDS", str(3600))),
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(os.environ.get("SCRAPYARD_OAUTH_REFRESH_SECONDS", str(90 * 86400))),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,  # a stolen refresh token used twice ends the whole family
    "REQUEST_APPROVAL_PROMPT": "force",  # the consent page every time: a player sees what is asked
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],  # http for apps on the player's own machine
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
}

# Live streams (streams.views) are served on the site's own origin: by granian itself
# (project.front), by the stream process gunicorn hands them to, or by whatever a proxy routes
# them to. SCRAPYARD_STREAM_URL names another origin only where streams live elsewhere: pages
# then open them there, and a WSGI server with no stream process beside it redirects there.
# Keep-alive comments keep proxies from closing an idle stream; a stream re-reads the log at
# least this often even when no notice arrives (without Redis, it polls).
SCRAPYARD_STREAM_URL = os.environ.get("SCRAPYARD_STREAM_URL", "")
# A Unix socket on which the stream process takes over stream connections from the web server on
# the same machine (streams.handoff): streams and API on one address, no redirect. `make run` sets
# it; empty: the web server redirects stream requests to SCRAPYARD_STREAM_URL, if any.
SCRAPYARD_STREAM_HANDOFF = os.environ.get("SCRAPYARD_STREAM_HANDOFF", "")
# Web pages served from other origins than SCRAPYARD_SITE_URL's that may read the streams with
# their cookies (credentialed CORS); no other origin may, whatever its host.
SCRAPYARD_WEB_ORIGINS = _env_list("SCRAPYARD_WEB_ORIGINS", "")
SCRAPYARD_STREAM_KEEPALIVE_SECONDS = float(os.environ.get("SCRAPYARD_STREAM_KEEPALIVE_SECONDS", "15"))
SCRAPYARD_STREAM_RECHECK_SECONDS = float(
    os.environ.get("SCRAPYARD_STREAM_RECHECK_SECONDS", "5" if os.environ.get("REDIS_URL") else "1")
)

# Mail out. EMAIL_URL names an SMTP server: smtp://user:password@host:587 (STARTTLS on 587, or
# with ?tls=1 on any port) or smtps://user:password@host:465 (TLS); without it each mail is
# written as an .eml file in var/mail (mail.backends).
EMAIL_URL = os.environ.get("EMAIL_URL", "")
DEFAULT_FROM_EMAIL = os.environ.get("SCRAPYARD_MAIL_FROM", "Scrapyard <scrapyard@localhost>")
EMAIL_TIMEOUT = 10
if EMAIL_URL:
    _mail = urlsplit(EMAIL_URL)
    _mail_query = dict(parse_qsl(_mail.query))
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = _mail.hostname or "localhost"
    EMAIL_PORT = _mail.port or (465 if _mail.scheme == "smtps" else 25)
    EMAIL_HOST_USER = unquote(_mail.username or "")
    EMAIL_HOST_PASSWORD = unquote(_mail.password or "")
    EMAIL_USE_SSL = _mail.scheme == "smtps"
    EMAIL_USE_TLS = _mail.scheme == "smtp" and (EMAIL_PORT == 587 or _mail_query.get("tls") in ("1", "true"))
else:
    EMAIL_BACKEND = "mail.backends.EmlFileBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")

# Play by email (mail/). Replies come to play+<token>@SCRAPYARD_MAIL_DOMAIN, through the SMTP
# gateway (`manage.py mail_gateway`, port SMTP_PORT) or a provider's inbound webhook
# (django-anymail, /mail/inbound/<provider>/inbound/, guarded by ANYMAIL_WEBHOOK_SECRET).
# SCRAPYARD_SITE_URL is where mails link to.
SCRAPYARD_MAIL_DOMAIN = os.environ.get("SCRAPYARD_MAIL_DOMAIN", "localhost")
SCRAPYARD_SITE_URL = os.environ.get(
    "SCRAPYARD_SITE_URL", f"http://{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
).rstrip("/")
SCRAPYARD_SMTP_PORT = int(os.environ.get("SMTP_PORT", "2525"))
# Waits between the attempts of a mail the server would not take (temporary SMTP errors).
SCRAPYARD_MAIL_RETRY_SECONDS = [float(wait) for wait in _env_list("SCRAPYARD_MAIL_RETRY_SECONDS", "30,120,600,1800,3600,7200")]
# At most this many mails from one sender in ten minutes; more are told to come back later (451).
# Counted only for mail without a reply token (to the server's address, a join address): a From
# costs nothing to forge, and a reply to a seat's address is limited per account instead.
SCRAPYARD_MAIL_SENDER_LIMIT = int(os.environ.get("SCRAPYARD_MAIL_SENDER_LIMIT", "120"))
# Mail without a reply token, whoever it claims to be from: at most this many in ten minutes in
# all (then 451), and at most BURST a minute read at once; the rest waits for the sweep, which
# reads a few each beat after every reply that carries a token.
SCRAPYARD_MAIL_UNTOKENED_LIMIT = int(os.environ.get("SCRAPYARD_MAIL_UNTOKENED_LIMIT", "1000"))
SCRAPYARD_MAIL_UNTOKENED_BURST = int(os.environ.get("SCRAPYARD_MAIL_UNTOKENED_BURST", "20"))
SCRAPYARD_MAIL_UNTOKENED_PER_BEAT = int(os.environ.get("SCRAPYARD_MAIL_UNTOKENED_PER_BEAT", "5"))
# Answers to mail from addresses no account has (how to join by mail, mail.signup): at most this
# many an hour in all; a newcomer's mail that would find them spent is told to come back later (451).
SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR = int(os.environ.get("SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR", "60"))
# From one connecting address (IP) at most this many mails without a token in ten minutes, per
# gateway process (then 451): a forger sets any From, not the address it connects from.
SCRAPYARD_MAIL_PEER_LIMIT = int(os.environ.get("SCRAPYARD_MAIL_PEER_LIMIT", "200"))
# MIME parts a mail in may have (mail.services.inbound.parts_check): the email parser spends about a
# millisecond a part; a reply has a few, a forwarded mail with attachments some dozens.
SCRAPYARD_MAIL_MAX_PARTS = int(os.environ.get("SCRAPYARD_MAIL_MAX_PARTS", "100"))
# The id a mail provider's MTA writes first in its Authentication-Results header (RFC 8601): set,
# the provider's SPF/DKIM/DMARC verdict proves the From of mail its webhook brings
# (mail.authentication.trusted_verdict). Leave empty unless every inbound mail passes that MTA.
SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID = os.environ.get("SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID", "")
# At most this many recipients in one SMTP transaction, and this many bytes stored a day per
# account and per From address; answers and verification mails per account and per address an hour.
SCRAPYARD_MAIL_MAX_RECIPIENTS = int(os.environ.get("SCRAPYARD_MAIL_MAX_RECIPIENTS", "5"))
SCRAPYARD_MAIL_DAILY_BYTES = int(os.environ.get("SCRAPYARD_MAIL_DAILY_BYTES", str(50 * 1024 * 1024)))
SCRAPYARD_MAIL_ANSWER_LIMIT = int(os.environ.get("SCRAPYARD_MAIL_ANSWER_LIMIT", "300"))
# Mail goes only to an address whose owner followed the link mailed to it.
SCRAPYARD_MAIL_VERIFY = os.environ.get("SCRAPYARD_MAIL_VERIFY", "1") not in ("0", "false", "no")
# The one mail provider whose webhooks are mounted under /mail/inbound/ (e.g. postmark); none
# without it. Its webhooks need ANYMAIL_WEBHOOK_SECRET (basic auth), else they refuse every call.
SCRAPYARD_MAIL_PROVIDER = os.environ.get("SCRAPYARD_MAIL_PROVIDER", "").strip().lower()
ANYMAIL = {"WEBHOOK_SECRET": os.environ.get("ANYMAIL_WEBHOOK_SECRET", "")}

# Webhooks (hooks.services). Waits between the retries of a delivery that timed out or got a 5xx
# (plus up to 10% jitter): about a day in all, after which the endpoint is disabled and its owner
# told. By default a webhook may reach public addresses only; loopback is for tests and
# self-hosting (private, link-local and metadata addresses are never allowed).
SCRAPYARD_WEBHOOK_RETRY_SECONDS = [
    float(wait) for wait in _env_list("SCRAPYARD_WEBHOOK_RETRY_SECONDS", "5,30,120,600,1800,3600,7200,14400,28800,28800")
]
# One deadline for a whole delivery: connecting, sending and the whole answer (hooks.transport).
SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("SCRAPYARD_WEBHOOK_TIMEOUT_SECONDS", "10"))
SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK = _env_flag("SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK", False)
SCRAPYARD_WEBHOOKS_PER_ACCOUNT = int(os.environ.get("SCRAPYARD_WEBHOOKS_PER_ACCOUNT", "20"))
# Pings an account may ask for an hour, all its endpoints together (the consumer's quota).
SCRAPYARD_WEBHOOK_PINGS_PER_HOUR = int(os.environ.get("SCRAPYARD_WEBHOOK_PINGS_PER_HOUR", "60"))
SCRAPYARD_WEBHOOK_LOG_DAYS = int(os.environ.get("SCRAPYARD_WEBHOOK_LOG_DAYS", "30"))
# How often the sweep looks for games whose webhook fan-out request was lost (hooks.consumer).
SCRAPYARD_WEBHOOK_MISSED_SWEEP_SECONDS = float(os.environ.get("SCRAPYARD_WEBHOOK_MISSED_SWEEP_SECONDS", "10"))

# How long a process keeps a token it has read (accounts.auth): a revoked token stops at once in
# the process that revoked it and within this many seconds in the others. 0: read every time.
SCRAPYARD_TOKEN_CACHE_SECONDS = float(os.environ.get("SCRAPYARD_TOKEN_CACHE_SECONDS", "10"))

# Abandoned games (games.tasks.sweep_abandoned): no person's move for this many days adjourns a
# game; this many more days without one aborts it.
SCRAPYARD_ABANDON_DAYS = int(os.environ.get("SCRAPYARD_ABANDON_DAYS", "60"))
SCRAPYARD_ADJOURN_GRACE_DAYS = int(os.environ.get("SCRAPYARD_ADJOURN_GRACE_DAYS", "7"))
SCRAPYARD_ABANDON_SWEEP_SECONDS = float(os.environ.get("SCRAPYARD_ABANDON_SWEEP_SECONDS", "3600"))

# Chat: lines an account may write a minute in one game (chat.services).
SCRAPYARD_CHAT_PER_MINUTE = int(os.environ.get("SCRAPYARD_CHAT_PER_MINUTE", "10"))

# Snapshots are a cache of the fold: one every this many events keeps a load to at most that
# many applied moves, however long the game.
SCRAPYARD_SNAPSHOT_EVERY = int(os.environ.get("SCRAPYARD_SNAPSHOT_EVERY", "32"))
# What a seat sees of a game at a seq (games.selectors.seen): kept in the shared cache when it
# is Redis (every process reads the one entry), for this many seconds, and the last this many in
# each process's memory in front of it (0: none).
SCRAPYARD_SEEN_SHARED = bool(os.environ.get("REDIS_URL"))
SCRAPYARD_SEEN_SECONDS = int(os.environ.get("SCRAPYARD_SEEN_SECONDS", "3600"))
SCRAPYARD_SEEN_IN_MEMORY = int(os.environ.get("SCRAPYARD_SEEN_IN_MEMORY", "512"))

# Committed states each process keeps in memory (games.store); 0 turns the cache off.
SCRAPYARD_RECENT_STATES = int(os.environ.get("SCRAPYARD_RECENT_STATES", "1024"))

# --- Celery --------------------------------------------------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")
BROKER_DIR = VAR_DIR / "broker"

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Unacknowledged tasks come back after this; every task is idempotent, so a redelivery
        # is harmless, and neither the deadline sweeper nor the bot wake-up relies on it.
        "visibility_timeout": 300,
        # A socket that hangs (Redis paused, a network partition) fails within seconds instead
        # of blocking a worker or a request's after-commit send.
        "socket_timeout": 5,
        "socket_connect_timeout": 5,
        "health_check_interval": 10,
    }
else:
    CELERY_BROKER_URL = "scrapyard-files://"  # kombu's filesystem transport, messages written whole
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(VAR_DIR / "broker-control"),
        # The filesystem transport polls; a tenth of a second keeps bot replies prompt.
        "polling_interval": 0.1,
    }

# Six queues, each with a pair of worker programs of its own (deploy/supervisord.conf,
# docs/decisions/0035-worker-pairs.md): a deadline never waits behind a bot's search, neither
# waits behind notifications, and one worker killed leaves the other taking its queue's tasks.
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "games.apply_timeout": {"queue": "deadlines"},
    "games.sweep_deadlines": {"queue": "deadlines"},
    # The consumers of the log (consumers.framework) send their fan-outs and deliveries to each
    # consumer's own queue (`Consumer.queue`: bot turns to `bots`, conditional lines to
    # `deadlines`, since a waiting player's clock may be running; mail to `mail` and webhooks to
    # `webhooks`, each with workers of their own, so a slow mail relay or a slow or hostile
    # endpoint delays only its own kind; analyses, a bot's search over every move of a game that
    # anyone may ask for, go to `analysis`, whose workers run at the lowest CPU priority, so a
    # flood of them delays neither a bot's reply nor a deadline); their one sweep runs here.
    # Forced moves are a consumer too, on mail's queue. A reply by mail is a player's move
    # (`mail.handle_inbound`): it stays on `default`, clear of a slow mail relay holding the mail
    # workers.
    "consumers.sweep": {"queue": "default"},
}
# A worker that loses the broker keeps trying for ever, from its first start too (the
# supervisor restarts it should it die all the same); tasks it was running when the connection
# dropped are cancelled rather than finished into a dead connection: their messages come back.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# ... every second, and a lost connection's clean-up that fails does not kill it (project.worker).
CELERY_WORKER_CONSUMER = "project.worker:Consumer"
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TASK_ALWAYS_EAGER = _env_flag("SCRAPYARD_TASKS_EAGER", False)
SCRAPYARD_COMPETITION_SWEEP_SECONDS = float(os.environ.get("SCRAPYARD_COMPETITION_SWEEP_SECONDS", "5"))
# The analysis of a finished game (analysis/): the bot's search per position, in iterations (which
# make it reproducible) and a millisecond cap (which bounds its CPU on a slow machine); each move
# costs two such searches. Analyses are a consumer (analysis.consumer): the run renews the
# framework's lease after every move, so one silent for LEASE seconds died; the consumers' sweep
# looks at analyses every SWEEP seconds and sends again a run nobody took up within STALLED seconds
# (its message lost, its worker dead).
SCRAPYARD_ANALYSIS_ITERATIONS = int(os.environ.get("SCRAPYARD_ANALYSIS_ITERATIONS", "300"))
SCRAPYARD_ANALYSIS_MILLISECONDS = int(os.environ.get("SCRAPYARD_ANALYSIS_MILLISECONDS", "400"))
SCRAPYARD_ANALYSIS_LEASE_SECONDS = float(os.environ.get("SCRAPYARD_ANALYSIS_LEASE_SECONDS", "120"))
SCRAPYARD_ANALYSIS_STALLED_SECONDS = float(os.environ.get("SCRAPYARD_ANALYSIS_STALLED_SECONDS", "60"))
SCRAPYARD_ANALYSIS_SWEEP_SECONDS = float(os.environ.get("SCRAPYARD_ANALYSIS_SWEEP_SECONDS", "30"))
# Quotas (analysis.services.quota_check): analyses queued or running at once per account, and
# how often one game's analysis may be queued in a day (a failed one asked for again).
SCRAPYARD_ANALYSIS_PER_ACCOUNT = int(os.environ.get("SCRAPYARD_ANALYSIS_PER_ACCOUNT", "2"))
SCRAPYARD_ANALYSIS_RUNS_PER_GAME = int(os.environ.get("SCRAPYARD_ANALYSIS_RUNS_PER_GAME", "3"))
# Deadlines live in the database; beat sweeps them every second (games.clocks).
CELERY_BEAT_SCHEDULE: dict = {
    "sweep-deadlines": {"task": "games.sweep_deadlines", "schedule": 1.0, "options": {"expires": 5}},
    # every consumer of the log (bot turns, conditional lines, forced moves, mail, webhooks,
    # analyses): rows due, fan-outs lost, their own upkeep
    "consumers": {"task": "consumers.sweep", "schedule": 1.0, "options": {"expires": 5}},
    "abandoned-games": {
        "task": "games.sweep_abandoned",
        "schedule": SCRAPYARD_ABANDON_SWEEP_SECONDS,
        "options": {"expires": 600},
    },
    # ratings whose message was lost, seeks to expire or pair, tournaments to start or move on
    "competition": {"task": "competition.sweep", "schedule": SCRAPYARD_COMPETITION_SWEEP_SECONDS,
                    "options": {"expires": 10}},
}

# Several beats (one per node) send the schedule once: the one holding a lease in Redis sends,
# the others wait and take over within this many seconds of its death (project.beat).
CELERY_BEAT_SCHEDULER = "project.beat:LeasedScheduler"
SCRAPYARD_BEAT_LEASE_SECONDS = float(os.environ.get("SCRAPYARD_BEAT_LEASE_SECONDS", "3"))

# The sweeper sends each timeout up to LOOKAHEAD seconds ahead, with its ETA at the deadline, so
# neither beat's period nor a sweep slowed by a busy machine adds to the lateness; a sent timeout
# still due after RESEND seconds (its worker died) is sent again. FAULT_PAUSE (seconds) only
# serves the worker-kill test.
SCRAPYARD_CLOCKS_LOOKAHEAD = float(os.environ.get("SCRAPYARD_CLOCKS_LOOKAHEAD", "5"))
SCRAPYARD_CLOCKS_RESEND = float(os.environ.get("SCRAPYARD_CLOCKS_RESEND", "30"))
# A timeout sent on time and still not applied this many seconds past its deadline (its message
# lost with a broker outage) is sent again once at once, not after RESEND.
SCRAPYARD_CLOCKS_OVERDUE_RESEND = float(os.environ.get("SCRAPYARD_CLOCKS_OVERDUE_RESEND", "3"))
# Beat applies itself, without the broker, a timeout still not applied this many seconds past its
# deadline (project.beat: a broker outage, workers still reconnecting or starved of CPU).
SCRAPYARD_CLOCKS_BACKSTOP_SECONDS = float(os.environ.get("SCRAPYARD_CLOCKS_BACKSTOP_SECONDS", "1"))
SCRAPYARD_CLOCKS_FAULT_PAUSE = float(os.environ.get("SCRAPYARD_CLOCKS_FAULT_PAUSE", "0"))
# Bots share the machine fairly (games.bot_quota): at most BOT_GAMES_PER_ACCOUNT games created
# by one account have a bot thinking at once, and no decision thinks longer than
# BOT_DECISION_SECONDS whatever its level; a bot-played seat idle for BOT_STALLED_SECONDS is
# woken again by the consumers' sweep (its wake-up was lost).
SCRAPYARD_BOT_GAMES_PER_ACCOUNT = int(os.environ.get("SCRAPYARD_BOT_GAMES_PER_ACCOUNT", "1"))
SCRAPYARD_BOT_DECISION_SECONDS = float(os.environ.get("SCRAPYARD_BOT_DECISION_SECONDS", "2"))
SCRAPYARD_BOT_STALLED_SECONDS = float(os.environ.get("SCRAPYARD_BOT_STALLED_SECONDS", "30"))
# A conditional line whose game moved on this long ago without it being looked at: its wake-up
# was lost, and the consumers' sweep sends it again (games.services.conditionals).
SCRAPYARD_CONDITIONALS_STALLED_SECONDS = float(os.environ.get("SCRAPYARD_CONDITIONALS_STALLED_SECONDS", "5"))
# The bot that plays a timed-out seat under the `bot` timeout policy (its default level).
SCRAPYARD_STAND_IN_BOT = os.environ.get("SCRAPYARD_STAND_IN_BOT", "mcts")

# Requests a minute, per scope (project.throttles). Generous enough for a bot playing several
# blitz games at once; `login` counts attempts at a password per username, `login_address` per
# client address, so guessing is slow whichever of the two an attacker varies.
SCRAPYARD_RATE_LIMITS = {
    "account": int(os.environ.get("SCRAPYARD_RATE_ACCOUNT", "1200")),
    "address": int(os.environ.get("SCRAPYARD_RATE_ADDRESS", "600")),
    "login": int(os.environ.get("SCRAPYARD_RATE_LOGIN", "10")),
    "login_address": int(os.environ.get("SCRAPYARD_RATE_LOGIN_ADDRESS", "30")),
    # OAuth's endpoints (project.throttles.oauth_limited): per client address, per client id.
    "oauth_address": int(os.environ.get("SCRAPYARD_RATE_OAUTH_ADDRESS", "60")),
    "oauth_client": int(os.environ.get("SCRAPYARD_RATE_OAUTH_CLIENT", "600")),
}

# Prometheus metrics (project.metrics): each process of this node counts in files here, and
# `GET /metrics` sums them. The endpoint answers only `Authorization: Bearer <token>` with this
# token; unset, it does not exist (404).
PROMETHEUS_MULTIPROC_DIR = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR", VAR_DIR / "metrics"))
PROMETHEUS_MULTIPROC_DIR.mkdir(parents=True, exist_ok=True)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(PROMETHEUS_MULTIPROC_DIR)  # read when prometheus_client loads
SCRAPYARD_METRICS_TOKEN = os.environ.get("SCRAPYARD_METRICS_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"hide_outage_tracebacks": {"()": "project.http.HideOutageTracebacks"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["hide_outage_tracebacks"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
if not REDIS_URL:
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    (VAR_DIR / "broker-control").mkdir(parents=True, exist_ok=True)

# Behind TLS (DJANGO_SECURE=1): browsers are told to come back over HTTPS only (HSTS, a year by
# default: DJANGO_HSTS_SECONDS), session and CSRF cookies travel only over HTTPS, and the TLS
# proxy's X-Forwarded-Proto says a request came over HTTPS (the proxy must set it, and strip a
# client's own). DJANGO_SECURE_REDIRECT=1 also sends plain HTTP requests to HTTPS.
SCRAPYARD_SECURE = os.environ.get("DJANGO_SECURE", "") == "1"
if SCRAPYARD_SECURE:
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600)))
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = os.environ.get("DJANGO_SECURE_REDIRECT", "") == "1"
