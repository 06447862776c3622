"""The local body of a run: games played on this process's server, N at once.

Workers take the runner's pending games one by one; each game gets its bots' processes (fresh
ones, a warm lane's, or the bots' shared ones), a table on the embedded server, and its outcome
goes to the runner's :class:`~rookery.arena.run._recorder.GameRecorder`. Where the bots answer
fast, more workers are added (``TournamentOptions.concurrency_scale``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator

import structlog
from rookery.arena._config_values import ClockKind
from rookery.arena.errors import BotLaunchError
from rookery.arena.launch._lanes import LaneStartError
from rookery.arena.launch._launcher import (
    EXIT_CANNOT_EXECUTE,
    EXIT_NOT_FOUND,
    GameLaunch,
    LaunchPlan,
    plan_launch,
)
from rookery.arena.launch._sandbox import IncidentKind
from rookery.arena.run._ports import RunState
from rookery.arena.run._schedule import ScheduledGame, bot_seed_key
from rookery.server import Table, TableOutcome, TableSpec, TableStatus
from rookery.v1 import results_pb2

__all__ = ["LocalGames", "launch_sessions"]

log = structlog.get_logger("rookery.arena")

SCALE_LATENCY_SHARE = 0.02
"""The share of the action time under which the bots' mean reply time counts as fast (and under
``TournamentOptions.fast_reply_s``)."""
SCALE_MIN_ACTIONS = 20
"""Actions an interval needs before it decides anything."""


def launch_sessions(plan: LaunchPlan, *, restarts: bool = True) -> int:
    """The sessions a launch key admits at once: those its processes open, twice over when a
    process that exits is restarted (the new one opens its own while the old ones still await
    their resume); a game's processes are never restarted."""
    return (2 if restarts else 1) * plan.processes * plan.sessions


