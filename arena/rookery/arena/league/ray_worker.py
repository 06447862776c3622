"""A league's worker on Ray: a long-lived actor that plays duplicate pairs with warm processes.

Each worker (one a CPU of the cluster, or per ``cpus_per_pair``) keeps, for the whole season, an
embedded server on loopback (and a Unix socket for the sandbox) and warm lanes of the versions'
processes, as the local league does (:mod:`rookery.arena.launch._lanes`): lane 0 plays the first
game of each pair, lane 1 the second, so no process ever sees both games of one deal. A pair sent
to it plays both games at once and returns their outcomes with the replays; the league records
them. The versions' files come from the machine's cache (:mod:`.ray_files`), unpacked once; a
version's build step runs here too, once, and its built folder goes back to the league in
pieces, from which other machines get it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import structlog
from rookery.arena._config_values import BotSpec
from rookery.arena.errors import ArenaError
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import BotLauncher, plan_launch
from rookery.arena.launch._sandbox import SandboxRuntime, probe
from rookery.server import RookeryServer, ServerConfig, TableSpec

from .ray_files import (
    COMPLETE,
    PIECE_BYTES,
    cache_folder,
    cached_folder,
    is_cached,
    joined,
    pack_folder,
    split,
    store_build,
    stored_build,
    unpacked,
)
from .ray_jobs import (
    BuildJob,
    BuiltVersion,
    PairJob,
    PairResult,
    Piece,
    ShippedOutcome,
    ShippedVersion,
    WorkerSettings,
)
from .submissions import BuildResult, run_build

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

#: The most bytes of a version's runtime output a pair sends back for the league's log.
LOG_TAIL_BYTES = 16 * 1024
#: The start of a worker's scratch folder's name (then its process id) in the temporary folder.
_SCRATCH = "rookery-worker-"
#: Seconds without a word from its league after which a worker stops its processes and exits
#: (the league pings its workers every few seconds; a league killed does not come back to them).
ORPHAN_AFTER_S = 90.0


class PairWorker:
    """The body of the league's Ray actor (``ray.remote(PairWorker)``); its methods are
    coroutines run on the actor's event loop."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        self.node = f"{os.uname().nodename} pid {os.getpid()}"
        _normal_priority()
        _clear_lost_scratch()
        self._scratch = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH}{os.getpid()}-"))
        self._scratch.chmod(0o711)
        self._server: RookeryServer | None = None
        self._sandbox: SandboxRuntime | None = None
        self._lanes: WarmLanes | None = None
        self._starting = asyncio.Lock()
        #: Each version's launcher that lanes copy (by seat name), and its version.
        self._models: dict[str, BotLauncher] = {}
        self._incidents: list[tuple[str, str, str]] = []
        #: How much of each version's log went to the league already.
        self._log_sent: dict[str, int] = {}
        #: Built folders' archives by identity (for the league to fetch piece by piece).
        self._built: dict[str, bytes] = {}
        self._heard = time.monotonic()
        self._watch: asyncio.Task[None] | None = None

    async def ready(self) -> str:
        """Starts the worker's server; where it runs."""
        await self._started()
        return self.node

    async def ping(self) -> None:
        """The league is alive (it asks every few seconds)."""
        self._heard = time.monotonic()

    async def _watch_league(self) -> None:
        """Exits once the league has been silent for :data:`ORPHAN_AFTER_S` (a worker is a
        detached actor: nothing else ends it when its league was killed)."""
        while time.monotonic() - self._heard < ORPHAN_AFTER_S:  # noqa: ASYNC110 - a clock
            await asyncio.sleep(2.0)
        log.warning("league silent: worker exits", node=self.node)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.close(), 20.0)
        os._exit(0)

    async def _started(self) -> tuple[RookeryServer, WarmLanes]:
        self._heard = time.monotonic()
        async with self._starting:
            if self._watch is None:
                self._watch = asyncio.ensure_future(self._watch_league())
            if self._server is None:
                socket = self._scratch / "server.sock"
                self._sandbox = _make_sandbox(self.settings, socket)
                if self._sandbox is not None:
                    self._sandbox.run_dirs = (self._scratch,)
                config = ServerConfig(
                    address="127.0.0.1:0",
                    unix_socket=str(socket) if self._sandbox is not None else "",
                    log_level="warning",
                    time_control=self.settings.time_control,
                )
                server = RookeryServer(config)
                await server.start()
                self._server = server
                self._lanes = WarmLanes(
                    self._lane_launcher,
                    self._lane_sessions,
                    max_processes=self.settings.warm_processes,
                    connect_timeout_s=self.settings.join_timeout_s,
                    on_stop=lambda _launcher, key: server.revoke_launch_key(key),
                )
        assert self._server is not None and self._lanes is not None
        return self._server, self._lanes

    def _lane_launcher(self, seat: str, lane: int) -> tuple[BotLauncher, str]:
        assert self._server is not None
        model = self._models[seat]
        key = self._server.issue_launch_key(seat, 2 * model.plan.processes * model.plan.sessions)
        return model.for_lane(key, lane), key

    def _lane_sessions(self, seat: str, key: str) -> int:
        assert self._server is not None
        return sum(1 for s in self._server.sessions.get(seat, ()) if s.launch_key == key)

    def _know(self, version: ShippedVersion, folder: Path | None) -> None:
        """The model launcher of ``version`` (its lanes' launchers are copies of it)."""
        if version.seat in self._models:
            return
        assert self._server is not None
        spec = BotSpec(
            version.seat, version.command, folder=str(folder or ""), workdir=str(folder or "")
        )

        def incident(_bot: str, kind: str, detail: str) -> None:
            self._incidents.append((version.version_id, kind, detail))

        self._models[version.seat] = BotLauncher(
            spec,
            plan_launch(spec, 2, 2, 1),
            self._server.target,
            "",
            self._scratch / f"{version.version_id}.log",
            incident,
            runtime=self._sandbox,
            folder=folder,
        )
        if self._sandbox is not None and folder is not None:
            self._sandbox.bot_folders = (*self._sandbox.bot_folders, folder)

    async def play(self, job: PairJob, *pieces: Piece) -> PairResult:
        """Plays ``job`` with this worker's warm processes (started for versions new here). The
        versions' files come from the machine's cache, unpacked from ``pieces`` if it lacks them;
        without the pieces of a version it lacks, it plays nothing and names what it lacks."""
        started = self._heard = time.monotonic()
        sent = joined(pieces)
        versions = (job.a, job.b)
        missing = tuple(
            v.identity
            for v in versions
            if v.identity and v.identity not in sent and not is_cached(v.identity)
        )
        if missing:
            return PairResult((), (), {}, self.node, 0.0, self._sandbox is not None, missing)
        server, lanes = await self._started()
        for version in versions:
            folder = None
            if version.identity:
                folder, _ = await asyncio.to_thread(
                    cached_folder, version.identity, sent.get(version.identity)
                )
            self._know(version, folder)
        unpack_s = time.monotonic() - started
        starts = lanes.starts
        # The twin's replay shows this deal: withheld from every bot here until both have ended.
        server.withhold_replays(job.pair_tag)
        try:
            seats = [(job.a, job.b, job.a, job.b), (job.b, job.a, job.b, job.a)]
            outcomes = await asyncio.gather(*(self._play_game(job, i, seats[i]) for i in range(2)))
        finally:
            server.release_replays(job.pair_tag)
        incidents, self._incidents = tuple(self._incidents), []
        return PairResult(
            (outcomes[0], outcomes[1]),
            incidents,
            {v.version_id: self._new_output(v.version_id) for v in versions},
            self.node,
            unpack_s,
            self._sandbox is not None,
            starts=lanes.starts - starts,
        )

    async def _play_game(
        self, job: PairJob, index: int, seats: tuple[ShippedVersion, ...]
    ) -> ShippedOutcome:
        server, lanes = await self._started()
        names = [v.seat for v in seats]
        try:
            keys = await lanes.enter(index, job.seed, {name: names.count(name) for name in names})
        except LaneStartError as error:
            raise ArenaError(f"{error} (on {self.node})") from None
        table_id = f"{job.pair_tag}-{index}"
        try:
            spec = TableSpec(
                ruleset=job.ruleset,
                seat_bots=tuple(names),
                seed=job.seed,
                time_control=self.settings.time_control,
                tournament_id=job.pair_tag,
                table_id=table_id,
                join_timeout_s=self.settings.join_timeout_s,
                game_number=index,
                seat_keys=tuple(keys[name] for name in names),
                bot_seed_key=job.bot_seed_key,
            )
            table = await server.create_table(spec)
            try:
                outcome = await table.wait_finished()
            except asyncio.CancelledError:  # the league stopped: its processes play on
                with contextlib.suppress(Exception):
                    server.abort_table(table_id, "the league was stopped")
                raise
        finally:
            lanes.leave(index, list(keys))
        return ShippedOutcome(
            outcome.result,
            outcome.termination,
            outcome.forfeit_seat,
            outcome.detail,
            tuple(outcome.seat_stats),
            outcome.duration_s,
            outcome.replay_bytes(compress=True),
        )

    def _new_output(self, version_id: str) -> bytes:
        """What the version's processes wrote here since the last pair (its end); the log is
        emptied in place once large (the processes append at its new end)."""
        path = self._scratch / f"{version_id}.log"
        sent = self._log_sent.get(version_id, 0)
        try:
            with path.open("r+b") as handle:
                size = handle.seek(0, 2)
                handle.seek(max(sent, size - LOG_TAIL_BYTES))
                data = handle.read()
                if size > 4 * LOG_TAIL_BYTES:
                    handle.truncate(0)
                    size = 0
        except FileNotFoundError:
            return b""
        self._log_sent[version_id] = size
        return data

    async def build(self, job: BuildJob, *pieces: Piece) -> BuiltVersion:
        """Runs ``job``'s build step in the files' folder in this machine's cache, where its
        pairs will run (the sandbox's, writable, no network); answered from the machine's record
        when it was built here before. Without the files (``pieces``) it names them missing."""
        self._heard = time.monotonic()
        done = stored_build(job.identity)
        if done is not None and (not done.ok or is_cached(job.identity)):
            return self._built_answer(job.identity, done, cached=True)
        data = joined(pieces).get(job.identity)
        if data is None:
            return BuiltVersion(BuildResult(-1, 0.0, ""), self.node, missing=(job.identity,))
        server, _ = await self._started()
        folder = cache_folder(job.identity)
        await asyncio.to_thread(shutil.rmtree, folder, True)  # a build a lost worker left
        staging = await asyncio.to_thread(unpacked, data, job.identity)
        staging.rename(folder)  # built where its processes will run: paths it writes stay true
        result = await run_build(
            job.build,
            folder,
            self._scratch / f"{job.version_id}.build.log",
            runtime=self._sandbox,
            timeout_s=job.timeout_s,
            server_target=server.target,
            max_bytes=job.max_bytes,
        )
        if result.ok:
            (folder / COMPLETE).write_text(f"{time.time()}\n")
        else:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        store_build(job.identity, result)
        log.info("version built", version=job.version_id, ok=result.ok, node=self.node)
        return self._built_answer(job.identity, result, cached=False)

    def _built_answer(self, identity: str, result: BuildResult, cached: bool) -> BuiltVersion:
        if not result.ok:
            return BuiltVersion(result, self.node, cached=cached)
        data = pack_folder(cache_folder(identity))
        self._built[identity] = data
        pieces = len(split(identity, data))
        return BuiltVersion(result, self.node, pieces, len(data), cached)

    async def piece(self, identity: str, index: int) -> bytes:
        """Piece ``index`` of the built folder of ``identity`` (after :meth:`build`)."""
        data = self._built.get(identity)
        if data is None:
            data = await asyncio.to_thread(pack_folder, cache_folder(identity))
            self._built[identity] = data
        return data[index * PIECE_BYTES : (index + 1) * PIECE_BYTES]

    async def drop(self, seat: str) -> None:
        """Stops the warm processes of the version playing as ``seat`` (retired, disqualified)."""
        self._heard = time.monotonic()
        if self._lanes is not None:
            await self._lanes.drop(seat)

    async def close(self) -> None:
        """Stops every warm process and the server (the league leaves the cluster)."""
        if self._lanes is not None:
            await self._lanes.stop()
        if self._server is not None:
            await self._server.stop(grace_s=0.5)
        if self._sandbox is not None:
            self._sandbox.close()
        shutil.rmtree(self._scratch, ignore_errors=True)


