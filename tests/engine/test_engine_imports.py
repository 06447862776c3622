"""The engine imports only the standard library (STYLE.md: imports point inward)."""

from __future__ import annotations

import ast
import doctest
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import rookery.engine

PACKAGE = Path(rookery.engine.__file__).parent


def test_importing_the_engine_imports_neither_grpc_nor_asyncio() -> None:
    code = (
        "import sys, rookery.engine\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'asyncio', 'google'))\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent.parent))
    completed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr


#: The native core (core/, Rust), imported only where a fallback follows.
OPTIONAL = {"rookery_core"}
#: ``Game`` on the core: imported (by ``_choice.py``) only where ``_core.py`` found the core.
CORE_ONLY = {"_core_game.py"}


def _optional_imports(tree: ast.Module) -> set[ast.AST]:
    """The imports of ``try`` blocks whose ``except ImportError`` carries on without them."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(handler.type, ast.Name) and handler.type.id == "ImportError"
            for handler in node.handlers
        ):
            found.update(n for n in node.body if isinstance(n, ast.Import | ast.ImportFrom))
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_every_engine_module_imports_only_the_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    optional = _optional_imports(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in OPTIONAL and (node in optional or path.name in CORE_ONLY):
                continue
            assert top in sys.stdlib_module_names or top == "__future__", f"{path.name}: {name}"
            assert top not in ("asyncio", "logging", "time", "socket"), f"{path.name}: {name}"


def test_the_engine_plays_without_its_optional_imports() -> None:
    # Both builds, with every optional module made unimportable.
    code = (
        "import sys\n"
        f"for name in {sorted(OPTIONAL)!r}: sys.modules[name] = None\n"
        "import random\n"
        "from rookery.engine import Game, Ruleset, build_info\n"
        "game = Game(Ruleset.preset('standard'), 3)\n"
        "rng = random.Random(1)\n"
        "while not game.is_over: game.apply(game.legal_actions().sample(rng))\n"
        "print(build_info().kind)\n"
    )
    kinds = set()
    for pure in ("", "1"):
        env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent.parent), ROOKERY_PURE_ENGINE=pure)
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        kinds.add(done.stdout.strip())
    assert "pure" in kinds


def test_the_engine_never_uses_the_global_random_generator() -> None:
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for call in ("random.random(", "random.choice(", "random.shuffle(", "random.randrange("):
            assert call not in text, f"{path.name} uses the global generator: {call}"


@pytest.mark.parametrize(
    "module",
    [
        "rookery.engine",
        "rookery.engine._cards",
        "rookery.engine._ruleset",
        "rookery.engine._actions",
        "rookery.engine._legal",
        "rookery.engine._game",
        "rookery.engine._playout",
        "rookery.engine.testing",
    ],
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_api_is_listed_in_all() -> None:
    for name in rookery.engine.__all__:
        assert hasattr(rookery.engine, name), name
