"""Build the compiled playout model: the search bots' hot modules through mypyc, in place.

Run by ``make setup`` (``python clients/python/compile_playouts.py``) after the engine's build
(``engine/compile_engine.py``, which this follows); ``--clean`` removes the build. The extension
modules land next to their sources (``rookery/client/bots/_simulate.cpython-*.so``, one shared
``_native__mypyc`` library beside them, all git-ignored) with ``_native.json``, their source
digests: ``rookery.client.bots`` imports them only if they were built from the sources as they
are now (``rookery.engine.choose_build``), else the pure modules, and
``rookery.client.bots.playout_build()`` says which. ``ROOKERY_PURE_ENGINE=1`` forces the pure
ones. Without a C compiler (or mypyc) it prints why and exits 0: the pure modules are the
fallback, never an error, and both play every card alike. A build of the very same inputs made
before is copied from the build cache (``engine/native_cache.py``) instead of compiled again.
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "engine"))
import native_cache  # noqa: E402  (engine/native_cache.py: the build cache of both builds)

PACKAGE = HERE / "rookery" / "client" / "bots"
#: The modules compiled: the playout model (the heuristic card play on masks, the simulated
#: hand, the endgame solver), run for every card of every playout. The policies around them
#: (pimc's search, the heuristic bot, sampling) stay pure: they run once per decision.
COMPILED = ("_play", "_simulate", "_solve")
GROUP = "rookery.client.bots._native"
MANIFEST = PACKAGE / "_native.json"
BUILD_DIR = ROOT / "build" / "playouts-native"
#: Where mypy finds what the compiled modules import (the engine, and the generated stubs the
#: SDK package imports).
MYPY_PATH = ("engine", "wire", "gen/python", "clients/python")


def source_digest(module: str) -> str:
    """The SHA-256 of a compiled module's source (what ``rookery.client.bots`` checks)."""
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

    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    # The project's mypy settings, with absolute paths: mypyc runs from this folder, so that it
    # names the modules ``rookery.client.bots.*`` after the paths relative to it.
    config = BUILD_DIR / "mypy.ini"
    config.write_text(
        "[mypy]\npython_version = 3.11\nstrict = True\nnamespace_packages = True\n"
        "explicit_package_bases = True\n"
        f"mypy_path = {':'.join(str(ROOT / path) for path in MYPY_PATH)}\n"
        "[mypy-grpc.*,grpc_health.*,grpc_reflection.*]\nignore_missing_imports = True\n",
        encoding="utf-8",
    )
    cwd = Path.cwd()
    os.chdir(HERE)
    try:
        extensions = mypycify(
            [os.path.relpath(PACKAGE / f"{module}.py", HERE) for module in COMPILED]
            + ["--config-file", str(config), "--cache-dir", str(BUILD_DIR / "mypy-cache")],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(BUILD_DIR / "c"),
        )
        setup(
            name="rookery-playouts-native",
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled build")
    args = parser.parse_args(argv)
    clean()
    if args.clean:
        print("compiled playouts removed: the pure playout model is in use")
        return 0
    reason = why_not()
    if reason is not None:
        print(f"compiled playouts not built ({reason}): the pure playout model is in use")
        return 0
    key = native_cache.cache_key("playouts", Path(__file__), [ROOT / p for p in MYPY_PATH])
    if native_cache.restore(key, PACKAGE, MANIFEST):
        print(f"compiled playouts reused from the build cache: {len(COMPILED)} modules")
        return 0
    build()
    native_cache.store(key, built_files())
    print(f"compiled playouts built: {len(COMPILED)} modules of rookery.client.bots")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
