"""The components' imports point the way `docs/dev/architecture.md` draws them.

Every `rookery.X` import of every module (function-level and TYPE_CHECKING imports included) is
checked against a table of allowed edges, so that a wrong arrow fails the suite. A component may
use another only through its public modules: no `rookery.other._private` import.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The folder of each component and the name it has under the `rookery` namespace.
COMPONENTS: dict[str, str] = {
    "engine": "engine",
    "wire": "wire",
    "server": "server",
    "arena": "arena",
    "web": "web",
    "clients/python": "client",
    "envs": "envs",
    "cli": "cli",
}

#: What each component may import (besides itself). `v1` is the generated wire contract.
ALLOWED: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "wire": frozenset({"engine", "v1"}),
    "server": frozenset({"engine", "wire", "v1"}),
    "client": frozenset({"engine", "wire", "v1"}),
    "arena": frozenset({"engine", "wire", "server", "v1"}),
    # The human seat is an SDK bot whose `act` awaits the page (web/_seat_bot.py).
    "web": frozenset({"engine", "wire", "server", "arena", "client", "v1"}),
    "envs": frozenset({"engine", "wire", "client", "v1"}),
    "cli": frozenset({"engine", "wire", "server", "arena", "web", "client", "envs", "v1"}),
}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for every test of this file."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = _tree(path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            # `from rookery import arena` names the component in the imported names.
            if node.module == "rookery":
                found.extend((node.lineno, f"rookery.{alias.name}") for alias in node.names)
    return found


def _modules() -> list[tuple[str, Path]]:
    modules: list[tuple[str, Path]] = []
    for folder, component in COMPONENTS.items():
        base = ROOT / folder / "rookery"
        if base.is_dir():
            modules.extend((component, path) for path in sorted(base.rglob("*.py")))
    return modules


def test_the_table_names_every_component_folder() -> None:
    on_disk = {p.name for p in (ROOT / "clients" / "python" / "rookery").iterdir() if p.is_dir()}
    for folder in ROOT.iterdir():
        if (folder / "rookery").is_dir():
            on_disk |= {p.name for p in (folder / "rookery").iterdir() if p.is_dir()}
    on_disk -= {"__pycache__", "v1"}
    assert on_disk <= set(COMPONENTS.values()), sorted(on_disk - set(COMPONENTS.values()))


@pytest.mark.parametrize(
    ("component", "path"), _modules(), ids=lambda v: v if isinstance(v, str) else v.name
)
def test_every_import_follows_an_allowed_edge(component: str, path: Path) -> None:
    for line, name in _imports(path):
        parts = name.split(".")
        if parts[0] != "rookery" or len(parts) < 2 or parts[1] == component:
            continue
        target = parts[1]
        where = f"{path.relative_to(ROOT)}:{line} imports {name}"
        assert target in ALLOWED[component], f"{where}: {component} may not depend on {target}"
        private = [part for part in parts[2:] if part.startswith("_")]
        assert not private, f"{where}: reaches into a private module of {target}"


def _module_name(package_root: Path, path: Path) -> str:
    """``rookery.server._table`` for ``server/rookery/server/_table.py``."""
    parts = list(path.relative_to(package_root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["rookery", *parts])


def _import_graph(component: str) -> dict[str, dict[str, int]]:
    """Each module of ``component`` and the modules of the same component it imports (by line).

    Every import counts: module-level, function-level and ``TYPE_CHECKING`` ones (a cycle that
    only the type checker sees is still two modules that cannot be understood apart), relative
    ones resolved. ``from package import name`` is an edge to the submodule ``name`` when there is
    one, else to the package's ``__init__``. The implicit import of a module's parent packages is
    not an edge: it is how Python loads a module, not a dependency the module chose.
    """
    folder = next(f for f, c in COMPONENTS.items() if c == component)
    package_root = ROOT / folder / "rookery" / component
    paths = {_module_name(package_root, p): p for p in sorted(package_root.rglob("*.py"))}
    graph: dict[str, dict[str, int]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.setdefault(target, node.lineno)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan), as module paths."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    cycles = []
    for group in groups:
        start = min(group)
        # A shortest way back to the start, inside the group (breadth first).
        came_from: dict[str, str] = {}
        frontier = [start]
        while start not in came_from:
            following = []
            for node in frontier:
                for target in sorted(graph[node]):
                    if target in group and target not in came_from:
                        came_from[target] = node
                        following.append(target)
            frontier = following
        path = [start]
        while came_from[path[-1]] != start:
            path.append(came_from[path[-1]])
        cycles.append([start, *reversed(path[1:]), start])
    return cycles


def _shown(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    return (
        " -> ".join(f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(cycle))
        + f" -> {cycle[-1]}"
    )


def test_the_cycle_finder_finds_and_shows_a_cycle() -> None:
    graph = {"a": {"b": 3}, "b": {"c": 5}, "c": {"a": 7}, "d": {"a": 1}}
    (cycle,) = _cycles(graph)
    assert cycle == ["a", "b", "c", "a"]
    assert _shown(graph, cycle) == "a (line 3) -> b (line 5) -> c (line 7) -> a"
    assert _cycles({"a": {"b": 1}, "b": {}}) == []


@pytest.mark.parametrize("component", sorted(set(COMPONENTS.values())))
def test_no_import_cycle_between_the_modules_of_a_component(component: str) -> None:
    graph = _import_graph(component)
    assert len(graph) > 1, f"no modules found for {component}"
    cycles = [_shown(graph, cycle) for cycle in _cycles(graph)]
    assert not cycles, f"import cycles in {component}:\n" + "\n".join(cycles)


# The public API: every public module's __all__, docs/dev/api.md, and what others import -------

API_DOC = ROOT / "docs" / "dev" / "api.md"


def _public_modules() -> dict[str, Path]:
    """Every package root and module without a leading underscore, by its dotted name."""
    found: dict[str, Path] = {}
    for folder, component in COMPONENTS.items():
        package_root = ROOT / folder / "rookery" / component
        for path in sorted(package_root.rglob("*.py")):
            parts = path.relative_to(package_root).parts
            if not any(p.startswith("_") and p != "__init__.py" for p in parts):
                found[_module_name(package_root, path)] = path
    return found


def _all_of(path: Path) -> list[str] | None:
    """A module's ``__all__`` as written (a literal list), or None when it has none."""
    for node in _tree(path).body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "__all__":
            names = ast.literal_eval(value)
            assert isinstance(names, list), f"{path}: __all__ must be a list literal"
            return [str(name) for name in names]
    return None


