"""The shape of the whole project: no module is part of an import cycle, and no app reaches into
another app's models: it asks that app's services and selectors. Migrations are history and may
name any app's models; `TYPE_CHECKING` imports never run and are left out."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "analysis", "apikit", "chat", "competition", "consumers", "games", "hooks", "mail", "streams", "web")


def _python_directories() -> tuple[str, ...]:
    """Every top-level directory that holds Python (the apps, `rules`, `bots`, `project`, and the
    benchmarks, the tests and the examples beside them), found rather than listed, so a new one
    is checked from its first module."""
    return tuple(sorted(path.name for path in ROOT.iterdir()
                        if path.is_dir() and not path.name.startswith(".") and any(path.rglob("*.py"))))


PACKAGES = _python_directories()


def _parsed(path: Path, attempts: int = 3) -> ast.Module:
    # CPython 3.11's parser keeps its recursion depth per interpreter (python/cpython#106905): a
    # parse while a server thread of an earlier test compiles can fail with SystemError; again settles it.
    for attempt in range(attempts):
        try:
            return ast.parse(path.read_text(), filename=str(path))
        except SystemError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


@functools.cache
def _modules() -> dict[str, ast.Module]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = _parsed(path)
    return found


def _runtime_imports(tree: ast.Module):
    """Every import statement that can run: at module level, in functions and classes, but not
    under `if TYPE_CHECKING:`."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))


def _targets(node: ast.Import | ast.ImportFrom, modules: dict[str, ast.Module]) -> set[str]:
    """The project's modules one import statement loads (the deepest module each name reaches)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.level == 0 and node.module:
        names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                 for alias in node.names]
    else:
        return set()
    found = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: set().union(*(_targets(node, modules) for node in _runtime_imports(tree))) - {name}
            for name, tree in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles_and_only_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_check_reads_every_directory_of_python():
    assert set(APPS) | {"bench", "bots", "examples", "project", "rules", "tests"} <= set(PACKAGES)


def test_no_module_anywhere_is_part_of_an_import_cycle():
    graph = _graph()
    assert "games.services.moves" in graph and "accounts.auth" in graph["apikit.views"]
    assert "bench.p1" in graph and "tests.conftest" in graph
    assert _cycles(graph) == []


def _models_reached(module: str, tree: ast.Module, modules: dict[str, ast.Module]) -> list[str]:
    app = module.split(".")[0]
    return sorted(
        target for node in _runtime_imports(tree) for target in _targets(node, modules)
        if target.split(".")[0] in APPS and target.split(".")[0] != app and target.split(".")[1:2] == ["models"]
    )


@pytest.mark.parametrize("app", APPS)
def test_an_app_reads_other_apps_through_their_services_and_selectors_never_their_models(app):
    modules = _modules()
    reached = {name: found for name, tree in modules.items()
               if name.split(".")[0] == app and (found := _models_reached(name, tree, modules))}
    assert reached == {}


def _internals_reached(module: str, tree: ast.Module, modules: dict[str, ast.Module]) -> list[str]:
    """Another app's doors (its `apis` modules: a view's helpers are the view's) and its storage
    (`stores`: the event writer's seam), which an app reaches only through that app's services
    and selectors, or through a helper moved where both may use it."""
    app = module.split(".")[0]
    return sorted(
        target for node in _runtime_imports(tree) for target in _targets(node, modules)
        if target.split(".")[0] in APPS and target.split(".")[0] != app
        and any(part == "stores" or part.endswith("apis") for part in target.split(".")[1:])
    )


@pytest.mark.parametrize("app", APPS)
def test_an_app_never_reaches_into_another_apps_doors_or_store(app):
    modules = _modules()
    reached = {name: found for name, tree in modules.items()
               if name.split(".")[0] == app and (found := _internals_reached(name, tree, modules))}
    assert reached == {}


def test_the_boundary_check_sees_a_door_or_a_store_reached():
    modules = _modules()
    tree = ast.parse("from games.apis import invitation_of\nfrom games.stores.fast import loaded_instance\n")
    assert _internals_reached("chat.apis", tree, modules) == ["games.apis", "games.stores.fast"]
    assert _internals_reached("games.rematch", ast.parse("from games.apis import invitation_of"), modules) == []


def test_the_boundary_check_sees_a_model_import():
    modules = _modules()
    tree = ast.parse("from games.models import Game\nimport accounts.models\n")
    assert _models_reached("chat.selectors", tree, modules) == ["accounts.models", "games.models"]
    assert _models_reached("games.selectors", ast.parse("from games.models import Game"), modules) == []
