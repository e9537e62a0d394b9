"""The event writer is the one way to change a game (`games.writer`): no other module appends an
event, runs a unit of work, projects a state, or writes or locks the game's row (whose version,
on PostgreSQL its `xmin`, any UPDATE moves). Read from the source of every directory of the
server, so a new kind of write that goes around the writer fails here before it can forget
anything."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Not the server: the tests and the benchmarks make the rows they need (a benchmark seeds
# thousands of finished games in SQL), and the examples are clients.
NOT_THE_SERVER = {"tests", "bench", "examples"}

# What only the writer may call: a module's functions (however imported), and, by the name of
# what it is called on, the strategy's method that moves the version.
WRITER_ONLY = {
    ("log", "append"): {"games/writer.py"},
    ("projection", "record_state"): {"games/writer.py"},
    ("projection", "clocks_again"): {"games/writer.py"},
    ("strategy", "version_moved"): {"games/writer.py"},
}
MODULES = {"log": "games.log", "projection": "games.projection"}

# Who may write or lock the game's row: the writer, the strategies it runs under, and the stores
# it writes through.
ROW_WRITERS = ("games/writer.py", "games/concurrency.py", "games/stores/")
ROW_WRITES = {"update", "select_for_update", "bulk_update", "update_or_create", "create", "get_or_create",
              "bulk_create", "save"}
ROW_SQL = re.compile(r"\bUPDATE\s+games_game\b|\bgames_game\b[^;]*\bFOR\s+(NO\s+KEY\s+)?UPDATE\b", re.I | re.S)


def _server_directories() -> list[str]:
    return sorted(path.name for path in ROOT.iterdir()
                  if path.is_dir() and not path.name.startswith(".") and path.name not in NOT_THE_SERVER
                  and any(path.rglob("*.py")))


def _sources():
    for directory in _server_directories():
        for path in sorted((ROOT / directory).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text())


def _owner_name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _imported(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """The names a file binds to a module (`from games import log as chain`: chain -> games.log)
    and to a module's function (`from games.log import append`: append -> games.log.append)."""
    modules: dict[str, str] = {}
    functions: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                (modules if full in MODULES.values() else functions)[alias.asname or alias.name] = full
    return modules, functions


def _calls(tree: ast.Module) -> set[tuple[str, str]]:
    """(name, attribute) of every `name.attribute(...)` call, `self._strategy` and the like under
    their last name, with a module named by what it is (`chain.append` with `chain` bound to
    games.log is ("log", "append")); and every function of those modules imported by name."""
    modules, functions = _imported(tree)
    module_names = {full: short for short, full in MODULES.items()}
    found = set()
    for full in functions.values():
        module, function = full.rsplit(".", 1)
        if module in module_names:
            found.add((module_names[module], function))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = _owner_name(owner).lstrip("_")
            if isinstance(owner, ast.Name) and owner.id in modules:
                name = module_names.get(modules[owner.id], name)
            elif isinstance(owner, ast.Attribute) and ast.unparse(owner) in module_names:
                name = module_names[ast.unparse(owner)]
            found.add((name, node.func.attr))
    return found


def _rooted_at_game_objects(node: ast.expr, games: set[str], querysets: set[str]) -> bool:
    """Whether `node` is `Game.objects`, a chain of method calls on it, or a name given one. An
    attribute on the way (`game.seats`) leads to another table."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute):
            return node.attr == "objects" and _owner_name(node.value) in games
        else:
            return isinstance(node, ast.Name) and node.id in querysets


def _game_row_writes(tree: ast.Module) -> list[str]:
    """Every write or lock of the game's row the file makes: through the ORM (`Game.objects`,
    a queryset kept in a name, a game instance's `save`) and in SQL."""
    _, functions = _imported(tree)
    games = {"Game"} | {name for name, full in functions.items() if full == "games.models.Game"}
    querysets = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)
                 if _rooted_at_game_objects(node.value, games, set())}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ROW_WRITES:
            owner = node.func.value
            if _rooted_at_game_objects(owner, games, querysets) or (
                    node.func.attr == "save" and _owner_name(owner) == "game"):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ROW_SQL.search(node.value):
            found.append(node.value.strip().splitlines()[0])
    return found


def test_the_check_reads_every_app():
    assert {"accounts", "analysis", "apikit", "bots", "chat", "competition", "consumers", "games", "hooks",
            "mail", "project", "rules", "streams", "web"} <= set(_server_directories())


def test_only_the_writer_appends_projects_and_moves_the_version():
    strays = []
    for name, tree in _sources():
        for call in _calls(tree) & set(WRITER_ONLY):
            if name not in WRITER_ONLY[call]:
                strays.append(f"{name} calls {'.'.join(call)}")
    assert strays == []


def test_no_module_creates_events_through_the_orm():
    """Events are written only as the first part of a unit of work (`games.log.append`)."""
    strays = [name for name, tree in _sources()
              if re.search(r"Event\.objects\.(bulk_)?create\b", ast.unparse(tree))]
    assert strays == []


def test_only_the_writer_writes_or_locks_the_game_row():
    """Any UPDATE of the game's row moves its version (on PostgreSQL the version check reads the
    row's `xmin`), and a lock of it is the strategies' to take: a module that did either itself
    would change the game outside the writer's unit of work."""
    strays = {name: writes for name, tree in _sources()
              if not name.startswith(ROW_WRITERS) and (writes := _game_row_writes(tree))}
    assert strays == {}


def _tree(source: str) -> ast.Module:
    return ast.parse(source)


def test_the_check_finds_a_stray_append_however_it_is_imported():
    for source in (
        "from games import log\nlog.append(game, kind='system', seat=None, payload={})\n",
        "from games import log as chain\nchain.append(game)\n",
        "import games.log\ngames.log.append(game)\n",
        "from games.log import append\nappend(game)\n",
        "from games.log import append as add\n",
    ):
        assert ("log", "append") in _calls(_tree(source)), source
    assert ("projection", "record_state") in _calls(_tree("from games.projection import record_state\n"))
    assert ("log", "append") not in _calls(_tree("lines = []\nlines.append(1)\n"))


def test_the_check_finds_a_write_or_lock_of_the_game_row():
    for source in (
        "Game.objects.filter(pk=1).update(lines_waiting=True)\n",
        "Game.objects.select_for_update().filter(pk=1).first()\n",
        "from games.models import Game as G\nG.objects.filter(pk=1).update(seq=2)\n",
        "games = Game.objects.filter(pk=1)\ngames.update(seq=2)\n",
        "game = Game.objects.get(pk=1)\ngame.save()\n",
        "cursor.execute('UPDATE games_game SET seq = 2 WHERE id = 1')\n",
        "cursor.execute('SELECT seq FROM games_game WHERE id = %s FOR UPDATE', [1])\n",
    ):
        assert _game_row_writes(_tree(source)), source
    for source in (
        "Game.objects.filter(pk=1).values_list('seq', flat=True).first()\n",
        "Seat.objects.filter(game_id=1).update(stand_in='mcts')\n",
        "line.save(update_fields=['moves'])\n",
        "cursor.execute('SELECT seq FROM games_game WHERE id = %s', [1])\n",
        "game = Game.objects.get(pk=1)\ngame.seats.create(index=0)\n",
    ):
        assert not _game_row_writes(_tree(source)), source
