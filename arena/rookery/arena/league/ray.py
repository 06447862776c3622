"""A league's duplicate pairs on Ray: ``rookery league serve --backend ray``.

The league process keeps everything that is written: its SQLite file, the replays, the ratings
and the matchmaking. It plays on a pool of long-lived workers (Ray actors,
:class:`~rookery.arena.league.ray_worker.PairWorker`, one per ``cpus_per_pair`` of the cluster's
CPUs, at most one per pair in flight), each keeping warm lanes of the versions' processes for
the season, as the local league does. A pair goes to an idle worker, the one with most of its two
versions warm; it plays both games and returns each game's outcome with its replay bytes; the
league records the pair in one transaction, exactly as a local pair.

A version's files reach a machine by content: the league packs a version's folder once and a
worker whose machine lacks it (its cache, keyed by the version's identity: :mod:`.ray_files`)
answers so; the pair is sent again with the archive's pieces. A version with a build step is built
on a worker, once: its sources go there, the build runs in the worker's sandbox, and the built
folder comes back in pieces to the league, which keeps the archive (``builds/<identity>.tar.gz``)
and ships it to the other machines as their files: the league's machine never runs a build.

A worker or node lost while it plays a pair: the pair is played again on another worker (up to
``max_retries`` times) and recorded once, from the one run that returned; the pool starts a new
worker when the cluster has the CPUs for it. A league process killed loses the pairs in flight
(Ray ends a dead driver's actors): they were never recorded, and the restarted league plays
others.

Ray is the optional extra (``pip install 'rookery-arena[ray]'``): this module imports it only
when a league starts on Ray.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import structlog
from rookery.arena.errors import ArenaError
from rookery.arena.records._storage import write_bytes_atomically
from rookery.arena.run._ray_backend import _ensure_ray, _import_ray

from .ray_files import CACHE_ENV as CACHE_ENV
from .ray_files import MAX_ARCHIVE_BYTES, pack_folder, split
from .ray_jobs import BuildJob, BuiltVersion, PairJob, PairResult, Piece, WorkerSettings
from .ray_worker import PairWorker
from .submissions import BuildResult

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

T = TypeVar("T")
#: Seconds between two looks at the cluster's CPUs (to size the pool of workers).
_SIZING_S = 2.0
#: Seconds between the league's pings to its workers (see ``ray_worker.ORPHAN_AFTER_S``).
_PING_S = 10.0
#: The Ray namespace of the leagues' workers.
NAMESPACE = "rookery-league"


class RemoteTaskError(ArenaError):
    """A pair or build failed on Ray for good (an error on its worker, or its retries used up)."""


class _WorkerLost(Exception):
    """The worker (its actor, or its node) was lost during a call."""


@dataclass(frozen=True)
class RayPairsOptions:
    """How a league plays on Ray."""

    #: The cluster (``host:port`` of its head, ``ray://…``, ``auto``); empty: a local Ray.
    address: str = ""
    #: CPUs a worker takes (it plays one pair at a time: four bot processes thinking in turn).
    cpus_per_pair: float = 1.0
    #: How often a pair is played again whose worker or node was lost.
    max_retries: int = 3
    #: Seconds to wait for the cluster to answer.
    connect_timeout_s: float = 60.0


@dataclass
class _Worker:
    """One actor of the pool."""

    handle: Any
    number: int
    node: str = ""
    ready: bool = False
    busy: bool = False
    dead: bool = False
    #: The versions (seat names) that have warm processes there.
    warm: set[str] = field(default_factory=set)


@dataclass
class RayPairs:
    """The league's pool of workers on Ray: ``await RayPairs.connect(options)``, then ``start``
    with the league's settings, then ``play`` and ``build``."""

    ray: ModuleType
    options: RayPairsOptions
    started: bool
    #: The actor class (``ray.remote(PairWorker)`` with its resources).
    _actor: Any = None
    settings: WorkerSettings | None = None
    #: The most workers (the league's pairs at once).
    max_workers: int = 1
    #: Where the league keeps the built versions' archives (``builds/<identity>.tar.gz``).
    builds: Path | None = None
    #: The names of this league's workers start with it (one league file, one prefix).
    prefix: str = "rookery-league"
    _workers: list[_Worker] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _cpus: float = 0.0
    _sized_at: float = 0.0
    _spawned: int = 0
    _failures: int = 0
    _retry_at: float = 0.0
    _background: set[asyncio.Task[None]] = field(default_factory=set)
    #: Version identity -> its archive's pieces (packed or read once).
    _files: dict[str, list[Piece]] = field(default_factory=dict)
    _packing: dict[str, asyncio.Lock] = field(default_factory=dict)
    #: Archive bytes sent to machines that lacked a version.
    bytes_shipped: int = 0
    #: Calls sent again with files, after a worker said its machine lacked them.
    resends: int = 0
    #: Workers lost (their actor or node) while they held a pair or a build.
    lost: int = 0

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
        # Detached: owned by the cluster, not by this process (on a cluster of several nodes on
        # one machine, an actor this process owned was destroyed as it was made: its owner was
        # taken for dead); the league ends them (close), or they end themselves once it is
        # silent (ORPHAN_AFTER_S).
        pairs._actor = ray.remote(
            num_cpus=options.cpus_per_pair, max_restarts=0, max_concurrency=8
        )(PairWorker)
        return pairs

    def start(
        self, settings: WorkerSettings, pairs_at_once: int, builds: Path, league: str
    ) -> None:
        """The league's settings for its workers, the most pairs it plays at once, where it
        keeps built archives and a name of the league; the workers a killed run of this league
        left are ended, and the new ones start now (as many as the cluster has CPUs for)."""
        self.settings = settings
        self.max_workers = max(1, pairs_at_once)
        self.builds = builds
        self.prefix = f"rookery-league-{league}-"
        with contextlib.suppress(Exception):
            for actor in self.ray.util.list_named_actors(all_namespaces=True):
                if actor["namespace"] == NAMESPACE and actor["name"].startswith(self.prefix):
                    self.ray.kill(self.ray.get_actor(actor["name"], namespace=NAMESPACE))
                    log.info("ray worker of a previous run ended", name=actor["name"])
        self._grow()
        self._spawn(self._ping())

    async def _ping(self) -> None:
        while True:
            await asyncio.sleep(_PING_S)
            for worker in list(self._workers):
                if worker.ready and not worker.dead:
                    with contextlib.suppress(Exception):
                        worker.handle.ping.remote()

    async def close(self) -> None:
        """Stops the workers' processes and leaves the cluster (stops the local Ray this
        process started)."""
        for task in self._background:
            task.cancel()
        closing = [w for w in self._workers if w.ready and not w.dead]
        if closing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    asyncio.gather(
                        *(self._await(w.handle.close.remote()) for w in closing),
                        return_exceptions=True,
                    ),
                    10.0,
                )
        for worker in self._workers:
            with contextlib.suppress(Exception):
                self.ray.kill(worker.handle)
        self._workers.clear()
        if self.started:
            self.ray.shutdown()

    def cpus(self) -> float:
        """The cluster's CPUs now."""
        return float(self.ray.cluster_resources().get("CPU", 0.0))

    @property
    def workers(self) -> int:
        """Workers ready now."""
        return sum(1 for w in self._workers if w.ready and not w.dead)

    # The pool ------------------------------------------------------------------------------------

    def _target(self) -> int:
        now = time.monotonic()
        if now - self._sized_at > _SIZING_S:
            with contextlib.suppress(Exception):
                self._cpus = self.cpus()
            self._sized_at = now
        fits = int(self._cpus // self.options.cpus_per_pair) if self.options.cpus_per_pair else 1
        return max(1, min(self.max_workers, fits))

    def _grow(self) -> None:
        """Starts workers up to the target; ends those still waiting for CPUs past it (a node
        lost takes its CPUs with it)."""
        if self.settings is None:
            return
        target = self._target()
        alive = [w for w in self._workers if not w.dead]
        for worker in [w for w in alive if not w.ready][: max(0, len(alive) - target)]:
            self._drop(worker)
        while sum(not w.dead for w in self._workers) < target:
            if time.monotonic() < self._retry_at:
                return
            self._spawned += 1
            name = f"{self.prefix}{secrets.token_hex(4)}-{self._spawned}"
            actor = self._actor.options(name=name, lifetime="detached", namespace=NAMESPACE)
            worker = _Worker(actor.remote(self.settings), self._spawned)
            self._workers.append(worker)
            self._spawn(self._await_ready(worker))

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _await_ready(self, worker: _Worker) -> None:
        try:
            worker.node = await self._await(worker.handle.ready.remote())
        except (_WorkerLost, RemoteTaskError) as error:
            log.warning("ray worker did not start", worker=worker.number, error=str(error))
            self._drop(worker)
            self._failures += 1
            # The next one in a while, not in a loop (a cluster that cannot start one).
            self._retry_at = time.monotonic() + min(30.0, 2.0**self._failures)
        else:
            self._failures = 0
            worker.ready = True
            log.info("ray worker ready", worker=worker.number, node=worker.node)
        self._changed.set()

    def _drop(self, worker: _Worker) -> None:
        worker.dead = True
        with contextlib.suppress(Exception):
            self.ray.kill(worker.handle)
        if worker in self._workers:
            self._workers.remove(worker)
        self._changed.set()

    async def _take(self, seats: set[str]) -> _Worker:
        """An idle worker, the one with most of ``seats`` warm (waits for one)."""
        while True:
            self._grow()
            idle = [w for w in self._workers if w.ready and not w.busy and not w.dead]
            if idle:
                worker = max(idle, key=lambda w: len(seats & w.warm))
                worker.busy = True
                return worker
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), _SIZING_S)

    def _give_back(self, worker: _Worker) -> None:
        worker.busy = False
        self._changed.set()

    async def _await(self, ref: Any) -> Any:
        """A call's result; :class:`_WorkerLost` if its actor or node died, else
        :class:`RemoteTaskError` for an error on the worker."""
        exceptions = self.ray.exceptions
        lost = tuple(
            getattr(exceptions, name)
            for name in ("RayActorError", "ActorUnavailableError", "WorkerCrashedError")
            if hasattr(exceptions, name)
        )
        try:
            return await asyncio.wrap_future(ref.future())
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref)
            raise
        except lost as error:
            raise _WorkerLost(str(error).splitlines()[0] if str(error) else repr(error)) from None
        except exceptions.RayTaskError as error:
            raise RemoteTaskError(f"failed on its worker: {error.as_instanceof_cause()}") from None
        except exceptions.RayError as error:
            raise RemoteTaskError(f"failed on Ray: {error}") from None

    async def _on_a_worker(
        self, what: str, seats: set[str], call: Callable[[_Worker], Awaitable[T]]
    ) -> T:
        """``call`` on an idle worker; on another if the worker is lost (``max_retries``)."""
        for attempt in range(self.options.max_retries + 1):
            worker = await self._take(seats)
            try:
                return await call(worker)
            except _WorkerLost as error:
                self.lost += 1
                log.warning(
                    "ray worker lost: played again elsewhere",
                    what=what,
                    worker=worker.number,
                    node=worker.node,
                    attempt=attempt + 1,
                    error=str(error),
                )
                self._drop(worker)
            except RemoteTaskError as error:
                raise RemoteTaskError(f"{what} {error}") from None
            finally:
                self._give_back(worker)
        raise RemoteTaskError(f"{what} was lost {self.options.max_retries + 1} times on Ray")

    async def drop(self, seat: str) -> None:
        """Stops the warm processes of the version playing as ``seat`` on every worker (a
        version retired or disqualified; the league has waited for its pairs in flight)."""
        holding = [w for w in self._workers if seat in w.warm and w.ready and not w.dead]
        for worker in holding:
            worker.warm.discard(seat)
        results = await asyncio.gather(
            *(self._await(w.handle.drop.remote(seat)) for w in holding), return_exceptions=True
        )
        for worker, result in zip(holding, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("ray worker kept a version", worker=worker.number, error=str(result))

    # Files ---------------------------------------------------------------------------------------

    def built_archive(self, identity: str) -> Path:
        """Where the league keeps the built archive of ``identity``."""
        assert self.builds is not None
        return self.builds / f"{identity}.tar.gz"

    async def _pieces_of(self, identity: str, folder: Path | None) -> list[Piece]:
        """The pieces of the version's files as machines get them: its built archive if it was
        built, else its folder packed (once)."""
        if folder is None or not identity:
            return []
        lock = self._packing.setdefault(identity, asyncio.Lock())
        async with lock:
            pieces = self._files.get(identity)
            if pieces is None:
                archive = self.built_archive(identity)
                if archive.exists():
                    data = await asyncio.to_thread(archive.read_bytes)
                else:
                    data = await asyncio.to_thread(pack_folder, folder)
                _check_size(identity, data)
                pieces = self._files[identity] = split(identity, data)
        return pieces

    # Pairs and builds ----------------------------------------------------------------------------

    async def play(self, job: PairJob, folders: tuple[Path | None, Path | None]) -> PairResult:
        """Plays ``job`` on a worker; its result once it has finished (a pair whose worker was
        lost is played again on another)."""
        seats = {job.a.seat, job.b.seat}

        async def on(worker: _Worker) -> PairResult:
            pieces: list[Piece] = []
            for _ in range(3):
                result: PairResult = await self._await(worker.handle.play.remote(job, *pieces))
                if not result.missing:
                    worker.warm |= seats
                    return result
                # That worker's machine lacked a version: the same worker again, with its files.
                pieces = []
                for version, folder in zip((job.a, job.b), folders, strict=True):
                    if version.identity in result.missing:
                        pieces += await self._pieces_of(version.identity, folder)
                self.resends += 1
                self.bytes_shipped += sum(len(p[2]) for p in pieces)
            raise RemoteTaskError(f"its worker kept lacking its versions' files ({worker.node})")

        return await self._on_a_worker(f"pair {job.pair_tag}", seats, on)

    async def build(self, job: BuildJob, folder: Path) -> BuildResult:
        """Runs ``job`` on a worker (the versions' sources from ``folder``); a successful build's
        folder comes back as the archive at :meth:`built_archive`, which machines then get."""

        async def on(worker: _Worker) -> BuildResult:
            built: BuiltVersion = await self._await(worker.handle.build.remote(job))
            if built.missing:
                data = await asyncio.to_thread(pack_folder, folder)
                _check_size(job.identity, data)
                sources = split(job.identity, data)
                self.bytes_shipped += len(data)
                built = await self._await(worker.handle.build.remote(job, *sources))
            if built.result.ok:
                pieces = await asyncio.gather(
                    *(self._await(worker.handle.piece.remote(job.identity, i)) for i in
                      range(built.pieces))
                )  # fmt: skip
                data = b"".join(pieces)
                if len(data) != built.size:
                    raise RemoteTaskError(f"its archive came back {len(data)} of {built.size} B")
                _check_size(job.identity, data)
                await asyncio.to_thread(
                    write_bytes_atomically, self.built_archive(job.identity), data
                )
                self._files.pop(job.identity, None)
            log.info(
                "ray build",
                version=job.version_id,
                ok=built.result.ok,
                node=built.node,
                cached=built.cached,
                bytes=built.size,
            )
            return built.result

        return await self._on_a_worker(f"the build of {job.version_id}", set(), on)


def _check_size(identity: str, data: bytes) -> None:
    if len(data) > MAX_ARCHIVE_BYTES:
        raise RemoteTaskError(
            f"version {identity[:12]}: its packed files are {len(data):,} bytes, over the "
            f"{MAX_ARCHIVE_BYTES:,} that travel inside a Ray call"
        )
