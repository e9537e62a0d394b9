"""Per-installation secrets, made on first start so that no two installations share one.

Kept apart from settings.py so it can be tested without reloading the settings.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

# Keys that have been public (in this repository's history or in Django's own templates): a
# server signing with one of them signs nothing.
PUBLIC_KEYS = frozenset({"scrapyard-insecure-development-key-change-me"})
MIN_KEY_LENGTH = 32


def secret_key(from_environment: str | None, key_file: Path, *, debug: bool) -> str:
    """The environment's key if set, else this installation's generated one. A key that is
    public or short is refused unless DEBUG is on (a development machine)."""
    key = from_environment or _generated_key(key_file)
    if not debug and (key in PUBLIC_KEYS or key.startswith("django-insecure") or len(key) < MIN_KEY_LENGTH):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is a public or short key; set a random one of at least "
            f"{MIN_KEY_LENGTH} characters, or unset it to use the one generated in {key_file}"
        )
    return key


def _generated_key(key_file: Path) -> str:
    try:
        key = key_file.read_text().strip()
    except FileNotFoundError:
        pass
    else:
        # Empty: another process has just created it and not yet written its key. Taken as it
        # stood, the key was "", refused as short (or, with DEBUG on, signing with no key at all).
        return key or _written_key(key_file)
    key = secrets.token_urlsafe(50)
    # O_EXCL: when several processes start at once, one writes and the others read its key.
    try:
        descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _written_key(key_file)
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
    return key


def _written_key(key_file: Path) -> str:
    """Another process created the file a moment ago; wait for its key to be written."""
    for _ in range(50):
        key = key_file.read_text().strip()
        if key:
            return key
        time.sleep(0.02)
    raise ImproperlyConfigured(f"{key_file} exists but is empty; delete it to generate a new key")