class LocalGames:
    """Plays ``runner``'s pending games on its server (started, with its bots, by the runner)."""

    def __init__(self, runner: RunState) -> None:
        self._runner = runner
        self._active_tables: set[str] = set()
        #: Launched bots that have been seated at a table at least once (process_per_game).
        self._joined: set[str] = set()

    async def play_all(self) -> None:
        """Play the pending games, ``concurrency`` at once (scaled up where it may be), until
        they are all played, a stop is asked for, or a worker fails (its error)."""
        pending = self._runner.pending()
        workers = [
            asyncio.create_task(self._worker(pending, slot))
            for slot in range(self._runner.config.concurrency)
        ]
        self._runner.games_at_once = len(workers)
        stopper: asyncio.Future[object] = asyncio.ensure_future(self._runner._stop.wait())
        everything: asyncio.Future[object] = asyncio.ensure_future(self._all_done(workers))
        scaler = (
            asyncio.ensure_future(self._scale_concurrency(workers, pending))
            if self._runner.concurrency_limit > len(workers)
            else None
        )
        try:
            done, _ = await asyncio.wait({stopper, everything}, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done:
                # Stop requested: abort the games in flight; they are played again on resume.
                assert self._runner.server is not None
                for table_id in list(self._active_tables):
                    with contextlib.suppress(Exception):
                        self._runner.server.abort_table(table_id, "the arena was stopped")
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
        """Doubles the games at once, up to ``concurrency_limit``, while the bots answer fast.

        Fast: over the last ``TournamentOptions.scale_interval_s``, the server's accepted actions
        took on average under ``SCALE_LATENCY_SHARE`` of the action time (and under
        ``fast_reply_s``), so more tables at once cost the bots nothing of their budget; a bot that
        thinks (a search bot uses its time) keeps the configured concurrency. The games played and
        their results do not depend on how many run at once (each is dealt from its own seed).
        """
        assert self._runner.server is not None
        tally = self._runner.server.metrics.actions
        limit = self._runner.concurrency_limit
        share = self._runner.config.time_control.action_ms / 1000 * SCALE_LATENCY_SHARE
        fast_s = min(self._runner.options.fast_reply_s, share)
        accepted, latency = tally.accepted, tally.latency_sum
        while len(workers) < limit:
            await asyncio.sleep(self._runner.options.scale_interval_s)
            count, total = tally.accepted - accepted, tally.latency_sum - latency
            if count < SCALE_MIN_ACTIONS:
                continue  # too few to tell yet
            accepted, latency = tally.accepted, tally.latency_sum
            if total / count >= fast_s or not self._runner.should_dispatch():
                continue
            added = min(len(workers), limit - len(workers))
            workers += [
                asyncio.create_task(self._worker(pending, len(workers) + i)) for i in range(added)
            ]
            self._runner.games_at_once = len(workers)
            log.debug(
                "more games at once", games_at_once=len(workers), mean_latency_s=total / count
            )

    async def _worker(self, pending: Iterator[ScheduledGame], slot: int = 0) -> None:
        while self._runner.should_dispatch():
            if self._runner._awaits_a_cost():
                await asyncio.sleep(0.05)
                continue
            game = next(pending, None)
            if game is None:
                return
            self._runner._in_play += 1
            try:
                await self._play(game, slot)
            finally:
                self._runner._in_play -= 1

    async def _launch_game(self, game: ScheduledGame, slot: int) -> dict[str, GameLaunch]:
        """Fresh processes of each launched bot of the game, keyed to its seats."""
        assert self._runner.server is not None
        launches: dict[str, GameLaunch] = {}
        for name in dict.fromkeys(game.seat_bots):
            launcher = self._runner.launchers.get(name)
            if launcher is None:
                continue  # a remote bot
            seats = game.seat_bots.count(name)
            plan = plan_launch(launcher.bot, 1, seats, 1)
            key = self._runner.server.issue_launch_key(name, launch_sessions(plan, restarts=False))
            try:
                launches[name] = await launcher.start_game(f"game {game.index}", plan, key, slot)
            except OSError as error:
                self._runner.server.revoke_launch_key(key)
                for launch in launches.values():
                    await self._runner.launchers[launch.bot].finish_game(launch)
                raise BotLaunchError(
                    f"bot {name!r}: cannot start {launcher.bot.command!r}: {error}"
                ) from None
        return launches

    async def _end_game(
        self, game: ScheduledGame, launches: dict[str, GameLaunch], outcome: TableOutcome | None
    ) -> None:
        assert self._runner.server is not None
        await asyncio.gather(
            *(
                self._runner.launchers[name].finish_game(launch, joined=name in self._joined)
                for name, launch in launches.items()
            )
        )
        for launch in launches.values():
            self._runner.server.revoke_launch_key(launch.key)
        if outcome is None or self._runner.config.clock is not ClockKind.CPU:
            return
        for seat in outcome.seat_stats:
            if seat.cpu_timeouts and seat.bot_name in launches:
                self._runner._incident(
                    seat.bot_name,
                    IncidentKind.CPU_TIME_EXHAUSTED.value,
                    f"game {game.index} seat {seat.seat}: {seat.cpu_timeouts} move(s) over "
                    "their CPU time",
                )

    async def _lane_keys(self, game: ScheduledGame) -> dict[str, str]:
        """The launch keys of the game's lane, its warm processes started where needed."""
        assert self._runner.lanes is not None
        seats = {n: game.seat_bots.count(n) for n in game.seat_bots if n in self._runner.launchers}
        try:
            return await self._runner.lanes.enter(self._runner.lane_of(game), game.seed, seats)
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    async def _play(self, game: ScheduledGame, slot: int = 0) -> None:
        assert self._runner.server is not None and self._runner.store is not None
        launches = await self._launch_game(game, slot) if self._runner.process_per_game else {}
        lane_keys = await self._lane_keys(game) if self._runner.lanes is not None else {}
        outcome: TableOutcome | None = None
        try:
            outcome = await self._play_table(game, launches, lane_keys)
        finally:
            if launches:
                await self._end_game(game, launches, outcome)
            if self._runner.lanes is not None:
                self._runner.lanes.leave(self._runner.lane_of(game), list(lane_keys))
                if self._runner._last_of_lane(game):
                    await self._runner.lanes.retire(self._runner.lane_of(game))
        if outcome is None:
            return
        stopping = self._runner._stop.is_set() or self._runner._server_stopping
        if stopping and outcome.termination == results_pb2.TERMINATION_REASON_ABORTED:
            return  # aborted by a stop (ours or the server's): played again on resume
        void = self._reported_incidents(outcome.table_id)
        await self._runner._record(game, outcome, void)
        self._runner._notify()

    async def _play_table(
        self,
        game: ScheduledGame,
        launches: dict[str, GameLaunch],
        lane_keys: dict[str, str] | None = None,
    ) -> TableOutcome:
        assert self._runner.server is not None
        table_id = f"{self._runner.tournament_id}-{game.game_id}-{os.getpid()}-{int(time.time())}"
        keys: tuple[str, ...] = ()
        clocks: tuple[Callable[[], float] | None, ...] = ()
        if launches:
            keys = tuple(launches[b].key if b in launches else "" for b in game.seat_bots)
        if lane_keys:
            keys = tuple(lane_keys.get(b, "") for b in game.seat_bots)
        if launches and self._runner.config.clock is ClockKind.CPU:
            by_bot = {name: launch.cpu_seconds for name, launch in launches.items()}
            clocks = tuple(by_bot.get(b) for b in game.seat_bots)  # one clock for all its seats
        spec = TableSpec(
            ruleset=self._runner.config.ruleset,
            seat_bots=game.seat_bots,
            seed=game.seed,
            time_control=self._runner.config.time_control,
            tournament_id=self._runner.tournament_id,
            table_id=table_id,
            join_timeout_s=self._runner.options.join_timeout_s,
            game_number=game.index,
            seat_keys=keys,
            seat_clocks=clocks,
            bot_seed_key=bot_seed_key(self._runner.config.seed),
        )
        table = await self._runner.server.create_table(spec)
        self._active_tables.add(table_id)
        watch = asyncio.create_task(self._watch_joining(table, launches)) if launches else None
        try:
            try:
                outcome = await asyncio.wait_for(
                    table.wait_finished(), self._runner.options.game_timeout_s
                )
            except TimeoutError:
                self._runner.server.abort_table(table_id, "game exceeded the arena's game timeout")
                outcome = await asyncio.wait_for(table.wait_finished(), 30.0)
        finally:
            self._active_tables.discard(table_id)
            if watch is not None:
                watch.cancel()
                await asyncio.gather(watch, return_exceptions=True)
        if watch is not None and not watch.cancelled() and watch.exception() is None:
            gone = watch.result()
            if gone and gone not in self._joined:
                launcher = self._runner.launchers[gone]
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
        assert self._runner.server is not None
        while table.status is TableStatus.WAITING:
            for name, launch in launches.items():
                if all(p.process.returncode is not None for p in launch.processes):
                    self._runner.server.abort_table(
                        table.id, f"bot {name!r} exited before it joined"
                    )
                    return name
            await asyncio.sleep(0.05)
        self._joined.update(launches)
        return ""

    def _reported_incidents(self, table_id: str) -> str:
        """Record the incidents bots reported for ``table_id`` (a text seat's provider errors);
        the game is then void (recorded as aborted, not rated): their text, or ``""``."""
        details = []
        for name, launcher in self._runner.launchers.items():
            try:
                lines = launcher.incident_path.read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            for line in lines:
                try:
                    entry = json.loads(line)
                    if entry.get("table_id") != table_id:
                        continue
                    kind, detail = str(entry["kind"]), str(entry.get("detail", ""))
                except (ValueError, KeyError, AttributeError):
                    continue
                self._runner._incident(name, kind, f"{table_id}: {detail}")
                details.append(f"{name} {kind}: {detail}")
        return "; ".join(details)
