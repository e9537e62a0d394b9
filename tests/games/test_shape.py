"""The shape of `games/`: its import graph has no cycle, no import hides inside a function
without a comment saying why, the pure modules stay pure, and every error code has its status."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import bots.base
import rules.errors
from accounts import errors as account_errors
from analysis import errors as analysis_errors
from apikit import errors as kit_errors
from apikit import http_errors
from chat import errors as chat_errors
from games import errors

GAMES = Path(__file__).resolve().parents[2] / "games"


def _modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(GAMES.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(GAMES.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = _parsed(path)
    return found


def _parsed(path, attempts: int = 3) -> ast.Module:
    # CPython 3.11's parser keeps its recursion depth per interpreter, not per thread
    # (python/cpython#106905): a parse while a server thread of an earlier test compiles can
    # fail with SystemError. It is that race, not the source; parsing again settles it.
    for attempt in range(attempts):
        try:
            return ast.parse(path.read_text(), filename=str(path))
        except SystemError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def _imported(node: ast.AST, modules: dict[str, ast.Module]) -> set[str]:
    """The modules of `games` that one import statement names."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        names = {f"{node.module}.{alias.name}" for alias in node.names}
        return ({node.module} & set(modules)) - {"games"} | (names & set(modules))
    return set()


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: set().union(*(_imported(node, modules) for node in tree.body), set()) - {name}
        for name, tree in modules.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        for nxt in sorted(graph.get(name, ())):
            found = visit(nxt, path + [name])
            if found:
                return found
        done.add(name)
        return None

    return next((found for name in sorted(graph) if (found := visit(name, []))), None)


def test_the_import_graph_of_games_has_no_cycle():
    graph = _graph()
    assert "games.services.moves" in graph and "games.deadlines" in graph["games.projection"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_hides_inside_a_function_without_saying_why():
    hidden = []
    for path in sorted(GAMES.rglob("*.py")):
        lines = path.read_text().splitlines()
        for function in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and "#" not in lines[node.lineno - 1]:
                    hidden.append(f"{path.relative_to(GAMES.parent)}:{node.lineno}")
    assert hidden == []


def test_services_never_import_tasks_and_tasks_are_imported_by_nobody():
    graph = _graph()
    importers = sorted(name for name, imported in graph.items() if "games.tasks" in imported)
    assert importers == []


def test_time_controls_and_errors_are_pure_python():
    modules = _modules()
    for name in ("games.time_controls", "games.errors"):
        for node in ast.walk(modules[name]):
            if isinstance(node, ast.ImportFrom):
                assert node.module.split(".")[0] not in {"django", "rest_framework", "celery"}, (name, node.module)
            if isinstance(node, ast.Import):
                assert all(alias.name.split(".")[0] not in {"django", "rest_framework"} for alias in node.names)


def _codes(module) -> set[str]:
    return {
        cls.code
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if isinstance(getattr(cls, "code", None), str) and cls.__module__ == module.__name__
    }


def test_every_error_code_has_its_status_in_the_one_table():
    codes = (_codes(errors) | _codes(kit_errors) | _codes(account_errors) | _codes(chat_errors) | _codes(analysis_errors)
             | _codes(rules.errors) | _codes(bots.base))
    assert {"stale_seq", "not_your_turn", "unknown_bot", "token_not_found", "chat_too_fast", "unknown_field"} <= codes
    assert sorted(codes - set(http_errors.STATUS)) == []
    assert not any(hasattr(cls, "status") for _, cls in inspect.getmembers(errors, inspect.isclass))


def test_one_not_your_turn_and_bot_errors_are_not_rules_errors():
    assert not hasattr(errors, "NotYourTurnError")
    assert not issubclass(bots.base.BotError, rules.errors.RulesError)
    assert http_errors.status_of(rules.errors.NotYourTurn("seat 1 is not to act")) == 403
