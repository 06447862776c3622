"""Tournament games as Ray tasks: the same schedule and records, played on a cluster.

The driver (``rookery arena run --backend ray``) keeps the run directory, the SQLite file, the
ratings and the SPRT exactly as the local backend does. It cuts the games still to play into
chunks of whole duplicate groups and submits each chunk as a Ray task. A task runs what the
local backend runs, on its worker: an embedded server on loopback, the launched bots, the
chunk's games (:func:`play_chunk`: a runner restricted to those schedule positions, made by the
runner factory it is handed, into a scratch directory), and returns the rows, the replay files'
bytes, the bots' incidents and versions. The driver records each game once, by schedule index
(through the run's ``GameRecorder``): a task that Ray runs again after its worker died cannot
double a game, and a game never returned is played again.

Ray is an optional extra (``pip install 'rookery-arena[ray]'``): this module imports it only when a
Ray run starts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import math
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import structlog
from rookery.arena._config_model import TournamentConfig
from rookery.arena.errors import ArenaConfigError, ArenaError, BotLaunchError
from rookery.arena.records._storage import RunStore
from rookery.arena.run._backend import ChunkResult, RunnerFactory
from rookery.arena.run._options import TournamentOptions
from rookery.arena.run._recorder import GameRecorder
from rookery.arena.run._schedule import ScheduledGame

__all__ = [
    "LOOPBACK_ONLY",
    "RayConnectStoppedError",
    "RayGames",
    "RayTaskFailedError",
    "RayUnavailableError",
    "chunk_games",
    "play_chunk",
]

log = structlog.get_logger("rookery.arena")

#: Games a task plays when ``ray_games_per_task`` is 0: enough to amortise starting the
#: server and the bots on the worker, few enough to spread a tournament over the workers.
DEFAULT_GAMES_PER_TASK = 16


class RayUnavailableError(ArenaError):
    """``--backend ray`` without Ray installed, or a cluster that cannot be reached."""


class RayConnectStoppedError(RayUnavailableError):
    """The run was asked to stop (SIGINT, SIGTERM) while it was still connecting to Ray."""


class RayTaskFailedError(ArenaError):
    """A Ray task failed for good: an error on its worker, or its retries used up."""


def chunk_games(
    games: Iterator[ScheduledGame], group_size: int, games_per_task: int
) -> Iterator[tuple[ScheduledGame, ...]]:
    """Consecutive pending games in chunks of whole groups (``games_per_task`` rounded up).

    A group is never split across tasks, so a duplicate pair's two games share a worker.
    """
    groups_per_task = max(1, math.ceil(games_per_task / group_size))
    chunk: list[ScheduledGame] = []
    groups = 0
    last_group: int | None = None
    for game in games:
        if game.group != last_group:
            if groups == groups_per_task:
                yield tuple(chunk)
                chunk, groups = [], 0
            groups += 1
            last_group = game.group
        chunk.append(game)
    if chunk:
        yield tuple(chunk)


#: Ray reads this variable at import: "0" keeps a local Ray's servers on loopback.
LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: Ray's authentication mode ("token" sends the cluster's token with every call).
AUTH_MODE = "RAY_AUTH_MODE"
_LOOPBACK_HOSTS = ("localhost", "127.", "::1", "[::1]")


def _address_host(address: str) -> str:
    """The host of ``ray://HOST:PORT``, ``HOST:PORT`` or ``HOST`` (empty for ``auto``)."""
    rest = address.removeprefix("ray://")
    if rest in ("", "auto"):
        return ""
    if rest.startswith("["):
        return rest[: rest.find("]") + 1]
    return rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest


def _token_available() -> bool:
    """A Ray token this process would send: the variable, the path variable or Ray's file."""
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def _prepare_environment(address: str) -> None:
    """Set what Ray reads at import so that joining ``address`` works without extra variables.

    - A local Ray, or a cluster on this machine's loopback (``ray start --head
      --node-ip-address=127.0.0.1``): this driver's node is on loopback too, else Ray rewrites
      the address to the machine's network address, where nothing answers.
    - Joining a cluster with a token on hand (``~/.ray/auth_token``, written by ``ray start``,
      or ``RAY_AUTH_TOKEN``): token authentication on, as the cluster expects by default; an
      explicit ``RAY_AUTH_MODE`` is kept.
    """
    if "ray" in sys.modules:
        return
    host = _address_host(address)
    if not address or host.startswith(_LOOPBACK_HOSTS):
        os.environ.setdefault(LOOPBACK_ONLY, "0")
    if address and AUTH_MODE not in os.environ and _token_available():
        os.environ[AUTH_MODE] = "token"


def _import_ray(address: str) -> ModuleType:
    _prepare_environment(address)
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailableError(
            "--backend ray needs Ray: pip install 'rookery-arena[ray]' (Ray is an optional extra)"
        ) from None


