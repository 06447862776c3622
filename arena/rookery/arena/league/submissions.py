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
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

from rookery.arena.launch._bot_process import start_bot_process
from rookery.arena.launch._sandbox import SandboxRuntime

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

#: The most files a submission may hold.
MAX_FILES = 10_000
#: The most bytes a submission may unpack to (by default: the league's ``version_bytes``).
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: The most files and folders a version's folder may hold after its build step.
MAX_BUILD_FILES = 100_000
#: How often a running build's folder is measured.
_BUILD_WATCH_S = 0.05
#: The most bytes of a build's output kept in its log.
BUILD_LOG_BYTES = 256 * 1024


def staging_folder(versions: Path) -> Path:
    """A fresh folder under ``versions/`` to unpack a submission into."""
    path = versions / f".staging-{secrets.token_hex(8)}"
    path.mkdir(parents=True)
    return path


def unpack_archive(data: bytes, target: Path, max_bytes: int = MAX_UNPACKED_BYTES) -> None:
    """Unpacks a ``.tar.gz`` (or plain tar) of a bot's folder into ``target``; ``ValueError``
    for an archive that is not one, or names a path outside its folder, a device or a link that
    leaves it, or unpacks to more than ``max_bytes``."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115
    except (tarfile.TarError, EOFError, OSError) as error:
        raise ValueError(f"archive: not a tar or .tar.gz file ({error})") from None
    with archive:
        members = archive.getmembers()
        if len(members) > MAX_FILES:
            raise ValueError(f"archive: {len(members)} entries, at most {MAX_FILES}")
        total = sum(m.size for m in members if m.isfile())
        if total > max_bytes:
            raise ValueError(
                f"archive: unpacks to {total} bytes, more than the league's {max_bytes} bytes a "
                "version (version_bytes)"
            )
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


def copy_folder(source: Path, target: Path, max_bytes: int = MAX_UNPACKED_BYTES) -> None:
    """Copies a local bot folder (files and folders only, no links) into ``target``;
    ``ValueError`` past ``MAX_FILES`` files or ``max_bytes`` bytes."""
    if not source.is_dir():
        raise ValueError(f"local_folder: {source} is not a folder")
    count = 0
    total = 0
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
            total += path.stat().st_size
            if total > max_bytes:
                raise ValueError(
                    f"local_folder: more than the league's {max_bytes} bytes a version "
                    "(version_bytes)"
                )
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


def folder_usage(folder: Path, stop_bytes: int = 0, stop_entries: int = 0) -> tuple[int, int]:
    """The bytes of ``folder``'s files and how many files and folders it holds (links not
    followed), counting stopped early once past ``stop_bytes`` or ``stop_entries`` (if given)."""
    total = entries = 0
    pending = [str(folder)]
    while pending:
        try:
            scan = os.scandir(pending.pop())
        except OSError:
            continue  # removed meanwhile, or not readable: the build's own business
        with scan:
            for entry in scan:
                entries += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
                if (stop_bytes and total > stop_bytes) or (stop_entries and entries > stop_entries):
                    return total, entries
    return total, entries


def usage_problem(folder: Path, max_bytes: int, max_entries: int = MAX_BUILD_FILES) -> str:
    """Why ``folder`` is over the league's cap of a built version ('' when it is not)."""
    total, entries = folder_usage(folder, max_bytes, max_entries)
    if total > max_bytes:
        return (
            f"build stopped: its folder passed the league's {max_bytes // (1024 * 1024)} MiB a "
            f"build (build_bytes), at {total / (1024 * 1024):.1f} MiB"
        )
    if entries > max_entries:
        return f"build stopped: its folder passed {max_entries} files and folders"
    return ""


@dataclass(frozen=True)
class BuildResult:
    """How a build step ended: its exit code (-1: timed out or stopped), time and log."""

    exit_code: int
    seconds: float
    log: str
    timed_out: bool = False
    #: Why the league stopped it for the disk it took ('' if it did not).
    over_quota: str = ""

    @property
    def ok(self) -> bool:
        """Whether it succeeded."""
        return self.exit_code == 0 and not self.timed_out and not self.over_quota

    def last_line(self) -> str:
        """The log's last non-empty line (what a failed build's version shows)."""
        lines = [line for line in self.log.splitlines() if line.strip()]
        return lines[-1].strip()[:200] if lines else ""


