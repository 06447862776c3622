"""Which build of the engine runs: the compiled modules (mypyc) or the pure Python ones.

``engine/compile_engine.py`` (run by ``make setup``) compiles the hot modules of this package in
place and writes ``_native.json``: each compiled module's source digest. At import the package
uses the compiled modules only if every one of them was built, for this interpreter, from the
sources as they are now; otherwise — or when ``ROOKERY_PURE_ENGINE=1`` — it imports the pure
``.py`` files (a stale build also warns). Both builds are the same rules from the same source.

This module is never compiled: it decides, before any compiled module is imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ._core import PURE_ENV, core_version, on_core

__all__ = ["PURE_ENV", "BuildInfo", "build_info", "choose_build", "select_build"]

_MANIFEST = "_native.json"


@dataclass(frozen=True)
class BuildInfo:
    """The engine build in use: ``kind`` is ``"compiled"`` or ``"pure"``.

    ``modules`` are the compiled modules in use (empty for the pure build); ``reason`` says why
    the pure build runs (``""`` for the compiled one); ``core`` is the version of the native core
    ``Game`` runs on (``""`` when it runs in Python).
    """

    kind: str
    modules: tuple[str, ...]
    reason: str
    core: str = ""

    @property
    def compiled(self) -> bool:
        """Whether the compiled modules are in use."""
        return self.kind == "compiled"

    def __str__(self) -> str:
        if self.compiled:
            python = f"compiled (mypyc, {len(self.modules)} modules)"
        else:
            python = f"pure Python ({self.reason})"
        return f"native core {self.core}; the rest {python}" if self.core else python


_selected: BuildInfo | None = None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Imports the pure source of the package's compiled modules, not their extensions."""

    def __init__(self, package: str, directory: Path, names: Sequence[str]) -> None:
        self._package = package
        self._directory = directory
        self._names = frozenset(names)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != self._package or name not in self._names:
            return None
        return importlib.util.spec_from_file_location(fullname, self._directory / f"{name}.py")


def _built(directory: Path) -> tuple[dict[str, str], str]:
    """The compiled modules and their source digests, or ({}, why there are none)."""
    try:
        manifest = json.loads((directory / _MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        # Not `make setup` alone: a pip user has no Makefile, and pip installs the pure modules.
        return {}, "not built: as pip installs it; in a clone, `make setup` compiles it"
    except (OSError, ValueError) as error:
        return {}, f"unreadable {_MANIFEST}: {error}"
    if manifest.get("python") != sys.implementation.cache_tag:
        return {}, f"built for {manifest.get('python')}, not {sys.implementation.cache_tag}"
    modules: dict[str, str] = manifest.get("modules", {})
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for name in modules:
        if not any((directory / f"{name}{suffix}").exists() for suffix in suffixes):
            return {}, f"{name} has no extension module"
    return modules, ""


def select_build(package: str, directory: Path) -> BuildInfo:
    """Choose the build for ``package`` (in ``directory``) before its modules are imported."""
    global _selected
    _selected = choose_build(package, directory)
    return _selected


def choose_build(package: str, directory: Path) -> BuildInfo:
    """Choose the compiled or the pure modules of ``package`` (in ``directory``), before any of
    them is imported: the compiled ones if ``directory/_native.json`` lists them, built for this
    interpreter from the sources as they are now, and ``ROOKERY_PURE_ENGINE`` is not set.

    The engine chooses so for itself; a package compiled the same way (the search bots' playout
    model, ``clients/python/compile_playouts.py``) calls it from its ``__init__``.
    """
    modules, reason = _built(directory)
    if modules and os.environ.get(PURE_ENV, "") not in ("", "0"):
        reason = f"{PURE_ENV}={os.environ[PURE_ENV]}"
    elif modules:
        stale = [
            name
            for name, digest in modules.items()
            if hashlib.sha256((directory / f"{name}.py").read_bytes()).hexdigest() != digest
        ]
        if stale:
            reason = f"stale: {', '.join(f'{name}.py' for name in stale)} changed since the build"
            warnings.warn(
                f"{package}: the compiled build is {reason}; using the pure modules "
                "(run `make setup` to rebuild)",
                RuntimeWarning,
                stacklevel=3,
            )
    if modules and not reason:
        return BuildInfo("compiled", tuple(sorted(modules)), "")
    if modules:
        sys.meta_path.insert(0, _PureFinder(package, directory, list(modules)))
    return BuildInfo("pure", (), reason)


def build_info() -> BuildInfo:
    """The engine build in use (``str()`` of it is what ``rookery --version`` prints).

    >>> build_info().kind in ("compiled", "pure")
    True
    """
    assert _selected is not None, "rookery.engine selects its build when imported"
    if on_core:
        return BuildInfo(_selected.kind, _selected.modules, _selected.reason, core_version() or "")
    return _selected
