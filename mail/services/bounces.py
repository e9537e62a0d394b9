"""Mail in, bounces: a permanent failure turns the account's mail off; a temporary one is noted."""

from __future__ import annotations

import re
from typing import Any

from accounts import selectors as account_selectors
from games import time_controls
from mail.models import Inbound, Preference
from mail.services.addresses import BOUNCE_ADDRESS
from mail.services.preferences import preference_of


def bounce_read(inbound: Inbound, message: Any) -> tuple[str, str]:
    """A delivery status notification to an account's bounce address: a permanent failure (5.x.x)
    turns its mail off; a temporary one is only noted."""
    found = BOUNCE_ADDRESS.match(inbound.recipient)
    user_id = int(found[1])
    inbound.user_id = user_id if account_selectors.mail_account(user_id=user_id) else None
    statuses = re.findall(r"^Status:\s*([245])\.\d{1,3}\.\d{1,3}", _report_text(message), re.MULTILINE | re.IGNORECASE)
    if "5" in statuses and inbound.user_id:
        bounce_hard(user_id=user_id, reason=f"the mail server said {inbound.subject or 'undeliverable'}")
        return "bounce_hard", "a permanent failure: mail is off for this account"
    return "bounce_soft", "a temporary failure or an unreadable report: nothing changed"


def _report_text(message: Any) -> str:
    texts = []
    for part in message.walk():
        if part.get_content_type() in ("message/delivery-status", "text/plain"):
            payload = part.get_payload()
            if isinstance(payload, list):
                texts.extend(str(item) for item in payload)
            else:
                texts.append(part.get_payload(decode=True).decode("utf-8", "replace") if part.get_payload(decode=True) else str(payload))
    return "\n".join(texts)


def bounce_hard(*, user_id: int, reason: str) -> None:
    preference_of(user_id)
    Preference.objects.filter(user_id=user_id, bounced_at__isnull=True).update(
        bounced_at=time_controls.now(), bounce_reason=reason[:300]
    )


def bounce_by_address(*, address: str, reason: str) -> int:
    """A provider reports a hard bounce by address (anymail's tracking webhook)."""
    ids = account_selectors.accounts_with_email(email=address)
    for user_id in ids:
        bounce_hard(user_id=user_id, reason=reason)
    return len(ids)