#: The folder of a build's caches and temporary files, inside the version's folder (counted in
#: its disk, removed once the build ends): the sandbox's ``/tmp`` is small.
BUILD_CACHE = ".build-cache"
#: Toolchains whose folders go on a build's ``PATH`` when this machine has them.
BUILD_TOOLS = ("go", "node", "npm", "cargo", "rustc", "javac", "cmake", "g++")


def build_environment(folder: Path) -> dict[str, str]:
    """The variables of a build step in ``folder`` (docs/league.md, Build environments): the
    toolchains on ``PATH``, their caches and temporary files in ``folder/.build-cache``, and
    no network (modules vendored: Go ``-mod=vendor``, npm offline, cargo offline)."""
    cache = folder / BUILD_CACHE
    path = [str(Path(sys.executable).parent)]
    for tool in BUILD_TOOLS:
        found = shutil.which(tool)
        if found and str(Path(found).parent) not in path:
            path.append(str(Path(found).parent))
    path += [p for p in ("/usr/local/bin", "/usr/bin", "/bin") if p not in path]
    return {
        "PATH": ":".join(path),
        "HOME": str(cache / "home"),
        "TMPDIR": str(cache / "tmp"),
        "GOCACHE": str(cache / "go-build"),
        "GOTMPDIR": str(cache / "tmp"),
        "GOPATH": str(cache / "go"),
        "GOFLAGS": "-mod=vendor",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "npm_config_cache": str(cache / "npm"),
        "npm_config_offline": "true",
        "CARGO_HOME": str(cache / "cargo"),
        "CARGO_NET_OFFLINE": "true",
    }


def _prepare_build(folder: Path, log_path: Path, sandboxed: bool) -> None:
    log_path.unlink(missing_ok=True)
    for name in ("home", "tmp"):
        (folder / BUILD_CACHE / name).mkdir(parents=True, exist_ok=True)
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
    max_bytes: int = 0,
) -> BuildResult:
    """Runs ``sh -c <build>`` in ``folder`` (in the sandbox when ``runtime`` is given, with the
    folder writable and no network), killed after ``timeout_s``, or as soon as its folder holds
    more than ``max_bytes`` (if given) or ``MAX_BUILD_FILES`` entries; its output goes to
    ``log_path``."""
    started = time.monotonic()
    await asyncio.to_thread(_prepare_build, folder, log_path, runtime is not None)
    env = build_environment(folder)
    process = await start_bot_process(
        ["/bin/sh", "-c", build],
        runtime.environment({}, env) if runtime is not None else {**os.environ, **env},
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
    over_quota = ""

    async def watch() -> str:
        while True:
            await asyncio.sleep(_BUILD_WATCH_S)
            problem = await asyncio.to_thread(usage_problem, folder, max_bytes)
            if problem:
                return problem

    watcher = asyncio.ensure_future(watch() if max_bytes else asyncio.Event().wait())
    waiter = asyncio.ensure_future(process.process.wait())
    try:
        done, _ = await asyncio.wait(
            {watcher, waiter}, timeout=timeout_s, return_when="FIRST_COMPLETED"
        )
        if watcher in done:
            over_quota = str(watcher.result())
        elif not done:
            timed_out = True
    finally:
        for task in (watcher, waiter):
            task.cancel()
        await asyncio.gather(watcher, waiter, return_exceptions=True)
        await process.stop(grace_s=0.1 if over_quota else 0.5)
    if max_bytes and not over_quota and not timed_out:  # what it wrote after the last look
        over_quota = await asyncio.to_thread(usage_problem, folder, max_bytes)
    code = process.process.returncode
    seconds = time.monotonic() - started
    text = await asyncio.to_thread(_log_tail, log_path)
    if timed_out:
        text += f"\nbuild stopped: it ran longer than its time limit of {timeout_s:g} s\n"
    if over_quota:
        text += f"\n{over_quota}\n"
    if not over_quota:
        await asyncio.to_thread(shutil.rmtree, folder / BUILD_CACHE, True)
    if runtime is not None and not over_quota:
        _open_for_reading(folder)
    failed = timed_out or bool(over_quota)
    return BuildResult(-1 if failed else int(code or 0), seconds, text, timed_out, over_quota)
