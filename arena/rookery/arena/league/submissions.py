"""Submitted bot folders: unpacked safely, hashed, stored immutably, built in the sandbox.

A version's **content hash** is the SHA-256 of its files (relative path, executable bit, bytes),
in path order: the same folder sent as an archive or named as a local folder hashes the same.
Its **identity** adds the command and the build step: a second submission with the same identity
is a duplicate and is refused.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import secrets
import shutil
import stat
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

from rookery.arena.bot_process import start_bot_process
from rookery.arena.sandbox import SandboxRuntime

__all__ = [
    "MAX_FILES",
    "MAX_UNPACKED_BYTES",
    "BuildResult",
    "content_sha256",
    "copy_folder",
    "identity_sha256",
    "pack_folder",
    "run_build",
    "staging_folder",
    "unpack_archive",
]

#: The most files a submission may hold.
MAX_FILES = 10_000
#: The most bytes a submission may unpack to.
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: The most bytes of a build's output kept in its log.
BUILD_LOG_BYTES = 256 * 1024


def staging_folder(versions: Path) -> Path:
    """A fresh folder under ``versions/`` to unpack a submission into."""
    path = versions / f".staging-{secrets.token_hex(8)}"
    path.mkdir(parents=True)
    return path


def unpack_archive(data: bytes, target: Path) -> None:
    """Unpacks a ``.tar.gz`` (or plain tar) of a bot's folder into ``target``; ``ValueError``
    for an archive that is not one, or names a path outside its folder, a device or a link that
    leaves it, or is too big."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115
    except (tarfile.TarError, EOFError, OSError) as error:
        raise ValueError(f"archive: not a tar or .tar.gz file ({error})") from None
    with archive:
        members = archive.getmembers()
        if len(members) > MAX_FILES:
            raise ValueError(f"archive: {len(members)} entries, at most {MAX_FILES}")
        total = sum(m.size for m in members if m.isfile())
        if total > MAX_UNPACKED_BYTES:
            raise ValueError(f"archive: unpacks to {total} bytes, at most {MAX_UNPACKED_BYTES}")
        for member in members:
            if not (member.isfile() or member.isdir()):
                raise ValueError(
                    f"archive: {member.name!r} is not a file or folder (links and devices are "
                    "refused)"
                )
        try:
            archive.extractall(target, filter="data")
        except (tarfile.TarError, OSError) as error:
            raise ValueError(f"archive: {error}") from None
    _open_for_reading(target)


def pack_folder(folder: Path) -> bytes:
    """A ``.tar.gz`` of ``folder``'s files and folders (what ``rookery league submit`` sends)."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                continue
            if "__pycache__" in path.parts:
                continue
            archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def copy_folder(source: Path, target: Path) -> None:
    """Copies a local bot folder (files and folders only, no links) into ``target``."""
    if not source.is_dir():
        raise ValueError(f"local_folder: {source} is not a folder")
    count = 0
    for path in sorted(source.rglob("*")):
        if path.is_symlink() or "__pycache__" in path.parts:
            continue
        count += 1
        if count > MAX_FILES:
            raise ValueError(f"local_folder: more than {MAX_FILES} files")
        relative = path.relative_to(source)
        if path.is_dir():
            (target / relative).mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / relative)
    _open_for_reading(target)


def _open_for_reading(folder: Path) -> None:
    """Everyone may read the folder (a sandboxed bot runs as a user of its own), nobody else
    may write it."""
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        wanted = (mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH) & ~(
            stat.S_IWGRP | stat.S_IWOTH
        )
        if path.is_dir() or mode & stat.S_IXUSR:
            wanted |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
        os.chmod(path, wanted | stat.S_IWUSR)


def content_sha256(folder: Path) -> str:
    """The SHA-256 of the folder's files: relative path, executable bit and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        if "__pycache__" in path.parts:
            continue
        relative = str(path.relative_to(folder)).encode()
        executable = b"x" if path.stat().st_mode & stat.S_IXUSR else b"-"
        data = path.read_bytes()
        digest.update(len(relative).to_bytes(4, "big") + relative + executable)
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def identity_sha256(content: str, command: str, build: str) -> str:
    """What makes two submissions the same version: files, command and build step."""
    text = "\0".join((content, command.strip(), build.strip()))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class BuildResult:
    """How a build step ended: its exit code (-1: timed out), time and log."""

    exit_code: int
    seconds: float
    log: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """Whether it succeeded."""
        return self.exit_code == 0 and not self.timed_out

    def last_line(self) -> str:
        """The log's last non-empty line (what a failed build's version shows)."""
        lines = [line for line in self.log.splitlines() if line.strip()]
        return lines[-1].strip()[:200] if lines else ""


def _prepare_build(folder: Path, log_path: Path, sandboxed: bool) -> None:
    log_path.unlink(missing_ok=True)
    if sandboxed:  # the build runs as a user of its own: it may write its folder
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                os.chmod(path, 0o777)


def _log_tail(log_path: Path) -> str:
    return log_path.read_bytes()[-BUILD_LOG_BYTES:].decode("utf-8", "replace")


async def run_build(
    build: str,
    folder: Path,
    log_path: Path,
    *,
    runtime: SandboxRuntime | None,
    timeout_s: float,
    server_target: str,
) -> BuildResult:
    """Runs ``sh -c <build>`` in ``folder`` (in the sandbox when ``runtime`` is given, with the
    folder writable and no network), killed after ``timeout_s``; its output goes to
    ``log_path``."""
    started = time.monotonic()
    await asyncio.to_thread(_prepare_build, folder, log_path, runtime is not None)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "LANG": "C.UTF-8"}
    process = await start_bot_process(
        ["/bin/sh", "-c", build],
        runtime.environment({}, {}) if runtime is not None else {**os.environ, **env},
        log_path,
        "build",
        label="build",
        runtime=runtime,
        server_target=server_target,
        folder=folder,
        cwd=str(folder),
        writable=True,
    )
    timed_out = False
    try:
        await asyncio.wait_for(process.process.wait(), timeout_s)
    except TimeoutError:
        timed_out = True
        await process.stop(grace_s=0.5)
    else:
        await process.stop(grace_s=0.5)
    code = process.process.returncode
    seconds = time.monotonic() - started
    text = await asyncio.to_thread(_log_tail, log_path)
    if timed_out:
        text += f"\nbuild stopped: it ran longer than its time limit of {timeout_s:g} s\n"
    if runtime is not None:
        _open_for_reading(folder)
    return BuildResult(-1 if timed_out else int(code or 0), seconds, text, timed_out)
