"""A league's duplicate pairs as Ray tasks: ``rookery league serve --backend ray``.

The league process keeps everything that is written: its SQLite file, the replays, the ratings
and the matchmaking. Each pair it dispatches becomes one Ray task; the task runs on a worker
what the league runs locally for a pair: an embedded server on loopback (and a Unix socket for
the sandbox), the two versions' processes in the worker's sandbox (fresh ones for each game),
both games at once. It returns each game's outcome with its replay bytes; the league records the
pair in one transaction, exactly as a local pair.

A version's files reach the workers by content: the league packs its built folder once (a
gzipped tar archive) and a worker unpacks it once into a cache keyed by the version's identity
(the SHA-256 of its files, command and build step), shared by every task on that machine. A task
is sent without files first; a worker whose cache lacks a version answers so, and the pair is sent
again with the archive, in pieces small enough to travel inside the task itself (Ray inlines
arguments under 100 KiB: no object store, whose transfers between nodes of one machine fail). A
task whose worker or node dies is run again by Ray elsewhere (``max_retries``); the league records
what the one finished run returns, so a pair is recorded once. A league process killed loses the
pairs in flight (Ray ends a dead driver's tasks): they were never recorded, and the restarted
league plays others.

Ray is the optional extra (``pip install 'rookery-arena[ray]'``): this module imports it only
when a league starts on Ray.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import os
import shutil
import tarfile
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from rookery.arena._config_values import BotSpec
from rookery.arena.errors import ArenaError
from rookery.arena.launch._launcher import BotLauncher, GameLaunch, plan_launch
from rookery.arena.launch._sandbox import SandboxLimits, SandboxRuntime, probe
from rookery.arena.run._ray_backend import _ensure_ray, _import_ray
from rookery.engine import GameResult, Ruleset
from rookery.server import RookeryServer, SeatStats, ServerConfig, TableSpec, TimeControl

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

#: Where a worker keeps the versions' unpacked folders (default: ``rookery-league-cache`` in the
#: machine's temporary folder).
CACHE_ENV = "ROOKERY_LEAGUE_CACHE"
_COMPLETE = ".rookery-complete"
#: The most bytes of a version's runtime output a task sends back for the league's log.
LOG_TAIL_BYTES = 16 * 1024
#: The bytes of one piece of a version's archive (Ray inlines task arguments under 100 KiB).
PIECE_BYTES = 90 * 1024
#: The largest archive a pair's task carries (Ray inlines at most 10 MiB of arguments a task).
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024


class RemoteTaskError(ArenaError):
    """A pair's Ray task failed for good (an error on its worker, or its retries used up)."""


@dataclass(frozen=True)
class ShippedVersion:
    """A version as a task needs it: its seat name, command, and its files' identity."""

    version_id: str
    seat: str
    command: str
    #: The cache key of its files ("" for the house bot, which has none).
    identity: str


@dataclass(frozen=True)
class PairJob:
    """One duplicate pair: game 0 seats ``a, b, a, b``, game 1 ``b, a, b, a``, the same seed."""

    pair_tag: str
    seed: int
    a: ShippedVersion
    b: ShippedVersion
    ruleset: Ruleset
    time_control: TimeControl
    join_timeout_s: float
    bot_seed_key: bytes
    #: ``"on"``, ``"off"`` or ``"auto"``, on the worker.
    sandbox: str
    limits: SandboxLimits


@dataclass(frozen=True)
class ShippedOutcome:
    """A finished game as the league records it (the parts of a ``TableOutcome`` it reads)."""

    result: GameResult
    termination: int
    forfeit_seat: int
    detail: str
    seat_stats: tuple[SeatStats, ...]
    duration_s: float
    replay: bytes

    def replay_bytes(self, *, compress: bool = True) -> bytes:
        """The replay file's bytes (gzip JSON lines, as the worker wrote them)."""
        if not compress:
            raise ValueError("a shipped replay is compressed")
        return self.replay


