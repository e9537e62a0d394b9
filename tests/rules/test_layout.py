"""Every rules package has the same files for the same jobs, so a reader who knows one game knows
where to look in the next: `__init__` (the descriptor and the protocol adapter), `data` (tables),
`state` (the state, its JSON codec and what a seat sees), `moves` (reading a move), `turns` (who
acts, legal moves, applying one) and `render` (the text picture). Anything else is the game's own
(a board's geometry, one module per phase)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import rules

SAME_FILES = ("__init__", "data", "state", "moves", "turns", "render")
STATE_FUNCTIONS = ("dump", "load", "view", "from_view")
MOST_LINES = 500
RULES_DIR = Path(rules.__file__).parent
PACKAGES = sorted(info.name for info in pkgutil.iter_modules([str(RULES_DIR)]) if info.ispkg)


def test_the_games_in_rules_are_its_packages():
    assert PACKAGES == sorted(game for game in rules.catalog() if (RULES_DIR / game).is_dir())
    assert len(PACKAGES) >= 4


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_the_same_files_for_the_same_jobs(package):
    present = {path.stem for path in (RULES_DIR / package).glob("*.py")}
    assert sorted(set(SAME_FILES) - present) == []
    assert not list((RULES_DIR / package).glob("*.md")), "knowledge about the code lives in docstrings"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_state_module_has_the_codec_and_the_views(package):
    state = importlib.import_module(f"rules.{package}.state")
    assert [name for name in STATE_FUNCTIONS if not callable(getattr(state, name, None))] == []


def test_no_rules_module_is_too_long_to_read():
    long = {
        str(path.relative_to(RULES_DIR)): lines
        for path in RULES_DIR.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MOST_LINES
    }
    assert long == {}
