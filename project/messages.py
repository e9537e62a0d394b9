"""The message catalogues (`locale/<lang>/LC_MESSAGES/*.po`) compiled to the `.mo` files Django
reads, where a `.mo` is missing or older than its `.po`. `make install` compiles them with
`manage.py compilemessages` (GNU gettext's msgfmt); the test suite calls this first, so a test run
straight after editing a `.po` reads the new words. Each file is written aside and moved into
place, so parallel test processes never read half of one."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"


def stale_catalogues(locale: Path = LOCALE) -> list[Path]:
    found = []
    for po in sorted(locale.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            found.append(po)
    return found


def compile_stale(locale: Path = LOCALE) -> list[Path]:
    """Compile what is stale; returns the catalogues compiled. Needs msgfmt (Debian: gettext)."""
    stale = stale_catalogues(locale)
    if stale and shutil.which("msgfmt") is None:
        raise RuntimeError("GNU gettext's msgfmt is missing (Debian: apt-get install gettext)")
    for po in stale:
        handle, aside = tempfile.mkstemp(dir=po.parent, suffix=".mo.part")
        os.close(handle)
        try:
            subprocess.run(["msgfmt", "--check-format", "-o", aside, str(po)], check=True)
            os.replace(aside, po.with_suffix(".mo"))
        finally:
            if os.path.exists(aside):
                os.unlink(aside)
    return stale
