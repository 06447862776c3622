"""The local body of a run: games played on this process's server, N at once.

Workers take the run's pending games one by one; each game gets its bots' processes from the
:class:`~rookery.arena.launch._supervisor.BotSupervisor` (fresh ones, a warm lane's, or the
bots' shared ones), a table on the embedded server, and its outcome goes to the
:class:`~rookery.arena.run._recorder.GameRecorder`. Where the bots answer fast, more workers are
added (``TournamentOptions.concurrency_scale``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Iterator

import structlog
from rookery.arena._config_model import TournamentConfig
from rookery.arena._config_values import ClockKind
from rookery.arena.errors import BotLaunchError
from rookery.arena.launch._launcher import EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND, GameLaunch
from rookery.arena.launch._sandbox import IncidentKind
from rookery.arena.launch._supervisor import BotSupervisor
from rookery.arena.records._storage import GameRow
from rookery.arena.run._options import TournamentOptions
from rookery.arena.run._recorder import GameRecorder
from rookery.arena.run._schedule import ScheduledGame, ScheduleShare, bot_seed_key
from rookery.server import RookeryServer, Table, TableOutcome, TableSpec, TableStatus
from rookery.v1 import results_pb2

__all__ = ["LocalGames", "RecordGame"]

log = structlog.get_logger("rookery.arena")

SCALE_LATENCY_SHARE = 0.02
"""The share of the action time under which the bots' mean reply time counts as fast (and under
``TournamentOptions.fast_reply_s``)."""
SCALE_MIN_ACTIONS = 20
"""Actions an interval needs before it decides anything."""

RecordGame = Callable[[ScheduledGame, TableOutcome, str], Awaitable[GameRow]]
"""``(game, outcome, void)``: record and count a game played here (``GameRecorder.record_outcome``
as the runner hands it over)."""


class LocalGames:
    """Plays a run's pending games on ``server``, with the bots of ``bots`` (started), into
    ``recorder`` (through ``record``), until they are all played or ``stop`` is set."""

    def __init__(
        self,
        server: RookeryServer,
        bots: BotSupervisor,
        recorder: GameRecorder,
        record: RecordGame,
        *,
        config: TournamentConfig,
        options: TournamentOptions,
        tournament_id: str,
        share: ScheduleShare,
        stop: asyncio.Event,
        games_at_most: int,
    ) -> None:
        self._server = server
        self._bots = bots
        self._recorder = recorder
        self._record = record
        self._config = config
        self._options = options
        self._tournament_id = tournament_id
        self._share = share
        self._stop = stop
        self._games_at_most = games_at_most
        self._active_tables: set[str] = set()
        #: Games being played now (the budget counts what they may still cost).
        self._in_play = 0
        #: Games played at once now (see ``TournamentOptions.concurrency_scale``).
        self.games_at_once = 0

    def should_dispatch(self) -> bool:
        """Whether to start more games: not stopped, and the recorder lets one more start."""
        if self._stop.is_set() or self._server.is_stopping:
            return False
        return self._recorder.may_start(self._in_play)

    async def play_all(self, pending: Iterator[ScheduledGame]) -> None:
        """Play the games of ``pending``, ``concurrency`` at once (scaled up to
        ``games_at_most`` where it may be), until they are all played, a stop is asked for, or
        a worker fails (its error)."""
        workers = [
            asyncio.create_task(self._worker(pending, slot))
            for slot in range(self._config.concurrency)
        ]
        self.games_at_once = len(workers)
        stopper: asyncio.Future[object] = asyncio.ensure_future(self._stop.wait())
        everything: asyncio.Future[object] = asyncio.ensure_future(self._all_done(workers))
        scaler = (
            asyncio.ensure_future(self._scale_concurrency(workers, pending))
            if self._games_at_most > len(workers)
            else None
        )
        try:
            done, _ = await asyncio.wait({stopper, everything}, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done:
                # Stop requested: abort the games in flight; they are played again on resume.
                for table_id in list(self._active_tables):
                    with contextlib.suppress(Exception):
                        self._server.abort_table(table_id, "the arena was stopped")
                await asyncio.gather(*workers, return_exceptions=True)
            elif everything in done:
                everything.result()  # a worker's BotLaunchError stops the run with its message
        finally:
            if scaler is not None:
                scaler.cancel()
                await asyncio.gather(scaler, return_exceptions=True)
            stopper.cancel()
            for worker in workers:
                worker.cancel()
            everything.cancel()
            await asyncio.gather(*workers, stopper, everything, return_exceptions=True)

    @staticmethod
    async def _all_done(workers: list[asyncio.Task[None]]) -> None:
        """Until every worker is done, workers added on the way included; the first error."""
        while True:
            count = len(workers)
            await asyncio.gather(*workers)
            if len(workers) == count:
                return

    async def _scale_concurrency(
        self, workers: list[asyncio.Task[None]], pending: Iterator[ScheduledGame]
    ) -> None:
        """Doubles the games at once, up to ``games_at_most``, while the bots answer fast.

        Fast: over the last ``TournamentOptions.scale_interval_s``, the server's accepted actions
        took on average under ``SCALE_LATENCY_SHARE`` of the action time (and under
        ``fast_reply_s``), so more tables at once cost the bots nothing of their budget; a bot that
        thinks (a search bot uses its time) keeps the configured concurrency. The games played and
        their results do not depend on how many run at once (each is dealt from its own seed).
        """
        tally = self._server.metrics.actions
        limit = self._games_at_most
        share = self._config.time_control.action_ms / 1000 * SCALE_LATENCY_SHARE
        fast_s = min(self._options.fast_reply_s, share)
        accepted, latency = tally.accepted, tally.latency_sum
        while len(workers) < limit:
            await asyncio.sleep(self._options.scale_interval_s)
            count, total = tally.accepted - accepted, tally.latency_sum - latency
            if count < SCALE_MIN_ACTIONS:
                continue  # too few to tell yet
            accepted, latency = tally.accepted, tally.latency_sum
            if total / count >= fast_s or not self.should_dispatch():
                continue
            added = min(len(workers), limit - len(workers))
            workers += [
                asyncio.create_task(self._worker(pending, len(workers) + i)) for i in range(added)
            ]
            self.games_at_once = len(workers)
            log.debug(
                "more games at once", games_at_once=len(workers), mean_latency_s=total / count
            )

    async def _worker(self, pending: Iterator[ScheduledGame], slot: int = 0) -> None:
        while self.should_dispatch():
            if self._recorder.awaits_a_cost(self._in_play):
                await asyncio.sleep(0.05)
                continue
            game = next(pending, None)
            if game is None:
                return
            self._in_play += 1
            try:
                await self._play(game, slot)
            finally:
                self._in_play -= 1

    def _note_cpu_timeouts(
        self, game: ScheduledGame, outcome: TableOutcome, launches: dict[str, GameLaunch]
    ) -> None:
        """A bot whose fresh processes went over a move's CPU time: an incident of the game."""
        for seat in outcome.seat_stats:
            if seat.cpu_timeouts and seat.bot_name in launches:
                self._recorder.incident(
                    seat.bot_name,
                    IncidentKind.CPU_TIME_EXHAUSTED.value,
                    f"game {game.index} seat {seat.seat}: {seat.cpu_timeouts} move(s) over "
                    "their CPU time",
                )

    async def _play(self, game: ScheduledGame, slot: int = 0) -> None:
        bots = self._bots
        lanes = bots.lanes is not None
        launches = (
            await bots.start_game(game.index, game.seat_bots, slot) if bots.process_per_game else {}
        )
        lane = self._share.lane_of(game)
        lane_keys = await bots.enter_lane(lane, game.seed, game.seat_bots) if lanes else {}
        outcome: TableOutcome | None = None
        try:
            outcome = await self._play_table(game, launches, lane_keys)
        finally:
            if launches:
                await bots.finish_game(launches)
                if outcome is not None and self._config.clock is ClockKind.CPU:
                    self._note_cpu_timeouts(game, outcome, launches)
            if lanes:
                last = self._share.is_last_of_lane(game)
                await bots.leave_lane(lane, list(lane_keys), last=last)
        if outcome is None:
            return
        stopping = self._stop.is_set() or self._server.is_stopping
        if stopping and outcome.termination == results_pb2.TERMINATION_REASON_ABORTED:
            return  # aborted by a stop (ours or the server's): played again on resume
        void = bots.reported_incidents(outcome.table_id)
        await self._record(game, outcome, void)

    async def _play_table(
        self,
        game: ScheduledGame,
        launches: dict[str, GameLaunch],
        lane_keys: dict[str, str] | None = None,
    ) -> TableOutcome:
        table_id = f"{self._tournament_id}-{game.game_id}-{os.getpid()}-{int(time.time())}"
        keys: tuple[str, ...] = ()
        clocks: tuple[Callable[[], float] | None, ...] = ()
        if launches:
            keys = tuple(launches[b].key if b in launches else "" for b in game.seat_bots)
        if lane_keys:
            keys = tuple(lane_keys.get(b, "") for b in game.seat_bots)
        if launches and self._config.clock is ClockKind.CPU:
            by_bot = {name: launch.cpu_seconds for name, launch in launches.items()}
            clocks = tuple(by_bot.get(b) for b in game.seat_bots)  # one clock for all its seats
        spec = TableSpec(
            ruleset=self._config.ruleset,
            seat_bots=game.seat_bots,
            seed=game.seed,
            time_control=self._config.time_control,
            tournament_id=self._tournament_id,
            table_id=table_id,
            join_timeout_s=self._options.join_timeout_s,
            game_number=game.index,
            seat_keys=keys,
            seat_clocks=clocks,
            bot_seed_key=bot_seed_key(self._config.seed),
        )
        table = await self._server.create_table(spec)
        self._active_tables.add(table_id)
        watch = asyncio.create_task(self._watch_joining(table, launches)) if launches else None
        try:
            try:
                outcome = await asyncio.wait_for(
                    table.wait_finished(), self._options.game_timeout_s
                )
            except TimeoutError:
                self._server.abort_table(table_id, "game exceeded the arena's game timeout")
                outcome = await asyncio.wait_for(table.wait_finished(), 30.0)
        finally:
            self._active_tables.discard(table_id)
            if watch is not None:
                watch.cancel()
                await asyncio.gather(watch, return_exceptions=True)
        if watch is not None and not watch.cancelled() and watch.exception() is None:
            gone = watch.result()
            if gone and gone not in self._bots.joined:
                launcher = self._bots.launchers[gone]
                codes = {p.process.returncode for p in launches[gone].processes}
                missing = codes <= {EXIT_NOT_FOUND, EXIT_CANNOT_EXECUTE}
                why = "could not start its program" if missing else "kept exiting"
                raise BotLaunchError(
                    f"bot {gone!r} did not open {game.seat_bots.count(gone)} session(s): it "
                    f"{why} (command: {launcher.bot.command!r}); the end of "
                    f"{launcher.log_path}:\n{launcher.log_tail()}"
                )
        return outcome

    async def _watch_joining(self, table: Table, launches: dict[str, GameLaunch]) -> str:
        """Abort a table at once when a bot's fresh processes all exit before it is seated;
        the bot's name then ("" once every bot is seated)."""
        while table.status is TableStatus.WAITING:
            for name, launch in launches.items():
                if all(p.process.returncode is not None for p in launch.processes):
                    self._server.abort_table(table.id, f"bot {name!r} exited before it joined")
                    return name
            await asyncio.sleep(0.05)
        self._bots.joined.update(launches)
        return ""