def _documented() -> dict[str, list[str]]:
    """docs/dev/api.md's sections (``### `rookery.x` ``) and the names listed in each."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in API_DOC.read_text(encoding="utf-8").splitlines():
        heading = re.fullmatch(r"### `(rookery\.[\w.]+)`", line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
        elif current is not None and (entry := re.match(r"- `(\w+)`: \S", line)):
            current.append(entry.group(1))
    return sections


def _summary(path: Path, name: str) -> str:
    """The first line of ``name``'s docstring in ``path`` (for a missing line of the doc)."""
    for node in _tree(path).body:
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.name == name
            and (doc := ast.get_docstring(node))
        ):
            return doc.splitlines()[0]
    return "…"


def test_every_public_module_lists_its_public_names_in_all() -> None:
    missing = [
        str(path.relative_to(ROOT)) for path in _public_modules().values() if _all_of(path) is None
    ]
    assert not missing, f"public modules without __all__: {missing}"


def test_the_api_page_lists_exactly_the_all_of_every_public_module() -> None:
    modules = _public_modules()
    documented = _documented()
    problems = []
    for name, path in modules.items():
        listed = sorted(_all_of(path) or [])
        if name not in documented:
            problems.append(f"no section ### `{name}`")
            continue
        for missing in sorted(set(listed) - set(documented[name])):
            problems.append(f"{name}: add - `{missing}`: {_summary(path, missing)}")
        for extra in sorted(set(documented[name]) - set(listed)):
            problems.append(f"{name}: `{extra}` is listed but not in __all__")
    for extra in sorted(set(documented) - set(modules)):
        problems.append(f"section ### `{extra}` names no public module")
    assert not problems, "docs/dev/api.md and __all__ disagree:\n" + "\n".join(problems)


def test_no_component_uses_a_name_another_component_does_not_list_in_all() -> None:
    public = {name: set(_all_of(path) or []) for name, path in _public_modules().items()}
    problems = []
    for component, path in _modules():
        tree = _tree(path)
        modules_by_alias: dict[str, str] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            parts = node.module.split(".")
            if parts[0] != "rookery" or len(parts) < 2 or parts[1] in (component, "v1"):
                continue
            if node.module not in public:
                continue  # a private module: test_every_import_follows_an_allowed_edge says so
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in public:
                    modules_by_alias[alias.asname or alias.name] = submodule
                elif alias.name not in public[node.module]:
                    problems.append(
                        f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name} from "
                        f"{node.module}, which does not list it in __all__"
                    )
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules_by_alias
                and node.attr not in public[modules_by_alias[node.value.id]]
            ):
                module = modules_by_alias[node.value.id]
                problems.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} reads {module}.{node.attr}, "
                    "which is not in its __all__"
                )
    assert not problems, "\n".join(problems)
