"""Each mail in its recipient's language: whatever the language of whoever caused it (a move, a
sign-up), a mail is written with its recipient's own setting active (`Account.language`, else
English: a mail has no browser to ask)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation


def language_of(account: dict[str, Any] | None) -> str:
    chosen = (account or {}).get("language") or ""
    return chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def speaking(account: dict[str, Any] | None):
    """`with speaking(account):` writes what follows in the account's language."""
    return translation.override(language_of(account))
