"""The build cache of the mypyc builds (``clients/python/compile_playouts.py``).

A build is stored under a key that digests everything it is made from: the build script, every
Python source mypy reads for it, the Python build, the C compiler, mypy's and setuptools'
versions. ``make setup`` in another checkout of the same sources (a second clone, a worktree,
after ``make clean``) then copies the extension modules instead of compiling them again. Any
change of an input is another key, so a stored build is only ever used for its very inputs (and
the package still checks its sources' digests at import, ``_native.json``).

The cache lives in ``$ROOKERY_NATIVE_CACHE`` if set (``off``: no cache), else in
``$XDG_CACHE_HOME/rookery/native`` (``~/.cache/rookery/native``); the last few builds of each
kind are kept. A cache that cannot be read or written is skipped: the build compiles.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import shutil
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

#: The builds of each kind kept (the newest).
KEEP = 3


def cache_root() -> Path | None:
    """Where builds are cached, or ``None`` when the cache is off."""
    configured = os.environ.get("ROOKERY_NATIVE_CACHE", "")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rookery" / "native"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return ""


def cache_key(kind: str, scripts: Iterable[Path], roots: Iterable[Path]) -> str:
    """The key of a build of ``kind`` by ``scripts`` from the sources under ``roots``."""
    digest = hashlib.sha256()
    for part in (
        kind,
        sys.version,
        sysconfig.get_config_var("EXT_SUFFIX") or "",
        sysconfig.get_config_var("CC") or "",
        platform.machine(),
        _version("mypy"),
        _version("setuptools"),
    ):
        digest.update(part.encode() + b"\0")
    for script in scripts:
        digest.update(script.read_bytes())
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".pyi")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"{kind}-{digest.hexdigest()[:32]}"


def restore(key: str, package: Path, manifest: Path) -> bool:
    """Copy the stored build ``key`` into ``package``, its manifest last; whether one was."""
    root = cache_root()
    entry = root / key if root is not None else None
    if entry is None or not (entry / manifest.name).is_file():
        return False
    try:
        names = sorted(p.name for p in entry.iterdir() if p.name != manifest.name)
        for name in [*names, manifest.name]:
            partial = package / f".{name}.partial"
            shutil.copy2(entry / name, partial)
            os.replace(partial, package / name)
        os.utime(entry)  # recently used: kept longer
    except OSError:
        return False
    return True


def store(key: str, files: list[Path]) -> None:
    """Keep the build made of ``files`` under ``key``; drop the oldest of its kind past KEEP."""
    root = cache_root()
    if root is None:
        return
    entry = root / key
    partial = root / f".{key}.{os.getpid()}.partial"
    try:
        if entry.exists():
            return
        partial.mkdir(parents=True)
        for path in files:
            shutil.copy2(path, partial / path.name)
        os.replace(partial, entry)
        kind = key.rsplit("-", 1)[0]
        builds = sorted(
            (p for p in root.iterdir() if p.is_dir() and p.name.rsplit("-", 1)[0] == kind),
            key=lambda p: p.stat().st_mtime,
        )
        for old in builds[:-KEEP]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
