"""Each mail in its recipient's language: whatever the language of whoever caused it (a move, a
sign-up), a mail is written with its recipient's own setting active (`Account.language`, else
English: a mail has no browser to ask)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def language_of(account: dict[str, Any] | None) -> str:
    chosen = (account or {}).get("language") or ""
    return chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def speaking(account: dict[str, Any] | None):
    """`with speaking(account):` writes what follows in the account's language."""
    return translation.override(language_of(account))


def language_of_mail(message: Any) -> str:
    """The language a mail from a stranger asks to be answered in: its `Accept-Language` (RFC
    3282; some mail programs send it), else its `Content-Language` (the language it is written
    in), the first we have; else English. No account yet has a setting to ask."""
    return language_said(message) or settings.LANGUAGE_CODE


def language_said(message: Any) -> str:
    """The language a mail says (as `language_of_mail`), or "" where it says none we have: then
    whoever answers may fall back on what it knows (a reply to a sign-up mail: the language that
    mail was written in)."""
    for header in ("Accept-Language", "Content-Language"):
        try:
            said = str(message.get(header, "") or "")
        except Exception:  # an unreadable header: as if it were absent
            said = ""
        for code, _quality in parse_accept_lang_header(said[:200].replace(" ", "")):
            try:
                return translation.get_supported_language_variant(code)
            except LookupError:
                continue
    return ""
