"""Which build of the engine runs: ``Game`` on the native core (``rookery_core``, where
``make setup`` built it) or the pure Python engine (``ROOKERY_PURE_ENGINE=1`` forces it).

``choose_build`` serves a package that mypyc compiles in place (the search bots' playout model,
``clients/python/compile_playouts.py``): it uses the compiled modules only if every one of them
was built, for this interpreter, from the sources as they are now; otherwise — or when
``ROOKERY_PURE_ENGINE=1`` — it imports the pure ``.py`` files (a stale build also warns).
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

from ._core import PURE_ENV, core_version, native, on_core

__all__ = ["PURE_ENV", "BuildInfo", "build_info", "choose_build"]

_MANIFEST = "_native.json"


@dataclass(frozen=True)
class BuildInfo:
    """A build in use: ``kind`` is ``"core"`` (the engine's ``Game`` on the native core),
    ``"compiled"`` (a package's mypyc modules) or ``"pure"``.

    ``modules`` are the compiled modules in use (empty otherwise); ``reason`` says why the pure
    build runs (``""`` otherwise); ``core`` is the native core's version (``"core"`` only).
    """

    kind: str
    modules: tuple[str, ...]
    reason: str
    core: str = ""

    @property
    def compiled(self) -> bool:
        """Whether compiled modules are in use."""
        return self.kind == "compiled"

    def __str__(self) -> str:
        if self.kind == "core":
            return "Game on the native core"
        if self.compiled:
            return f"compiled (mypyc, {len(self.modules)} modules)"
        return f"pure Python ({self.reason})"


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


def choose_build(package: str, directory: Path) -> BuildInfo:
    """Choose the compiled or the pure modules of ``package`` (in ``directory``), before any of
    them is imported: the compiled ones if ``directory/_native.json`` lists them, built for this
    interpreter from the sources as they are now, and ``ROOKERY_PURE_ENGINE`` is not set.

    A package compiled so (the search bots' playout model, ``clients/python/compile_playouts.py``)
    calls it from its ``__init__``.
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

    >>> build_info().kind in ("core", "pure")
    True
    """
    if on_core:
        return BuildInfo("core", (), "", core_version() or "")
    if native is not None:
        return BuildInfo("pure", (), f"{PURE_ENV}={os.environ[PURE_ENV]}")
    return BuildInfo("pure", (), "no native core: rookery_core is not built here")
