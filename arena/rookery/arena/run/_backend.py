"""The contract between the tournament runner and a backend that plays its games elsewhere.

``runner.TournamentRunner`` drives a run: it records each game, keeps the live Elo and the SPRT,
and decides when to stop. A remote backend (``ray_backend``) plays the games somewhere else and
records what comes back through :class:`RunDriver`; the body of each remote task is a
:data:`ChunkPlayer` the runner hands over. So the backend never imports the runner, and the runner
imports the backend only to call it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from rookery.arena._config_model import TournamentConfig
from rookery.arena.records._storage import GameRow
from rookery.arena.run._schedule import Schedule, ScheduledGame

__all__ = ["ChunkPlayer", "ChunkResult", "RemoteOptions", "RunDriver", "RunProgress"]


@dataclass(frozen=True)
class ChunkResult:
    """What a remote task returns: every game it finished, with its replay file's bytes."""

    rows: tuple[GameRow, ...]
    #: Replay file bytes (gzip JSON lines) by schedule index.
    replays: dict[int, bytes]
    #: (bot, kind, detail) of each crash or restart of a launched bot on the worker.
    incidents: tuple[tuple[str, str, str], ...]
    #: The version each bot announced.
    versions: dict[str, str]
    #: The worker's host name, for the log.
    node: str


ChunkPlayer = Callable[
    [TournamentConfig, str, Sequence[int], float, float, float, float], ChunkResult
]
"""A remote task's body: ``(config, tournament_id, indices, join_timeout_s, connect_timeout_s,
game_timeout_s, cpus)`` plays the games at those schedule positions where it runs."""


class RemoteOptions(Protocol):
    """The run options a remote backend reads (``TournamentOptions`` has them)."""

    @property
    def connect_timeout_s(self) -> float: ...
    @property
    def join_timeout_s(self) -> float: ...
    @property
    def game_timeout_s(self) -> float: ...
    @property
    def ray_address(self) -> str: ...
    @property
    def ray_games_per_task(self) -> int: ...
    @property
    def ray_max_retries(self) -> int: ...
    @property
    def ray_working_dir(self) -> str: ...
    @property
    def ray_cpus_per_task(self) -> float: ...
    @property
    def ray_connect_timeout_s(self) -> float: ...


class RunProgress(Protocol):
    """How far the run is."""

    @property
    def done(self) -> int:
        """Games recorded so far."""
        ...


class RunDriver(Protocol):
    """What a remote backend needs from the run it plays games for."""

    @property
    def config(self) -> TournamentConfig: ...
    @property
    def options(self) -> RemoteOptions: ...
    @property
    def tournament_id(self) -> str: ...
    @property
    def schedule(self) -> Schedule: ...
    @property
    def total(self) -> int: ...
    @property
    def live(self) -> RunProgress: ...

    def pending(self) -> Iterator[ScheduledGame]:
        """The games still to play, in schedule order."""
        ...

    def should_dispatch(self) -> bool:
        """Whether to start more games (no stop asked, no SPRT decision)."""
        ...

    async def wait_stop_requested(self) -> None:
        """Returns when the run is asked to stop."""
        ...

    async def record_played(self, row: GameRow, replay: bytes) -> bool:
        """Records a game played elsewhere (once per schedule index)."""
        ...

    def record_incident(self, bot: str, kind: str, detail: str) -> None:
        """Records a launched bot's crash or restart."""
        ...

    def set_bot_version(self, bot: str, version: str) -> None:
        """Records the version a bot announced."""
        ...
