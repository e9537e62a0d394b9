"""The event writer is the one way to change a game (`games.writer`): no other module appends an
event, runs a unit of work, projects a state or moves a game's version. Read from the source, so
a new kind of write that goes around the writer fails here before it can forget anything."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "mail", "hooks", "streams", "competition", "analysis", "web", "project", "bots", "rules")

# What only the writer (and, for the version, the strategies it runs under) may call.
WRITER_ONLY = {
    ("log", "append"): {"games/writer.py"},
    ("projection", "record_state"): {"games/writer.py"},
    ("projection", "clocks_again"): {"games/writer.py"},
    ("strategy", "version_moved"): {"games/writer.py"},
}


def _calls(path: Path) -> set[tuple[str, str]]:
    """(name, attribute) of every `name.attribute(...)` call in the file; `self._strategy` and
    the like count under their last name."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            found.add((name.lstrip("_"), node.func.attr))
    return found


def _sources():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path


def test_only_the_writer_appends_projects_and_moves_the_version():
    strays = []
    for name, path in _sources():
        for call in _calls(path) & set(WRITER_ONLY):
            if name not in WRITER_ONLY[call]:
                strays.append(f"{name} calls {'.'.join(call)}")
    assert strays == []


def test_no_module_writes_events_or_a_games_version_through_the_orm():
    """Events are written only as the first part of a unit of work (`games.log.append`), and the
    game row's version moves only by the writer's strategies."""
    strays = []
    for name, path in _sources():
        text = path.read_text()
        if "Event.objects.create" in text or "Event.objects.bulk_create" in text:
            strays.append(f"{name} creates events through the ORM")
        if 'update(id=models.F("id"))' in text and name != "games/concurrency.py":
            strays.append(f"{name} moves a game's version")
    assert strays == []


def test_the_check_finds_a_stray_append(tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text("from games import log\n\ndef f(game):\n    log.append(game, kind='system', seat=None, payload={})\n")
    assert ("log", "append") in _calls(stray)
