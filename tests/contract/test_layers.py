"""The components' imports point the way `docs/dev/architecture.md` draws them.

Every `rookery.X` import of every module (function-level and TYPE_CHECKING imports included) is
checked against a table of allowed edges, so that a wrong arrow fails the suite. A component may
use another only through its public modules: no `rookery.other._private` import.
"""

from __future__ import annotations

import ast
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
    "web": frozenset({"engine", "wire", "server", "arena", "v1"}),
    "envs": frozenset({"engine", "wire", "client", "v1"}),
    "cli": frozenset({"engine", "wire", "server", "arena", "web", "client", "envs", "v1"}),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
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
