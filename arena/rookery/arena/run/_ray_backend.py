"""Tournament games as Ray tasks: the same schedule and records, played on a cluster.

The driver (``rookery arena run --backend ray``) keeps the run directory, the SQLite file, the
ratings and the SPRT exactly as the local backend does. It cuts the games still to play into
chunks of whole duplicate groups and submits each chunk as a Ray task. A task runs what the
local backend runs, on its worker: an embedded server on loopback, the launched bots, the
chunk's games (``runner.play_chunk``: a runner restricted to those schedule positions, into a
scratch directory), and returns the rows, the replay files' bytes, the bots' incidents and
versions. The driver records each game once, by schedule index: a task that Ray
runs again after its worker died cannot double a game, and a game never returned is played
again.

Ray is an optional extra (``pip install 'rookery-arena[ray]'``): this module imports it only when a
Ray run starts.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import structlog
from rookery.arena._config_model import TournamentConfig
from rookery.arena.errors import ArenaConfigError, ArenaError, BotLaunchError
from rookery.arena.run._backend import ChunkPlayer, ChunkResult, RunDriver
from rookery.arena.run._schedule import ScheduledGame

__all__ = [
    "LOOPBACK_ONLY",
    "RayConnectStoppedError",
    "RayTaskFailedError",
    "RayUnavailableError",
    "chunk_games",
    "play_on_ray",
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


def _import_ray(address: str) -> Any:
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
    ray: Any, address: str, working_dir: str, timeout_s: float, stop: Callable[[], Awaitable[None]]
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


def _games_per_task(runner: RunDriver, workers: int) -> int:
    chosen = runner.options.ray_games_per_task
    if chosen > 0:
        return chosen
    # Spread small tournaments over the workers; cap the chunk for big ones.
    remaining = runner.total - runner.live.done
    return max(1, min(DEFAULT_GAMES_PER_TASK, math.ceil(remaining / max(1, workers))))


async def play_on_ray(runner: RunDriver, play_chunk: ChunkPlayer) -> None:
    """Play the runner's pending games as Ray tasks (each ``play_chunk`` on a worker) and record
    them through the runner."""
    _check_config(runner.config)
    options = runner.options
    ray = _import_ray(options.ray_address)
    started = await _ensure_ray(
        ray,
        options.ray_address,
        options.ray_working_dir,
        options.ray_connect_timeout_s,
        runner.wait_stop_requested,
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
        config = runner.config
        chunks = chunk_games(
            runner.pending(), runner.schedule.group_size, _games_per_task(runner, workers)
        )
        in_flight: dict[asyncio.Future[Any], tuple[Any, tuple[ScheduledGame, ...]]] = {}
        window = 2 * workers
        try:
            while True:
                while len(in_flight) < window and runner.should_dispatch():
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                    ref = task.remote(
                        config,
                        runner.tournament_id,
                        [game.index for game in chunk],
                        options.join_timeout_s,
                        options.connect_timeout_s,
                        options.game_timeout_s,
                        options.ray_cpus_per_task,
                    )
                    in_flight[asyncio.wrap_future(ref.future())] = (ref, chunk)
                if not in_flight:
                    return
                stop = asyncio.ensure_future(runner.wait_stop_requested())
                done, _ = await asyncio.wait(
                    {stop, *in_flight}, return_when=asyncio.FIRST_COMPLETED
                )
                stop.cancel()
                for future in done - {stop}:
                    _, chunk = in_flight.pop(future)
                    await _record_chunk(runner, ray, future, chunk)
                if not runner.should_dispatch():
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
    runner: RunDriver,
    ray: Any,
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
            f"{runner.options.ray_max_retries} retries: {error}"
        ) from None
    for bot, kind, detail in result.incidents:
        runner.record_incident(bot, kind, f"{detail} (on {result.node})")
    for bot, version in result.versions.items():
        runner.set_bot_version(bot, version)
    for row in result.rows:
        await runner.record_played(row, result.replays[row.index])
    log.info("ray chunk recorded", first=first, last=last, node=result.node, games=len(chunk))
