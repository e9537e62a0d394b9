"""Standard Webhooks signatures (https://www.standardwebhooks.com/): each POST carries
`webhook-id`, `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`,
`v1,` + base64 of HMAC-SHA256 over `<id>.<timestamp>.<body>` keyed with the endpoint's secret
(`whsec_` + base64 of 24 random bytes). Any Standard Webhooks library verifies it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def headers(secret: str, webhook_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, webhook_id, timestamp, body),
    }
