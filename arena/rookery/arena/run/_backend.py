"""The contract between a run and a backend that plays its games elsewhere.

A remote task (``_ray_backend.play_chunk``) plays some schedule positions with a runner made
by the :class:`RunnerFactory` it is handed (the tournament runner itself: the backend never
imports it), into a scratch run directory, and returns a :class:`ChunkResult`; the driver
records each game of it once, through the run's ``GameRecorder``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rookery.arena._config_model import TournamentConfig
from rookery.arena.records._storage import GameRow
from rookery.arena.run._options import TournamentOptions

__all__ = ["ChunkResult", "RunnerFactory", "ShareRunner"]


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


class ShareRunner(Protocol):
    """A run of some schedule positions, played into its run directory."""

    async def run(self) -> object: ...


class RunnerFactory(Protocol):
    """Makes the runner of a task's schedule positions (``TournamentRunner`` is one)."""

    def __call__(
        self,
        config: TournamentConfig,
        run_dir: Path,
        *,
        options: TournamentOptions,
        tournament_id: str,
        only_indices: Collection[int],
    ) -> ShareRunner: ...