def _settle(future: asyncio.Future[BaseException | None], error: BaseException | None) -> None:
    if not future.done():
        future.set_result(error)


async def _ensure_ray(
    ray: ModuleType,
    address: str,
    working_dir: str,
    timeout_s: float,
    stop: Callable[[], Awaitable[object]],
) -> bool:
    """Connect to ``address`` (or start a local Ray); True if this call started it.

    Joining ``address``, ``ray.init`` runs on a daemon thread: it may wait for a cluster that
    never answers, and the driver still gives up after ``timeout_s`` with an error that says what
    to check, or as soon as it is asked to stop (SIGINT, SIGTERM). A ``working_dir`` is shipped
    to every worker for the whole job (Ray allows a local directory only there, not per task).
    """
    runtime_env = {"working_dir": working_dir} if working_dir else None
    if ray.is_initialized():
        if working_dir:
            raise RayUnavailableError(
                "--ray-working-dir: Ray is already initialised in this process; the working "
                "directory can only be given when the arena starts or joins Ray itself"
            )
        return False
    if not address:
        # A local Ray is started here, on the loop's thread: Ray ties its processes' lives to the
        # thread that spawns them (PR_SET_PDEATHSIG), so a helper thread's end would kill them.
        try:
            ray.init(include_dashboard=False, log_to_driver=False, runtime_env=runtime_env)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise RayUnavailableError(f"cannot start a local Ray: {error}") from None
        return True
    loop = asyncio.get_running_loop()
    connected: asyncio.Future[BaseException | None] = loop.create_future()

    def connect() -> None:
        error: BaseException | None = None
        try:
            ray.init(address=address, log_to_driver=False, runtime_env=runtime_env)
        except BaseException as caught:  # handed to the driver's loop below
            error = caught
        loop.call_soon_threadsafe(_settle, connected, error)

    threading.Thread(target=connect, name="rookery-ray-connect", daemon=True).start()
    where = address
    stopping: asyncio.Future[object] = asyncio.ensure_future(stop())
    waits: set[asyncio.Future[Any]] = {connected, stopping}
    try:
        done, _ = await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if stopping in done:
        raise RayConnectStoppedError(f"stopped while connecting to {where}")
    if connected not in done:
        raise RayUnavailableError(
            f"{where} did not answer within {timeout_s:g} s (--ray-connect-timeout). Is the "
            "cluster running there (`ray start --head`), is its GCS port right (6379 unless "
            "--port), and does this machine have the cluster's token (~/.ray/auth_token on the "
            "head, or RAY_AUTH_TOKEN)? For `ray://` addresses the head needs "
            "--ray-client-server-port."
        )
    failure = connected.result()
    if failure is not None:
        raise RayUnavailableError(f"cannot reach {where}: {failure}") from None
    return True


def _check_config(config: TournamentConfig) -> None:
    remote = [b.name for b in config.bots if b.remote]
    if remote:
        raise ArenaConfigError(
            "command line",
            "--backend",
            f"the Ray backend plays launched bots only; remote bots {remote} connect to one "
            "server (use the local backend)",
        )


def play_chunk(
    make_runner: RunnerFactory,
    config: TournamentConfig,
    tournament_id: str,
    indices: Sequence[int],
    join_timeout_s: float,
    connect_timeout_s: float,
    game_timeout_s: float,
    cpus: float = 1.0,
) -> ChunkResult:
    """Play the games at ``indices`` here (a Ray task's body; plain Python, no Ray needed),
    with a runner of ``make_runner`` restricted to them.

    An embedded server on loopback and the launched bots live for the chunk (Python SDK bots
    spread over the task's ``cpus``); the games go to a scratch run directory whose rows and
    replay bytes are returned.
    """
    concurrency = max(1, min(config.concurrency, len(indices)))
    local = dataclasses.replace(config, concurrency=concurrency)
    options = TournamentOptions(
        connect_timeout_s=connect_timeout_s,
        join_timeout_s=join_timeout_s,
        game_timeout_s=game_timeout_s,
        bot_cores=max(1, math.ceil(cpus)),
    )
    with tempfile.TemporaryDirectory(prefix="rookery-ray-") as scratch:
        run_dir = Path(scratch)
        runner = make_runner(
            local, run_dir, options=options, tournament_id=tournament_id, only_indices=indices
        )
        asyncio.run(runner.run())
        with RunStore(run_dir) as store:
            rows = tuple(store.games(tournament_id))
            replays = {row.index: (run_dir / row.replay_path).read_bytes() for row in rows}
            incidents = tuple(
                (bot, kind, detail) for bot, kind, detail, _ in store.incidents(tournament_id)
            )
            versions = {b.name: b.version for b in store.bots(tournament_id) if b.version}
    return ChunkResult(rows, replays, incidents, versions, os.uname().nodename)


