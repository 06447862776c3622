"""A worker machine's cache of versions' files, keyed by each version's identity (the SHA-256 of
its files, command and build step; :func:`~rookery.arena.league.submissions.identity_sha256`).

A version's folder reaches a machine once, as a gzipped tar archive sent in pieces small enough
for Ray to carry inside a call (it inlines arguments and results under 100 KiB: no object store,
whose transfers between nodes of one machine fail), and is unpacked into ``<cache>/<identity>``
(a staging folder renamed into place: workers at once on one machine are safe). A build step runs
once per version, in the cache of the worker it was given to; its result is kept beside the
folders (``.builds/<identity>.json``), so the same build asked again is answered from it.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

from .ray_jobs import Piece
from .submissions import BuildResult

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

#: Where a worker keeps the versions' unpacked folders (default: ``rookery-league-cache`` in the
#: machine's temporary folder).
CACHE_ENV = "ROOKERY_LEAGUE_CACHE"
#: The marker of a folder unpacked (or built) whole.
COMPLETE = ".rookery-complete"
#: The bytes of one piece of a version's archive (Ray inlines arguments under 100 KiB).
PIECE_BYTES = 90 * 1024
#: The largest archive a version's files may pack to (Ray inlines at most 10 MiB a call).
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024


def pack_folder(folder: Path) -> bytes:
    """A version's folder as a gzipped tar archive (modes kept: a sandboxed bot's files stay
    readable; the cache's marker left out)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        archive.add(folder, arcname=".", filter=lambda m: None if m.name == f"./{COMPLETE}" else m)
    return buffer.getvalue()


def split(identity: str, data: bytes) -> list[Piece]:
    """``data`` in pieces of at most :data:`PIECE_BYTES`."""
    return [
        (identity, i, data[start : start + PIECE_BYTES])
        for i, start in enumerate(range(0, len(data), PIECE_BYTES))
    ]


def joined(pieces: tuple[Piece, ...]) -> dict[str, bytes]:
    """Each identity's archive from its pieces (in any order)."""
    sent: dict[str, list[tuple[int, bytes]]] = {}
    for identity, index, data in pieces:
        sent.setdefault(identity, []).append((index, data))
    return {k: b"".join(data for _, data in sorted(v)) for k, v in sent.items()}


def cache_root() -> Path:
    """This machine's cache (made on first use, passable by a sandboxed bot's user)."""
    root = Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "rookery-league-cache")
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # a sandboxed bot runs under a user id of its own
    return root


def cache_folder(identity: str) -> Path:
    """Where the files of ``identity`` are (or go) on this machine."""
    if len(identity) != 64 or any(c not in "0123456789abcdef" for c in identity):
        raise ValueError(f"not a version identity: {identity!r}")
    return cache_root() / identity


def is_cached(identity: str) -> bool:
    """Whether this machine has the files of ``identity`` whole."""
    return (cache_folder(identity) / COMPLETE).exists()


def unpacked(data: bytes, identity: str) -> Path:
    """A staging folder beside the cache's folders with ``data`` unpacked into it."""
    staging = Path(tempfile.mkdtemp(prefix=f".{identity[:12]}-", dir=cache_root()))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(staging, filter="tar")
        staging.chmod(0o755)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def settle(staging: Path, identity: str) -> Path:
    """Renames the whole folder ``staging`` into the cache as ``identity`` (unless another
    worker put it there first)."""
    folder = cache_folder(identity)
    try:
        (staging / COMPLETE).write_text(f"{time.time()}\n")
        try:
            staging.rename(folder)
        except OSError:  # another worker settled it first
            if not (folder / COMPLETE).exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def cached_folder(identity: str, data: bytes | None) -> tuple[Path, bool]:
    """The folder of ``identity`` on this machine, unpacked from ``data`` the first time:
    ``(folder, whether it was unpacked now)``."""
    folder = cache_folder(identity)
    if (folder / COMPLETE).exists():
        return folder, False
    if data is None:
        raise LookupError(f"the files of {identity[:12]} are not on this machine")
    return settle(unpacked(data, identity), identity), True


def _build_record(identity: str) -> Path:
    return cache_folder(identity).parent / ".builds" / f"{identity}.json"


def stored_build(identity: str) -> BuildResult | None:
    """The result of the build of ``identity`` run on this machine before (None: never)."""
    try:
        fields = json.loads(_build_record(identity).read_text())
    except (FileNotFoundError, ValueError):
        return None
    return BuildResult(**fields)


def store_build(identity: str, result: BuildResult) -> None:
    """Keeps the result of the build of ``identity`` (written whole, then renamed)."""
    path = _build_record(identity)
    path.parent.mkdir(exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(dataclasses.asdict(result)))
    temporary.rename(path)