@dataclass(frozen=True)
class PairResult:
    """What a pair's task returns."""

    outcomes: tuple[ShippedOutcome, ...]
    #: (version id, kind, detail) of each crash of a version's process on the worker.
    incidents: tuple[tuple[str, str, str], ...]
    #: The end of each version's output on the worker, for the league's runtime log.
    logs: dict[str, bytes]
    node: str
    #: Seconds the task spent unpacking versions' files (0 when both were cached).
    unpack_s: float
    sandboxed: bool
    #: The identities of the versions whose files this worker lacked (then nothing was played).
    missing: tuple[str, ...] = ()


# The worker's side -------------------------------------------------------------------------------


def pack_folder(folder: Path) -> bytes:
    """A version's folder as a gzipped tar archive (modes kept: a sandboxed bot's files stay
    readable)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        archive.add(folder, arcname=".")
    return buffer.getvalue()


def _cache_root() -> Path:
    root = Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "rookery-league-cache")
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # a sandboxed bot runs under a user id of its own
    return root


def _cache_folder(identity: str) -> Path:
    if len(identity) != 64 or any(c not in "0123456789abcdef" for c in identity):
        raise ValueError(f"not a version identity: {identity!r}")
    return _cache_root() / identity


def _is_cached(identity: str) -> bool:
    return (_cache_folder(identity) / _COMPLETE).exists()


def _cached_folder(identity: str, data: bytes) -> tuple[Path, bool]:
    """The unpacked folder of ``identity`` on this machine, unpacked from ``data`` the first
    time (into a staging folder renamed into place: tasks at once on one machine are safe)."""
    folder = _cache_folder(identity)
    if (folder / _COMPLETE).exists():
        return folder, False
    staging = Path(tempfile.mkdtemp(prefix=f".{identity[:12]}-", dir=folder.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(staging, filter="tar")
        staging.chmod(0o755)
        (staging / _COMPLETE).write_text(f"{time.time()}\n")
        try:
            staging.rename(folder)
        except OSError:  # another task unpacked it first
            if not (folder / _COMPLETE).exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder, True


def _make_sandbox(mode: str, limits: SandboxLimits, socket: Path) -> SandboxRuntime | None:
    if mode == "off":
        return None
    support = probe()
    if not support.available:
        if mode == "on":
            raise ArenaError(f"sandbox = 'on' but on {os.uname().nodename}: {support.describe()}")
        return None
    return SandboxRuntime(support, limits, socket)


def play_pair_task(job: PairJob, *pieces: tuple[str, int, bytes]) -> PairResult:
    """A pair's Ray task: the versions' files from this machine's cache (unpacked from the
    ``(identity, index, bytes)`` pieces sent if it lacks them), both games played here.

    Without the pieces of a version the cache lacks, it plays nothing and names what it lacks.
    """
    started = time.monotonic()
    sent: dict[str, list[tuple[int, bytes]]] = {}
    for identity, index, data in pieces:
        sent.setdefault(identity, []).append((index, data))
    shipped = [v for v in (job.a, job.b) if v.identity]
    missing = tuple(
        v.identity for v in shipped if not _is_cached(v.identity) and v.identity not in sent
    )
    if missing:
        return PairResult((), (), {}, os.uname().nodename, 0.0, False, missing)
    folders: dict[str, Path | None] = {}
    for version in (job.a, job.b):
        if not version.identity:
            folders[version.version_id] = None
            continue
        data = b"".join(piece for _, piece in sorted(sent.get(version.identity, [])))
        folders[version.version_id] = _cached_folder(version.identity, data)[0]
    unpack_s = time.monotonic() - started
    with tempfile.TemporaryDirectory(prefix="rookery-pair-") as scratch_text:
        scratch = Path(scratch_text)
        scratch.chmod(0o711)
        played = asyncio.run(_play_pair_here(job, folders, unpack_s, scratch))
        logs = {}
        for version_id in (job.a.version_id, job.b.version_id):
            with contextlib.suppress(FileNotFoundError):
                logs[version_id] = (scratch / f"{version_id}.log").read_bytes()[-LOG_TAIL_BYTES:]
    return dataclasses.replace(played, logs=logs)


async def _play_pair_here(
    job: PairJob, folders: dict[str, Path | None], unpack_s: float, scratch: Path
) -> PairResult:
    socket = scratch / "server.sock"
    sandbox = _make_sandbox(job.sandbox, job.limits, socket)
    if sandbox is not None:
        sandbox.run_dirs = (scratch,)
        sandbox.bot_folders = tuple(f for f in folders.values() if f is not None)
    config = ServerConfig(
        address="127.0.0.1:0",
        unix_socket=str(socket) if sandbox is not None else "",
        log_level="warning",
        time_control=job.time_control,
    )
    server = RookeryServer(config)
    await server.start()
    incidents: list[tuple[str, str, str]] = []
    launchers: dict[str, BotLauncher] = {}
    try:
        for version in (job.a, job.b):
            folder = folders[version.version_id]
            spec = BotSpec(
                version.seat,
                version.command,
                folder=str(folder or ""),
                workdir=str(folder or ""),
            )

            def incident(_bot: str, kind: str, detail: str, vid: str = version.version_id) -> None:
                incidents.append((vid, kind, detail))

            launchers[version.version_id] = BotLauncher(
                spec,
                plan_launch(spec, 2, 2, 1),
                server.target,
                "",
                scratch / f"{version.version_id}.log",
                incident,
                runtime=sandbox,
                folder=folder,
            )
        seats = [
            (job.a, job.b, job.a, job.b),
            (job.b, job.a, job.b, job.a),
        ]
        outcomes = await asyncio.gather(
            *(_play_game(server, job, i, seats[i], launchers) for i in range(2))
        )
    finally:
        await asyncio.gather(
            *(launcher.stop(grace_s=1.0) for launcher in launchers.values()),
            return_exceptions=True,
        )
        await server.stop(grace_s=0.5)
        if sandbox is not None:
            sandbox.close()
    return PairResult(
        (outcomes[0], outcomes[1]),
        tuple(incidents),
        {},
        os.uname().nodename + f" pid {os.getpid()}",
        unpack_s,
        sandbox is not None,
    )


async def _play_game(
    server: RookeryServer,
    job: PairJob,
    index: int,
    seats: tuple[ShippedVersion, ...],
    launchers: dict[str, BotLauncher],
) -> ShippedOutcome:
    launches: dict[str, GameLaunch] = {}
    try:
        for version in {v.version_id: v for v in seats}.values():
            launcher = launchers[version.version_id]
            key = server.issue_launch_key(version.seat)
            plan = plan_launch(launcher.bot, 1, 2, 1)
            launches[version.version_id] = await launcher.start_game(
                f"{job.pair_tag} game {index}", plan, key
            )
        spec = TableSpec(
            ruleset=job.ruleset,
            seat_bots=tuple(v.seat for v in seats),
            seed=job.seed,
            time_control=job.time_control,
            tournament_id=job.pair_tag,
            table_id=f"{job.pair_tag}-{index}",
            join_timeout_s=job.join_timeout_s,
            game_number=index,
            seat_keys=tuple(launches[v.version_id].key for v in seats),
            bot_seed_key=job.bot_seed_key,
        )
        table = await server.create_table(spec)
        outcome = await table.wait_finished()
        return ShippedOutcome(
            outcome.result,
            outcome.termination,
            outcome.forfeit_seat,
            outcome.detail,
            tuple(outcome.seat_stats),
            outcome.duration_s,
            outcome.replay_bytes(compress=True),
        )
    finally:
        for version_id, launch in launches.items():
            await launchers[version_id].finish_game(launch)
            server.revoke_launch_key(launch.key)


# The league's side -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RayPairsOptions:
    """How a league plays on Ray."""

    #: The cluster (``host:port`` of its head, ``ray://…``, ``auto``); empty: a local Ray.
    address: str = ""
    #: CPUs a pair's task takes (its two games' four bot processes think in turn).
    cpus_per_pair: float = 1.0
    #: How often Ray runs a pair again whose worker or node died.
    max_retries: int = 3
    #: Seconds to wait for the cluster to answer.
    connect_timeout_s: float = 60.0


@dataclass
class RayPairs:
    """The league's pairs on Ray: ``await RayPairs.connect(options)``, then ``play``."""

    ray: Any
    options: RayPairsOptions
    started: bool
    _task: Any = None
    #: Version identity → its archive's pieces (packed once).
    _files: dict[str, list[tuple[str, int, bytes]]] = field(default_factory=dict)
    _packing: dict[str, asyncio.Lock] = field(default_factory=dict)
    #: Archive bytes sent to workers that lacked a version.
    bytes_shipped: int = 0
    #: Tasks sent again with files, after a worker said it lacked them.
    resends: int = 0

    @classmethod
    async def connect(
        cls, options: RayPairsOptions, stop: Callable[[], Awaitable[None]] | None = None
    ) -> RayPairs:
        """Joins ``options.address`` (or starts a local Ray)."""
        ray = _import_ray(options.address)

        async def never() -> None:
            await asyncio.Event().wait()

        started = await _ensure_ray(
            ray, options.address, "", options.connect_timeout_s, stop or never
        )
        pairs = cls(ray, options, started)
        pairs._task = ray.remote(
            num_cpus=options.cpus_per_pair,
            max_retries=options.max_retries,
            retry_exceptions=False,
        )(play_pair_task)
        return pairs

    def close(self) -> None:
        """Leaves the cluster (stops the local Ray this process started)."""
        if self.started:
            self.ray.shutdown()

    def cpus(self) -> float:
        """The cluster's CPUs now."""
        return float(self.ray.cluster_resources().get("CPU", 0.0))

    async def _pieces_of(
        self, version: ShippedVersion, folder: Path | None
    ) -> list[tuple[str, int, bytes]]:
        if folder is None:
            return []
        lock = self._packing.setdefault(version.identity, asyncio.Lock())
        async with lock:
            pieces = self._files.get(version.identity)
            if pieces is None:
                data = await asyncio.to_thread(pack_folder, folder)
                if len(data) > MAX_ARCHIVE_BYTES:
                    raise RemoteTaskError(
                        f"version {version.version_id}: its packed files are {len(data):,} "
                        f"bytes, over the {MAX_ARCHIVE_BYTES:,} a pair's task carries"
                    )
                pieces = [
                    (version.identity, i, data[start : start + PIECE_BYTES])
                    for i, start in enumerate(range(0, len(data), PIECE_BYTES))
                ]
                self._files[version.identity] = pieces
        return pieces

    async def play(self, job: PairJob, folders: tuple[Path | None, Path | None]) -> PairResult:
        """Plays ``job`` on the cluster; its result once its task has finished (a task Ray ran
        again after losing its worker returns once)."""
        pieces: list[tuple[str, int, bytes]] = []
        for _attempt in range(4):
            result = await self._run(job, pieces)
            if not result.missing:
                return result
            # That worker's machine lacked a version: send the pair again with the files.
            pieces = []
            for version, folder in zip((job.a, job.b), folders, strict=True):
                if version.identity in result.missing:
                    pieces += await self._pieces_of(version, folder)
            self.resends += 1
            self.bytes_shipped += sum(len(p[2]) for p in pieces)
        raise RemoteTaskError(f"pair {job.pair_tag}: the workers kept lacking its versions' files")

    async def _run(self, job: PairJob, pieces: list[tuple[str, int, bytes]]) -> PairResult:
        ref = self._task.remote(job, *pieces)
        try:
            result: PairResult = await asyncio.wrap_future(ref.future())
            return result
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
            raise
        except self.ray.exceptions.RayTaskError as error:
            cause = error.as_instanceof_cause()
            raise RemoteTaskError(f"pair {job.pair_tag} failed on its worker: {cause}") from None
        except self.ray.exceptions.RayError as error:
            raise RemoteTaskError(
                f"pair {job.pair_tag} was lost after {self.options.max_retries} retries: {error}"
            ) from None
