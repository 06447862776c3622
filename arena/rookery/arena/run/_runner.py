"""Running a tournament: an embedded server, the bots, N games at once, one commit per game.

The runner is the composition of parts that each own their state: the
:class:`~rookery.arena.run._recorder.GameRecorder` opens (or resumes) the run directory and is
the one place a game becomes durable and counted (the live ratings, the SPRT, the budget); the
:class:`~rookery.arena.launch._supervisor.BotSupervisor` owns the sandbox and the bots'
processes; the runner starts the :class:`~rookery.server.RookeryServer` (embedded in the same
asyncio loop, or the one given) and has every scheduled game not yet recorded played here
(:class:`~rookery.arena.run._local.LocalGames`: a table each, its outcome awaited) or on Ray
(:class:`~rookery.arena.run._ray_backend.RayGames`, handed this class as the runner of each
task's games). A bot that crashes, hangs or replies illegally does not stop the tournament: the
table applies its policy (auto-play and strikes, forfeit, or abort after the join timeout) and
the game is recorded with its termination reason and per-bot statistics.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from rookery.arena._config_model import TournamentConfig
from rookery.arena._config_values import Format
from rookery.arena.launch._lanes import WarmLanes
from rookery.arena.launch._launcher import BotLauncher, is_python_sdk_command
from rookery.arena.launch._supervisor import BotSupervisor
from rookery.arena.records._storage import GameRow
from rookery.arena.run._live import LiveState
from rookery.arena.run._local import LocalGames
from rookery.arena.run._options import TournamentOptions
from rookery.arena.run._ray_backend import RayGames
from rookery.arena.run._recorder import GameRecorder
from rookery.arena.run._schedule import Schedule, ScheduledGame, ScheduleShare, seats_per_table
from rookery.arena.stats._sprt import SprtDecision
from rookery.server import RookeryServer, ServerConfig, TableOutcome

__all__ = [
    "LiveState",
    "RunResult",
    "TournamentOptions",
    "TournamentRunner",
    "seats_per_table",
]

MAX_SCALED_CONCURRENCY = 256
"""The most games at once that scaling reaches (``TournamentOptions.concurrency_scale``)."""


def with_session_limits(config: ServerConfig, games_at_once: int) -> ServerConfig:
    """``config`` with per-session limits for ``games_at_once``: a session may hold a seat at
    every game (a server's default holds 64), and its rate limit grows with its tables (the
    limits as given, by default 2,000 messages/s and a burst of 4,000, per
    ``max_tables_per_session`` tables), so a fast bot's answers at twice the tables are not
    refused as a flood."""
    scale = max(1, math.ceil(games_at_once / config.max_tables_per_session))
    return dataclasses.replace(
        config,
        max_tables_per_session=max(config.max_tables_per_session, games_at_once),
        action_rate=config.action_rate * scale,
        action_burst=config.action_burst * scale,
    )


@dataclass(frozen=True)
class RunResult:
    """What a run did."""

    tournament_id: str
    run_dir: Path
    played: int
    recorded: int
    total: int
    resumed: bool
    sprt_decision: SprtDecision | None
    sprt_llr: float
    wall_s: float
    cancelled: bool
    #: Stopped before a game that would have taken the cost past ``[llm] budget_usd``.
    budget_reached: bool = False


class TournamentRunner:
    """Plays one tournament into a run directory (resuming what is already recorded)."""

    def __init__(
        self,
        config: TournamentConfig,
        run_dir: str | Path,
        *,
        options: TournamentOptions | None = None,
        tournament_id: str | None = None,
        server: RookeryServer | None = None,
        on_progress: Callable[[LiveState], None] | None = None,
        only_indices: Collection[int] | None = None,
    ) -> None:
        self.config = config
        self.run_dir = Path(run_dir)
        self.options = options or TournamentOptions()
        self.tournament_id = tournament_id or config.tournament_id
        self.server: RookeryServer | None = server
        self.schedule = Schedule.from_config(config)
        #: The games this run plays: all, or (``only_indices``) a Ray task's share, whose
        #: driver runs the SPRT.
        self._share = ScheduleShare(
            self.schedule, frozenset(only_indices) if only_indices is not None else None
        )
        self.total = self._share.total
        self.live = LiveState(config.name, self.total, 0, time.monotonic())
        self._stop = asyncio.Event()
        self._recorder = GameRecorder(
            config,
            self.tournament_id,
            self.run_dir,
            self.live,
            group_size=self.schedule.group_size,
            counts_sprt=config.format is Format.SPRT and only_indices is None,
            on_progress=on_progress,
        )
        options = self.options
        self._bots = BotSupervisor(
            config,
            self.run_dir,
            auth=options.auth,
            bot_cores=options.bot_cores,
            connect_timeout_s=options.connect_timeout_s,
            remote_wait_s=options.remote_wait_s,
            warm_processes=options.warm_processes,
            stop=self._stop,
            on_incident=self._recorder.incident,
            on_message=self._recorder.message,
            external_server=server,
        )
        self._local: LocalGames | None = None

    # ------------------------------------------------------------------------- control

    def request_stop(self) -> None:
        """Stop dispatching games; games in flight are aborted and played again on resume."""
        self._stop.set()

    @property
    def launchers(self) -> dict[str, BotLauncher]:
        """The launched bots' launchers, by bot name (once the bots are started)."""
        return self._bots.launchers

    @property
    def lanes(self) -> WarmLanes | None:
        """The warm lanes of sandboxed bots, while the run plays in them."""
        return self._bots.lanes

    @property
    def lane_count(self) -> int:
        """Lanes of the schedule: the games of a round."""
        return self._share.lane_count

    @property
    def games_at_once(self) -> int:
        """Games played at once now (see ``TournamentOptions.concurrency_scale``)."""
        return self._local.games_at_once if self._local is not None else 0

    @property
    def concurrency_limit(self) -> int:
        """The most games at once: the config's concurrency, scaled up where it may be."""
        base = self.config.concurrency
        scale = self.options.concurrency_scale
        scalable = (
            scale > 1
            and not self._bots.process_per_game
            and not self.config.pin_cpus
            and all(not bot.remote and is_python_sdk_command(bot.argv) for bot in self.config.bots)
        )
        return max(base, min(base * scale, MAX_SCALED_CONCURRENCY)) if scalable else base

    def pending(self) -> Iterator[ScheduledGame]:
        """The scheduled games not yet recorded, in schedule order (generated lazily)."""
        return self._share.pending(self._recorder.recorded_indices())

    # ------------------------------------------------------------------------ the run

    async def run(self) -> RunResult:
        """Play every game not yet recorded (or until the SPRT decides) and return a summary."""
        started = time.monotonic()
        try:
            resumed = self._recorder.open(self.schedule.total)
            if self._recorder.is_finished():
                self._recorder.mark_finished()
                return self._result(started, resumed, cancelled=False)
            if self.options.backend == "ray":
                await RayGames(
                    self.config, self.tournament_id, self.options, self._recorder, self._stop
                ).play(
                    self.pending(),
                    group_size=self.schedule.group_size,
                    remaining=self.total - self.live.done,
                    make_runner=TournamentRunner,
                )
            else:
                await self._play_here()
            stopped = self._stop.is_set() or self._server_stopping
            cancelled = (stopped or self._recorder.budget_reached) and not (
                self._recorder.is_finished()
            )
            self._recorder.finish(cancelled=cancelled)
            return self._result(started, resumed, cancelled)
        finally:
            self._recorder.close()

    async def _play_here(self) -> None:
        """The local backend: the server, the bots and the games, all in this process."""
        owns_server = self.server is None
        self._bots.open_sandbox()
        try:
            server = self.server = self.server or await self._start_server()
            server.withhold_replays(self.tournament_id)
            try:
                await self._bots.start(
                    server,
                    games_at_once=self.concurrency_limit,
                    seats={
                        bot.name: seats_per_table(self.schedule, bot.name)
                        for bot in self.config.bots
                    },
                    first_lanes=self._first_lanes(),
                )
                self._local = LocalGames(
                    server,
                    self._bots,
                    self._recorder,
                    self._record,
                    config=self.config,
                    options=self.options,
                    tournament_id=self.tournament_id,
                    share=self._share,
                    stop=self._stop,
                    games_at_most=self.concurrency_limit,
                )
                await self._local.play_all(self.pending())
            finally:
                server.release_replays(self.tournament_id)
                await self._bots.stop()
                if owns_server:
                    await server.stop(grace_s=1.0)
        finally:
            self._bots.close_sandbox()

    def _first_lanes(self) -> dict[int, tuple[str, ...]]:
        """The lanes of the first games to play, as many as play at once: the seat bots of each
        one's first game (their warm processes start before the first game)."""
        first: dict[int, tuple[str, ...]] = {}
        ahead = min(self._share.lane_count, self.config.concurrency)
        for game in itertools.islice(self.pending(), ahead):
            first.setdefault(self._share.lane_of(game), game.seat_bots)
        return first

    async def _start_server(self) -> RookeryServer:
        """The embedded server, started: on the sandbox's Unix socket too when sandboxed."""
        sandbox = self._bots.sandbox
        socket = sandbox.socket_path if sandbox is not None else None
        server = RookeryServer(
            with_session_limits(
                ServerConfig(
                    address=self.options.listen,
                    # Remote bots may check it (the SDK's --expect-server).
                    server_name=_server_name(self.config.name),
                    unix_socket=str(socket) if socket is not None else "",
                    auth=self.options.auth,
                    db=self.options.registry,
                    log_level="warning",
                    time_control=self.config.time_control,
                    join_timeout_s=self.options.join_timeout_s,
                ),
                self.concurrency_limit,
            )
        )
        await server.start()
        return server

    @property
    def _server_stopping(self) -> bool:
        return self.server is not None and self.server.is_stopping

    def _result(self, started: float, resumed: bool, cancelled: bool) -> RunResult:
        sprt = self.live.sprt
        return RunResult(
            tournament_id=self.tournament_id,
            run_dir=self.run_dir,
            played=self.live.played_now,
            recorded=self.live.done,
            total=self.total,
            resumed=resumed,
            sprt_decision=sprt.decision if sprt is not None else None,
            sprt_llr=sprt.llr if sprt is not None else 0.0,
            wall_s=time.monotonic() - started,
            cancelled=cancelled,
            budget_reached=self._recorder.budget_reached,
        )

    async def _record(self, game: ScheduledGame, outcome: TableOutcome, void: str = "") -> GameRow:
        """Record and count a game played here (the recorder's ``record_outcome``)."""
        return await self._recorder.record_outcome(game, outcome, void)


def _server_name(tournament: str) -> str:
    """The name the embedded server gives itself in every Welcome: the tournament's, its
    printable characters, at most 64 (the server's bound)."""
    return "".join(c for c in tournament if c.isprintable())[:64]
