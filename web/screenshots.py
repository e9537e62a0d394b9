"""`python -m web.screenshots [rules ...]`: screenshots of each game at its start, middle and end
at 1280x800 and 390x844, written to docs/screenshots/ (tests/web/screenshots_run.py takes them,
in Chromium, against a live server on the embedded default database)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    os.chdir(ROOT)
    chosen = " or ".join(argv)
    return pytest.main(["tests/web/screenshots_run.py", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *(["-k", chosen] if chosen else [])])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
