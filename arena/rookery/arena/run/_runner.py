"""Running a tournament: an embedded server, the bots, N games at once, one commit per game.

The runner composes the parts: it opens (or resumes) the run directory, starts the
:class:`~rookery.server.RookeryServer` (embedded in the same asyncio loop, or the one given) and
the bots (``_bots``), then has every scheduled game not yet recorded played here (``_local``: a
table each, its outcome awaited) or on Ray (``_ray_backend``); ``_recorder`` writes each game's
replay file and row and then updates the live ratings and the SPRT. A bot that crashes, hangs
or replies illegally does not stop the tournament: the table applies its policy (auto-play and
strikes, forfeit, or abort after the join timeout) and the game is recorded with its
termination reason and per-bot statistics.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog
from rookery.arena._config_model import TournamentConfig, changed_fields
from rookery.arena._config_values import ClockKind, Format
from rookery.arena.errors import StorageError
from rookery.arena.launch._lanes import WarmLanes
from rookery.arena.launch._launcher import (
    BotLauncher,
    is_python_sdk_command,
)
from rookery.arena.launch._sandbox import (
    IncidentKind,
    SandboxRuntime,
)
from rookery.arena.records._storage import (
    GameRow,
    RunStore,
    TournamentMismatchError,
)
from rookery.arena.run._backend import ChunkResult
from rookery.arena.run._bots import RunBots
from rookery.arena.run._live import LiveState
from rookery.arena.run._local import LocalGames
from rookery.arena.run._options import TournamentOptions
from rookery.arena.run._ray_backend import play_on_ray
from rookery.arena.run._recorder import GameRecorder
from rookery.arena.run._resume import check_commands
from rookery.arena.run._schedule import Schedule, ScheduledGame, seats_per_table
from rookery.arena.stats._ratings import OnlineElo
from rookery.arena.stats._sprt import SprtDecision, SprtTest
from rookery.server import RookeryServer, ServerConfig, TableOutcome

__all__ = [
    "LiveState",
    "RunResult",
    "TournamentOptions",
    "TournamentRunner",
    "play_chunk",
    "seats_per_table",
]

log = structlog.get_logger("rookery.arena")

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


_SANDBOX_KINDS = frozenset(kind.value for kind in IncidentKind)


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
        self._external_server = server
        self.server: RookeryServer | None = server
        self._on_progress = on_progress
        self.schedule = Schedule(
            config.entries,
            config.ruleset,
            config.format,
            config.games,
            duplicate=config.duplicate,
            seed=config.seed,
            teams=config.team_members,
        )
        #: Play only these schedule positions (a Ray task's share); the driver runs the SPRT.
        self.only_indices = frozenset(only_indices) if only_indices is not None else None
        self.total = (
            len(self.only_indices) if self.only_indices is not None else self.schedule.total
        )
        self.store: RunStore | None = None
        self.live = LiveState(config.name, self.total, 0, time.monotonic())
        self.launchers: dict[str, BotLauncher] = {}
        self._stop = asyncio.Event()
        #: Where games become durable and counted, made with ``store``.
        self._recorder: GameRecorder | None = None
        #: The sandbox of this run's launched bots (None: unconfined).
        self.sandbox: SandboxRuntime | None = None
        #: The warm lanes of sandboxed bots (see ``reuses_lanes``), made with the bots.
        self.lanes: WarmLanes | None = None
        #: Games played at once now (see ``TournamentOptions.concurrency_scale``).
        self.games_at_once = 0
        #: Games being played now (the budget counts what they may still cost).
        self._in_play = 0
        self.budget_reached = False

    # ------------------------------------------------------------------------- control

    def request_stop(self) -> None:
        """Stop dispatching games; games in flight are aborted and played again on resume."""
        self._stop.set()

    async def wait_stop_requested(self) -> None:
        """Return once :meth:`request_stop` was called."""
        await self._stop.wait()

    @property
    def is_sprt(self) -> bool:
        """Whether this tournament is an SPRT match."""
        return self.config.format is Format.SPRT

    @property
    def process_per_game(self) -> bool:
        """Whether launched bots get fresh processes for every game (by default only when
        sandboxed with ``clock = "cpu"``, which measures each game's own processes)."""
        chosen = self.config.process_per_game
        if chosen is not None:
            return chosen
        return self.sandbox is not None and self.config.clock is ClockKind.CPU

    @property
    def reuses_lanes(self) -> bool:
        """Whether sandboxed bots play in warm lanes (:mod:`rookery.arena.launch._lanes`):
        the default when sandboxed, where a process never sees two games of one seed."""
        return (
            self.sandbox is not None
            and self.config.process_per_game is None
            and not self.process_per_game
        )

    def lane_of(self, game: ScheduledGame) -> int:
        """The game's lane: its position in its round (a lineup and a rotation). Each round
        has a seed of its own, so a lane plays every seed once."""
        return game.index % self.lane_count

    def _last_of_lane(self, game: ScheduledGame) -> bool:
        """Whether ``game`` is the last its lane plays here (its processes may then stop)."""
        later = range(game.index + self.lane_count, self.schedule.total, self.lane_count)
        if self.only_indices is None:
            return not later
        return not any(index in self.only_indices for index in later)

    @property
    def lane_count(self) -> int:
        """Lanes of the schedule: the games of a round."""
        return self.schedule.groups_per_round * self.schedule.group_size

    @property
    def concurrency_limit(self) -> int:
        """The most games at once: the config's concurrency, scaled up where it may be."""
        base = self.config.concurrency
        scale = self.options.concurrency_scale
        scalable = (
            scale > 1
            and not self.process_per_game
            and not self.config.pin_cpus
            and all(not bot.remote and is_python_sdk_command(bot.argv) for bot in self.config.bots)
        )
        return max(base, min(base * scale, MAX_SCALED_CONCURRENCY)) if scalable else base

    def _notify(self) -> None:
        if self._on_progress is not None:
            self._on_progress(self.live)

    def _message(self, text: str) -> None:
        self.live.messages.append(text)
        log.info(text)
        self._notify()

    # ------------------------------------------------------------------------ the run

    async def run(self) -> RunResult:
        """Play every game not yet recorded (or until the SPRT decides) and return a summary."""
        started = time.monotonic()
        store = RunStore(self.run_dir)
        self.store = store
        self._recorder = GameRecorder(
            self.config, self.tournament_id, self.schedule.group_size, store, self.live
        )
        try:
            try:
                resumed = store.open_tournament(
                    self.tournament_id,
                    self.config.name,
                    self.config.to_dict(),
                    self.config.fingerprint(),
                    self.schedule.total,
                )
            except TournamentMismatchError as error:
                changes = "; ".join(changed_fields(error.stored, self.config.to_dict()))
                raise StorageError(
                    f"{self.run_dir} holds tournament {self.tournament_id!r} with another "
                    f"configuration: {changes or 'its schedule changed'}; run it as it was, or "
                    "use another --out directory for the new one"
                ) from None
            if resumed:
                check_commands(store, self.config, self.tournament_id, self.run_dir)
            for bot in self.config.bots:
                store.add_bot(self.tournament_id, bot.name, bot.command, bot.remote)
            self._restore(store)
            if self._finished_already():
                store.finish(self.tournament_id)
                return self._result(started, resumed, cancelled=False)
            if self.options.backend == "ray":
                await play_on_ray(self, play_chunk)
                return self._finish(store, started, resumed)
            owns_server = self.server is None
            bots = RunBots(self, self._external_server)
            self.sandbox = bots.make_sandbox()
            try:
                if self.server is None:
                    socket = self.sandbox.socket_path if self.sandbox is not None else None
                    self.server = RookeryServer(
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
                    await self.server.start()
                self.server.withhold_replays(self.tournament_id)
                try:
                    await bots.start()
                    await LocalGames(self).play_all()
                finally:
                    self.server.release_replays(self.tournament_id)
                    await bots.stop()
                    if owns_server:
                        await self.server.stop(grace_s=1.0)
            finally:
                bots.close_sandbox()
            return self._finish(store, started, resumed)
        finally:
            store.close()
            self.store = None
            self._recorder = None

    def _finish(self, store: RunStore, started: float, resumed: bool) -> RunResult:
        stopped = self._stop.is_set() or self._server_stopping or self.budget_reached
        cancelled = stopped and not self._finished_already()
        if self.live.sprt is not None:
            store.set_sprt(self.tournament_id, self.live.sprt.decision.value, self.live.sprt.llr)
        store.finish(self.tournament_id, "cancelled" if cancelled else "finished")
        return self._result(started, resumed, cancelled)

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
            budget_reached=self.budget_reached,
        )

    def _finished_already(self) -> bool:
        if self.live.sprt is not None and self.live.sprt.decision is not SprtDecision.CONTINUE:
            return True
        return self.live.done >= self.total

    def _restore(self, store: RunStore) -> None:
        """Rebuild the live state from the games already recorded (resume)."""
        self.live.elo = OnlineElo(k=self.config.elo_k)
        if self.is_sprt and self.only_indices is None:
            self.live.sprt = SprtTest(self.config.sprt)
        assert self._recorder is not None
        for row in store.iter_games(self.tournament_id):
            self._recorder.account(row)
        self.live.played_now = 0
        self.live.started_at = time.monotonic()

    # -------------------------------------------------------------------------- bots

    def _incident(self, bot: str, kind: str, detail: str) -> None:
        if self.store is not None:
            self.store.record_incident(self.tournament_id, bot, kind, detail)
        if kind == "crash" or kind in _SANDBOX_KINDS:
            self.live.incidents[bot] = self.live.incidents.get(bot, 0) + 1
        self._message(f"{bot}: {kind}: {detail}")

    # ------------------------------------------------------------------------- games

    def pending(self) -> Iterator[ScheduledGame]:
        """The scheduled games not yet recorded, in schedule order (generated lazily)."""
        assert self.store is not None
        recorded = self.store.recorded_indices(self.tournament_id)
        for game in self.schedule.games():
            if game.index in recorded:
                continue
            if self.only_indices is None or game.index in self.only_indices:
                yield game

    def should_dispatch(self) -> bool:
        """Whether to start more games: not stopped, and the SPRT (if any) still undecided."""
        if self._stop.is_set() or self._server_stopping:
            return False
        sprt = self.live.sprt
        if sprt is not None and sprt.decision is not SprtDecision.CONTINUE:
            return False
        return self._within_budget()

    def _awaits_a_cost(self) -> bool:
        """With a budget and no game's cost known yet, one game at a time: the first cost
        recorded is what the budget's estimate starts from."""
        return (
            self.config.llm_budget_usd is not None
            and self.live.costed_games == 0
            and self._in_play > 0
        )

    def _within_budget(self) -> bool:
        """Whether one more game keeps the language-model seats' cost within the budget: what
        was spent, plus a game's mean cost so far for it and for each game in play."""
        budget = self.config.llm_budget_usd
        if budget is None or self.budget_reached:
            return not self.budget_reached
        live = self.live
        per_game = live.cost_usd / live.costed_games if live.costed_games else 0.0
        expected = live.cost_usd + per_game * (self._in_play + 1)
        if expected <= budget:
            return True
        self.budget_reached = True
        self._message(
            f"budget reached: ${live.cost_usd:.4f} spent of ${budget:g} (about ${per_game:.4f} "
            "a game); no more games are started. Raise [llm] budget_usd and run again with "
            "--resume to continue"
        )
        log.info("budget reached", cost_usd=live.cost_usd, budget_usd=budget)
        return False

    async def _record(self, game: ScheduledGame, outcome: TableOutcome, void: str = "") -> GameRow:
        """Record and count a game played here (the recorder's ``record_outcome``)."""
        assert self._recorder is not None
        return await self._recorder.record_outcome(game, outcome, void)

    async def record_played(self, row: GameRow, replay: bytes) -> bool:
        """Record a game played elsewhere (a Ray task): its row and its replay file's bytes.

        A game already recorded (a retried task's duplicate) is skipped: False.
        """
        assert self._recorder is not None
        if not await self._recorder.record_played(row, replay):
            return False
        self._notify()
        return True

    def record_incident(self, bot: str, kind: str, detail: str) -> None:
        """Record a bot incident that happened elsewhere (a Ray task)."""
        self._incident(bot, kind, detail)

    def set_bot_version(self, bot: str, version: str) -> None:
        """Store the version a bot announced elsewhere (a Ray task)."""
        if self._recorder is not None:
            self._recorder.note_bot_version(bot, version)


def estimated_seconds(runner: TournamentRunner) -> float | None:
    """Seconds left at the current rate, or None before the first game."""
    eta = runner.live.eta_s
    return None if eta is None or math.isinf(eta) else eta


def _server_name(tournament: str) -> str:
    """The name the embedded server gives itself in every Welcome: the tournament's, its
    printable characters, at most 64 (the server's bound)."""
    return "".join(c for c in tournament if c.isprintable())[:64]


def play_chunk(
    config: TournamentConfig,
    tournament_id: str,
    indices: Sequence[int],
    join_timeout_s: float,
    connect_timeout_s: float,
    game_timeout_s: float,
    cpus: float = 1.0,
) -> ChunkResult:
    """Play the games at ``indices`` here (a Ray task's body, a ``backend.ChunkPlayer``; plain
    Python, no Ray needed).

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
        runner = TournamentRunner(
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
