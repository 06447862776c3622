"""What the run's parts (its bots, its local games) use of the run they belong to.

:class:`~rookery.arena.run._runner.TournamentRunner` is the one implementation; the parts take
it as a :class:`RunState` so that they do not import the runner that composes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from rookery.arena._config_model import TournamentConfig
from rookery.arena.launch._lanes import WarmLanes
from rookery.arena.launch._launcher import BotLauncher
from rookery.arena.launch._sandbox import SandboxRuntime
from rookery.arena.records._storage import GameRow, RunStore
from rookery.arena.run._options import TournamentOptions
from rookery.arena.run._schedule import Schedule, ScheduledGame
from rookery.server import RookeryServer, TableOutcome

__all__ = ["RunState"]


class RunState(Protocol):
    """A run as its parts see it: its settings, its server and bots, and its controls."""

    config: TournamentConfig
    options: TournamentOptions
    tournament_id: str
    run_dir: Path
    schedule: Schedule
    store: RunStore | None
    server: RookeryServer | None
    sandbox: SandboxRuntime | None
    lanes: WarmLanes | None
    launchers: dict[str, BotLauncher]
    games_at_once: int
    _stop: asyncio.Event
    _in_play: int

    @property
    def concurrency_limit(self) -> int: ...
    @property
    def process_per_game(self) -> bool: ...
    @property
    def reuses_lanes(self) -> bool: ...
    @property
    def lane_count(self) -> int: ...
    @property
    def _server_stopping(self) -> bool: ...
    def lane_of(self, game: ScheduledGame) -> int: ...
    def _last_of_lane(self, game: ScheduledGame) -> bool: ...
    def pending(self) -> Iterator[ScheduledGame]: ...
    def should_dispatch(self) -> bool: ...
    def _awaits_a_cost(self) -> bool: ...
    def _incident(self, bot: str, kind: str, detail: str) -> None: ...
    def _message(self, text: str) -> None: ...
    def _notify(self) -> None: ...
    async def _record(
        self, game: ScheduledGame, outcome: TableOutcome, void: str = ""
    ) -> GameRow: ...
