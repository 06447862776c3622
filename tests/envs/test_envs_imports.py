"""rookery.envs depends on the engine, and on the SDK only for the bridge and the text seat."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import rookery.envs

PACKAGE = Path(next(iter(rookery.envs.__path__)))
SDK_USERS = {"bridge.py", "gym.py", "chat.py", "seat.py", "mcp_seat.py"}
"""Modules that may import the SDK: the bridge, the text seat's and the MCP seat's bots, and the
Gymnasium env (its opponents are the SDK's reference bots)."""
NOTE_WRITERS = {"seat.py"}
"""Modules that may import the protocol's note bounds and ledger names (``rookery.wire.notes``,
one module of constants and checks): the seat whose moves carry notes."""
REPLAY_READERS: set[str] = set()
"""Modules that may read replays (``rookery.wire``, ``rookery.v1``): none now (the language-model
ledger is the arena's, ``rookery.arena.records._ledger``)."""


def _rookery_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] == "rookery"}


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_every_envs_module_imports_only_the_engine_and_where_allowed_the_sdk(path: Path) -> None:
    for name in _rookery_imports(path):
        parts = name.split(".")
        component = parts[1] if len(parts) > 1 else ""
        allowed = {"engine", "envs"} | ({"client"} if path.name in SDK_USERS else set())
        allowed |= {"wire", "v1"} if path.name in REPLAY_READERS else set()
        if path.name in NOTE_WRITERS and name == "rookery.wire.notes":
            continue
        assert component in allowed, f"{path.name} imports {name}"


def test_the_encoding_and_the_environments_do_not_import_the_sdk() -> None:
    for name in ("_encoding.py", "_core.py", "aec.py", "spiel.py", "vector.py", "text.py"):
        imports = _rookery_imports(PACKAGE / name)
        assert all(i.split(".")[1] in ("engine", "envs") for i in imports if "." in i), (
            name,
            imports,
        )