def _normal_priority() -> None:
    """Back to the machine's normal CPU priority where this process may: Ray starts its workers
    at niceness 15 (for its own daemons' sake), which the embedded server's threads and the bots
    it starts inherit, so on a busy machine the rest of its work came first. Niceness is a
    thread's on Linux: every thread of the worker is set (Ray's own and the event loop's; a new
    thread inherits its maker's). Lowering it needs root or CAP_SYS_NICE: without, the worker
    keeps Ray's and says so."""
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError, ValueError):
            thread = int(task.name)
            niceness = os.getpriority(os.PRIO_PROCESS, thread)
            if niceness <= 0:
                continue
            try:
                os.setpriority(os.PRIO_PROCESS, thread, 0)
            except PermissionError as error:
                log.warning("ray worker keeps its niceness", niceness=niceness, error=str(error))
                return


def _clear_lost_scratch() -> None:
    """Removes the scratch folders of this machine's workers that died without closing (a
    killed league's, a lost node's): their process is gone."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_SCRATCH}*"):
        pid = folder.name.removeprefix(_SCRATCH).partition("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def _make_sandbox(settings: WorkerSettings, socket: Path) -> SandboxRuntime | None:
    if settings.sandbox == "off":
        return None
    support = probe()
    if not support.available:
        if settings.sandbox == "on":
            raise ArenaError(f"sandbox = 'on' but on {os.uname().nodename}: {support.describe()}")
        return None
    return SandboxRuntime(support, settings.limits, socket)