class RayGames:
    """Plays a run's games as Ray tasks and records what they return through ``recorder``,
    until they are all played, ``stop`` is set or the recorder lets no more start."""

    def __init__(
        self,
        config: TournamentConfig,
        tournament_id: str,
        options: TournamentOptions,
        recorder: GameRecorder,
        stop: asyncio.Event,
    ) -> None:
        self._config = config
        self._tournament_id = tournament_id
        self._options = options
        self._recorder = recorder
        self._stop = stop

    def _should_dispatch(self) -> bool:
        return not self._stop.is_set() and self._recorder.may_start(0)

    def _games_per_task(self, remaining: int, workers: int) -> int:
        chosen = self._options.ray_games_per_task
        if chosen > 0:
            return chosen
        # Spread small tournaments over the workers; cap the chunk for big ones.
        return max(1, min(DEFAULT_GAMES_PER_TASK, math.ceil(remaining / max(1, workers))))

    async def play(
        self,
        pending: Iterator[ScheduledGame],
        *,
        group_size: int,
        remaining: int,
        make_runner: RunnerFactory,
    ) -> None:
        """Play ``pending`` (``remaining`` games, in groups of ``group_size``) as Ray tasks,
        each :func:`play_chunk` with ``make_runner`` on a worker."""
        _check_config(self._config)
        options = self._options
        ray = _import_ray(options.ray_address)
        started = await _ensure_ray(
            ray,
            options.ray_address,
            options.ray_working_dir,
            options.ray_connect_timeout_s,
            self._stop.wait,
        )
        try:
            cpus = options.ray_cpus_per_task
            workers = max(1, int(ray.cluster_resources().get("CPU", 1) // cpus))
            task = ray.remote(
                num_cpus=cpus, max_retries=options.ray_max_retries, retry_exceptions=False
            )(play_chunk)
            # The configuration goes by value, inside each task (a few KB): through the object
            # store (ray.put) a worker on another node had to fetch it from this process, which
            # failed on two nodes of one machine (OwnerDiedError).
            config = self._config
            chunks = chunk_games(pending, group_size, self._games_per_task(remaining, workers))
            in_flight: dict[asyncio.Future[Any], tuple[object, tuple[ScheduledGame, ...]]]
            in_flight = {}
            window = 2 * workers
            try:
                while True:
                    while len(in_flight) < window and self._should_dispatch():
                        chunk = next(chunks, None)
                        if chunk is None:
                            break
                        ref = task.remote(
                            make_runner,
                            config,
                            self._tournament_id,
                            [game.index for game in chunk],
                            options.join_timeout_s,
                            options.connect_timeout_s,
                            options.game_timeout_s,
                            options.ray_cpus_per_task,
                        )
                        in_flight[asyncio.wrap_future(ref.future())] = (ref, chunk)
                    if not in_flight:
                        return
                    stop = asyncio.ensure_future(self._stop.wait())
                    done, _ = await asyncio.wait(
                        {stop, *in_flight}, return_when=asyncio.FIRST_COMPLETED
                    )
                    stop.cancel()
                    for future in done - {stop}:
                        _, chunk = in_flight.pop(future)
                        await self._record_chunk(ray, future, chunk)
                    if not self._should_dispatch():
                        for ref, _ in in_flight.values():
                            ray.cancel(ref, force=True)
                        return
            finally:
                for future in in_flight:
                    future.cancel()
        finally:
            if started:
                ray.shutdown()

    async def _record_chunk(
        self,
        ray: ModuleType,
        future: asyncio.Future[Any],
        chunk: tuple[ScheduledGame, ...],
    ) -> None:
        first, last = chunk[0].index, chunk[-1].index
        try:
            result: ChunkResult = future.result()
        except ray.exceptions.RayTaskError as error:
            cause = error.as_instanceof_cause()
            if isinstance(cause, BotLaunchError):
                raise BotLaunchError(f"on a Ray worker (games {first}-{last}): {cause}") from None
            raise RayTaskFailedError(f"a Ray task (games {first}-{last}) failed: {error}") from None
        except ray.exceptions.RayError as error:
            raise RayTaskFailedError(
                f"a Ray task (games {first}-{last}) was lost after "
                f"{self._options.ray_max_retries} retries: {error}"
            ) from None
        recorder = self._recorder
        for bot, kind, detail in result.incidents:
            recorder.incident(bot, kind, f"{detail} (on {result.node})")
        for bot, version in result.versions.items():
            recorder.note_bot_version(bot, version)
        for row in result.rows:
            await recorder.record_played(row, result.replays[row.index])
        log.info("ray chunk recorded", first=first, last=last, node=result.node, games=len(chunk))
