"""Build the compiled engine: the hot modules of ``rookery.engine`` through mypyc, in place.

Run by ``make setup`` (``python engine/compile_engine.py``); ``--clean`` removes the build. The
extension modules land next to their sources (``engine/rookery/engine/_game.cpython-*.so``, one
shared ``_native__mypyc`` library beside them, all git-ignored), so that the editable install
imports them first; ``rookery.engine`` checks at import that they were built from the sources as
they are now and falls back to the pure modules otherwise (``rookery.engine.build_info()``).

The same source stays the one definition of the rules: mypyc compiles the typed Python as it is.
Without a C compiler (or without mypyc) the build prints why and exits 0: the pure engine is the
fallback, never an error. A build of the very same inputs made before (another clone, a worktree)
is copied from the build cache instead of compiled again (``native_cache.py``).
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
from pathlib import Path

import native_cache  # beside this script: the build cache shared with compile_playouts.py

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "rookery" / "engine"
#: The modules compiled: the per-action paths. The rest of the package stays pure: its
#: ``__init__``, the actions and rulesets (their constructors validate any value given, which
#: compiled code would refuse with a ``TypeError`` first), errors, events (logged as tuples, built
#: when asked for), results, records, text forms and test helpers.
COMPILED = (
    "_cards",
    "_deal",
    "_game",
    "_legal",
    "_observation",
    "_playout",
    "_rulebook",
    "_sampling",
)
GROUP = "rookery.engine._native"
MANIFEST = PACKAGE / "_native.json"
#: The generated C and the object files (git-ignored, like every ``build/``).
BUILD_DIR = HERE.parent / "build" / "engine-native"


def source_digest(module: str) -> str:
    """The SHA-256 of a compiled module's source (what ``rookery.engine`` checks at import)."""
    return hashlib.sha256((PACKAGE / f"{module}.py").read_bytes()).hexdigest()


def built_files() -> list[Path]:
    """Every file a build leaves in the package."""
    suffixes = (".so", ".pyd")
    return sorted(p for p in PACKAGE.iterdir() if p.suffix in suffixes) + (
        [MANIFEST] if MANIFEST.exists() else []
    )


def clean() -> None:
    for path in built_files():
        path.unlink()


def why_not() -> str | None:
    """Why the compiled build cannot be made here, or ``None``."""
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


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped]

    paths = [str(PACKAGE / f"{module}.py") for module in COMPILED]
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    cwd = Path.cwd()
    os.chdir(HERE)  # mypyc names the modules after the paths relative to here
    try:
        extensions = mypycify(
            [os.path.relpath(path, HERE) for path in paths]
            + ["--cache-dir", str(BUILD_DIR / "mypy-cache")],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(BUILD_DIR / "c"),
        )
        setup(
            name="rookery-engine-native",
            ext_modules=extensions,
            script_args=[
                "--quiet",
                "build_ext",
                "--inplace",
                "--build-temp",
                str(BUILD_DIR / "temp"),
                "--build-lib",
                str(BUILD_DIR / "lib"),
            ],
        )
    finally:
        os.chdir(cwd)
    manifest = {
        "group": GROUP,
        "python": sys.implementation.cache_tag,
        "modules": {module: source_digest(module) for module in COMPILED},
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled build")
    args = parser.parse_args(argv)
    clean()
    if args.clean:
        print("compiled engine removed: the pure engine is in use")
        return 0
    reason = why_not()
    if reason is not None:
        print(f"compiled engine not built ({reason}): the pure engine is in use")
        return 0
    key = native_cache.cache_key("engine", Path(__file__), [PACKAGE])
    if native_cache.restore(key, PACKAGE, MANIFEST):
        print(f"compiled engine reused from the build cache: {len(COMPILED)} modules")
        return 0
    build()
    native_cache.store(key, built_files())
    print(f"compiled engine built: {len(COMPILED)} modules of rookery.engine")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
