"""How a package's hot modules are compiled by mypyc in place.

``clients/python/compile_playouts.py`` (the search bots' playout model, which imports this file
from here) describes its build as a :class:`NativeBuild` and calls :meth:`NativeBuild.main` (the
engine is no longer compiled: its speed is the native core's). The extension modules land next
to their sources with ``_native.json``, their source digests, written last by a finished build; the
package checks it at import (``rookery.engine.choose_build``) and falls back to the pure modules
otherwise. Without a C compiler (or without mypyc) the build prints why and exits 0: the pure
modules are the fallback, never an error. A build of the very same inputs made before (another
clone, a worktree, after ``make clean``) is copied from the build cache (``native_cache.py``)
instead of compiled again. Only the standard library is imported up front, so ``--clean`` runs on
any Python.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import native_cache  # beside this file: the build cache of both builds

#: The suffixes of the files a build leaves beside the sources.
_EXTENSION_SUFFIXES = (".so", ".pyd")


def why_not() -> str | None:
    """Why a compiled build cannot be made here, or ``None``."""
    if sys.implementation.name != "cpython":
        return f"mypyc needs CPython, not {sys.implementation.name}"
    for needed in ("mypyc", "setuptools"):
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed (pip install -e '.[dev]')"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} is not on PATH)"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        return f"no Python headers ({include} is missing: install python3-dev)"
    return None


@dataclass(frozen=True)
class NativeBuild:
    """One package's compiled build: which modules, from where, and what it is called."""

    #: The folder mypyc runs from, above the ``rookery`` namespace: mypyc names the modules after
    #: their paths relative to it.
    root: Path
    #: The package the modules are in (``rookery.engine``); the extensions land beside them.
    package_name: str
    #: The modules compiled, by file stem.
    modules: tuple[str, ...]
    #: The generated C, the object files and mypy's cache (git-ignored, like every ``build/``).
    build_dir: Path
    #: What the build is, in the messages (``compiled engine``).
    title: str
    #: What is used without it, in the messages (``the pure engine``).
    fallback: str
    #: The script that describes this build (part of the build cache's key).
    script: Path
    #: With folders here, mypyc runs under the project's mypy settings with this search path
    #: (absolute paths); without, under whatever configuration mypy finds from ``root``.
    mypy_path: tuple[Path, ...] = ()

    @property
    def package(self) -> Path:
        """The package's folder."""
        return self.root.joinpath(*self.package_name.split("."))

    @property
    def group(self) -> str:
        """mypyc's group: the shared library beside the modules is ``_native__mypyc``."""
        return f"{self.package_name}._native"

    @property
    def manifest(self) -> Path:
        """The build's manifest: its Python and each compiled module's source digest."""
        return self.package / "_native.json"

    def source_digest(self, module: str) -> str:
        """The SHA-256 of a compiled module's source (what the package checks at import)."""
        return hashlib.sha256((self.package / f"{module}.py").read_bytes()).hexdigest()

    def built_files(self) -> list[Path]:
        """Every file a build leaves in the package."""
        built = sorted(p for p in self.package.iterdir() if p.suffix in _EXTENSION_SUFFIXES)
        return built + ([self.manifest] if self.manifest.exists() else [])

    def clean(self) -> None:
        """Remove every file a build left in the package."""
        for path in self.built_files():
            path.unlink()

    def _mypy_arguments(self) -> list[str]:
        arguments = ["--cache-dir", str(self.build_dir / "mypy-cache")]
        if not self.mypy_path:
            return arguments
        config = self.build_dir / "mypy.ini"
        config.write_text(
            "[mypy]\npython_version = 3.11\nstrict = True\nnamespace_packages = True\n"
            "explicit_package_bases = True\n"
            f"mypy_path = {':'.join(str(path) for path in self.mypy_path)}\n"
            "[mypy-grpc.*,grpc_health.*,grpc_reflection.*]\nignore_missing_imports = True\n",
            encoding="utf-8",
        )
        return ["--config-file", str(config), *arguments]

    def build(self) -> None:
        """Compile the modules in place, then write the manifest (last: a finished build)."""
        from mypyc.build import mypycify
        from setuptools import setup  # type: ignore[import-untyped]

        self.build_dir.mkdir(parents=True, exist_ok=True)
        paths = [
            os.path.relpath(self.package / f"{module}.py", self.root) for module in self.modules
        ]
        arguments = self._mypy_arguments()
        cwd = Path.cwd()
        os.chdir(self.root)
        try:
            extensions = mypycify(
                paths + arguments,
                opt_level="3",
                group_name=self.group,
                target_dir=str(self.build_dir / "c"),
            )
            setup(
                name=f"rookery-{self.build_dir.name}",  # e.g. rookery-engine-native
                ext_modules=extensions,
                script_args=[
                    "--quiet",
                    "build_ext",
                    "--inplace",
                    "--build-temp",
                    str(self.build_dir / "temp"),
                    "--build-lib",
                    str(self.build_dir / "lib"),
                ],
            )
        finally:
            os.chdir(cwd)
        manifest = {
            "group": self.group,
            "python": sys.implementation.cache_tag,
            "modules": {module: self.source_digest(module) for module in self.modules},
        }
        self.manifest.write_text(
            json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )

    def main(self, doc: str | None, argv: list[str] | None = None) -> int:
        """The build's command line (``doc``: the script's docstring, its first line the
        description): build (after removing the last build), or ``--clean``."""
        parser = argparse.ArgumentParser(description=(doc or "").partition("\n")[0])
        parser.add_argument("--clean", action="store_true", help="remove the compiled build")
        args = parser.parse_args(argv)
        self.clean()
        if args.clean:
            print(f"{self.title} removed: {self.fallback} is in use")
            return 0
        reason = why_not()
        if reason is not None:
            print(f"{self.title} not built ({reason}): {self.fallback} is in use")
            return 0
        key = self.cache_key()
        if native_cache.restore(key, self.package, self.manifest):
            print(f"{self.title} reused from the build cache: {len(self.modules)} modules")
            return 0
        self.build()
        native_cache.store(key, self.built_files())
        print(f"{self.title} built: {len(self.modules)} modules of {self.package_name}")
        return 0

    def cache_key(self) -> str:
        """The build cache's key of this build: its scripts and every source mypy reads."""
        kind = self.package_name.rpartition(".")[2]
        roots = self.mypy_path or (self.package,)
        return native_cache.cache_key(kind, (self.script, Path(__file__)), roots)
