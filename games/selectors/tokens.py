"""An account's scoped API tokens as their owner sees them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q

from games import time_controls
from games.models import ApiToken


def tokens_live(*, user: Any, at: dt.datetime | None = None):
    """The account's scoped tokens that still work: not revoked, not expired."""
    at = at or time_controls.now()
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    return live.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=at))


def token_info(token: ApiToken, key: str | None = None) -> dict[str, Any]:
    """A token as its owner sees it; the key only in the answer that made it."""
    return {
        "id": token.pk,
        "name": token.name,
        "scopes": token.scopes,
        "prefix": token.prefix,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        **({"token": key} if key is not None else {}),
    }


def token_list(*, user: Any) -> list[dict[str, Any]]:
    return [token_info(token) for token in tokens_live(user=user).order_by("pk")]
