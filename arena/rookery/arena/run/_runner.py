"""Running a tournament: an embedded server, the bots, N games at once, one commit per game.

For each scheduled game that is not yet recorded the runner creates a table on the
:class:`~rookery.server.RookeryServer` (embedded in the same asyncio loop, or the one given),
awaits its outcome, writes the replay file, commits the game's row and updates the live ratings
and the SPRT. A bot that crashes, hangs or replies illegally does not stop the tournament: the
table applies its policy (auto-play and strikes, forfeit, or abort after the join timeout) and
the game is recorded with its termination reason and per-bot statistics.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog
from rookery.arena._config_model import TournamentConfig, changed_fields
from rookery.arena._config_seats import is_house_seat
from rookery.arena._config_values import BotSpec, ClockKind, Format
from rookery.arena.errors import BotLaunchError, SandboxUnavailableError, StorageError
from rookery.arena.launch._commands import working_folder
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import (
    EXIT_CANNOT_EXECUTE,
    EXIT_NOT_FOUND,
    BotLauncher,
    GameLaunch,
    LaunchPlan,
    cores_per_bot,
    is_python_sdk_command,
    plan_launch,
)
from rookery.arena.launch._sandbox import (
    IncidentKind,
    SandboxMode,
    SandboxRuntime,
    bot_folder,
    cpu_sets,
    probe,
)
from rookery.arena.records._storage import (
    GameRow,
    RunStore,
    TournamentMismatchError,
)
from rookery.arena.run._backend import ChunkResult
from rookery.arena.run._live import LiveState
from rookery.arena.run._ray_backend import play_on_ray
from rookery.arena.run._recorder import GameRecorder
from rookery.arena.run._schedule import Schedule, ScheduledGame, bot_seed_key
from rookery.arena.stats._ratings import OnlineElo
from rookery.arena.stats._sprt import SprtDecision, SprtTest
from rookery.server import (
    RookeryServer,
    ServerConfig,
    Table,
    TableOutcome,
    TableSpec,
    TableStatus,
)
from rookery.v1 import results_pb2

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
SCALE_INTERVAL_S = 0.5
"""How often the games at once are reconsidered."""
SCALE_LATENCY_SHARE = 0.02
"""The share of the action time under which the bots' mean reply time counts as fast (and under
``TournamentOptions.fast_reply_s``)."""
SCALE_MIN_ACTIONS = 20
"""Actions an interval needs before it decides anything."""


@dataclass(frozen=True)
class TournamentOptions:
    """How to run, beyond the tournament itself (nothing here changes which games are played)."""

    #: Where the embedded server listens; remote bots need a fixed, reachable address.
    listen: str = "127.0.0.1:0"
    #: ``open`` (any bot name) or ``token`` (bots need registry tokens).
    auth: str = "open"
    #: The token registry (SQLite) in token mode.
    registry: str = ""
    #: Seconds a launched bot has to connect at the start.
    connect_timeout_s: float = 60.0
    #: Seconds to wait for remote bots to connect at the start.
    remote_wait_s: float = 600.0
    #: Seconds a table waits for its bots before it is aborted.
    join_timeout_s: float = 60.0
    #: A game still running after this many seconds is aborted.
    game_timeout_s: float = 3600.0
    #: Cores the launched Python SDK bots may spread over (0: this machine's cores).
    bot_cores: int = 0
    #: Where the games are played: ``local`` (this process's server) or ``ray`` (Ray tasks).
    backend: str = "local"
    #: The Ray cluster to join (``ray://host:10001`` or ``host:6379``); empty: a local Ray.
    ray_address: str = ""
    #: Games per Ray task, rounded up to whole duplicate groups; 0 picks a size.
    ray_games_per_task: int = 0
    #: Times Ray runs a task again after its worker died.
    ray_max_retries: int = 3
    #: A directory Ray ships to every worker (``runtime_env`` ``working_dir``): the tasks run in
    #: it, so bot commands relative to it work there. Empty: nothing shipped.
    ray_working_dir: str = ""
    #: CPUs a Ray task reserves: its server and bots (more for bots that use several cores).
    ray_cpus_per_task: float = 1.0
    #: Seconds to wait for ``ray_address`` to answer before giving up with an error.
    ray_connect_timeout_s: float = 60.0
    #: Up to this many times the config's ``concurrency`` games at once (at most
    #: ``MAX_SCALED_CONCURRENCY``) while the bots answer fast, see ``_scale_concurrency``; 1 keeps
    #: the concurrency fixed. Only where every bot is a launched Python SDK bot that keeps its
    #: processes (their sessions take any number of tables); elsewhere the concurrency is fixed.
    #: 128: a machine of two cores (the default concurrency 2) reaches 256 games at once. A bot
    #: of a round-robin holds a whole side (two seats, two sessions) at half the games, so each
    #: session then holds 128 tables, twice what the server benchmark's sessions hold: twice the
    #: requests to batch per gRPC message, and each gRPC message costs the server far more than
    #: an action in it (at 64 games, 5 actions per message; at 128, 9; at 256, about 18, for
    #: about a tenth less of the arena's CPU per action than at 128).
    concurrency_scale: int = 128
    #: The bots' mean reply time under which more games at once cost them nothing (at most a
    #: fiftieth of the action time is used, whichever is less).
    fast_reply_s: float = 0.05
    #: Seconds between two looks at the bots' reply times (``SCALE_INTERVAL_S``).
    scale_interval_s: float = SCALE_INTERVAL_S
    #: The most warm sandboxed bot processes kept over all lanes
    #: (:mod:`rookery.arena.launch._lanes`): past it the idle ones used longest ago are stopped,
    #: and started again when needed.
    warm_processes: int = 64


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


def seats_per_table(schedule: Schedule, bot: str) -> int:
    """The most seats ``bot`` holds at one table of the schedule (sessions it needs at once)."""
    most = 0
    seats_per_side = [schedule.ruleset.seats_of_side(s) for s in range(schedule.sides)]
    for lineup in schedule.lineups:
        seats = 0
        for side, entry in enumerate(lineup):
            members = schedule.teams.get(entry, (entry,))
            seats += sum(
                1 for i in range(len(seats_per_side[side])) if members[i % len(members)] == bot
            )
        most = max(most, seats)
    return max(1, most)


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
        self._active_tables: set[str] = set()
        #: The sandbox of this run's launched bots (None: unconfined).
        self.sandbox: SandboxRuntime | None = None
        #: The warm lanes of sandboxed bots (see ``reuses_lanes``), made with the bots.
        self.lanes: WarmLanes | None = None
        #: Launched bots that have been seated at a table at least once (process_per_game).
        self._joined: set[str] = set()
        self._socket_dir: Path | None = None
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

    def _make_sandbox(self) -> SandboxRuntime | None:
        """The sandbox the config asks for, if this machine can make it (``on``: or refuse)."""
        mode = self.config.sandbox
        launched = [b for b in self.config.bots if not b.remote and not is_house_seat(b)]
        if mode is SandboxMode.OFF or not launched:
            return None
        why = ""
        support = probe()
        if not support.available:
            why = support.describe()
        elif self._external_server is not None and not self._external_server.config.unix_socket:
            why = "no sandbox: the arena plays on a server without a Unix socket for its bots"
        if why:
            if mode is SandboxMode.ON:
                raise SandboxUnavailableError(f"sandbox = 'on' but {why}")
            self._message(f"bots run unconfined: {why}")
            return None
        missing = [str(p) for p in self.config.sandbox_paths if not p.exists()]
        missing += [
            b.folder for b in launched if b.folder and not (_launch_folder(b) or Path()).is_dir()
        ]
        if missing:
            raise SandboxUnavailableError(
                f"cannot mount into the sandbox what does not exist: {', '.join(missing)} "
                "(sandbox_paths, bots.folder)"
            )
        if self._external_server is not None:
            # A running server (`rookery serve`): its bots reach it through its own socket.
            socket = Path(self._external_server.config.unix_socket)
        else:
            self._socket_dir = Path(tempfile.mkdtemp(prefix="rookery-server-"))
            self._socket_dir.chmod(0o711)
            socket = self._socket_dir / "server.sock"
        slots = self.config.concurrency if self.config.pin_cpus else 0
        runtime = SandboxRuntime(
            support,
            self.config.limits,
            socket,
            read_only=self.config.sandbox_paths,
            cpu_sets=cpu_sets(slots) if slots else (),
            run_dirs=(self.run_dir,),
            bot_folders=tuple(
                folder for bot in launched if (folder := _launch_folder(bot)) is not None
            ),
        )
        self._message(f"sandbox: {support.describe()}")
        return runtime

    def _close_sandbox(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

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
                self._check_commands(store)
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
            self.sandbox = self._make_sandbox()
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
                    await self._start_bots()
                    await self._play_all()
                finally:
                    self.server.release_replays(self.tournament_id)
                    await self._stop_bots()
                    if owns_server:
                        await self.server.stop(grace_s=1.0)
            finally:
                self._close_sandbox()
            return self._finish(store, started, resumed)
        finally:
            store.close()
            self.store = None
            self._recorder = None

    def _check_commands(self, store: RunStore) -> None:
        """A resumed bot keeps its command once it has played: two builds would be mixed.

        A bot with no game recorded yet (a failed start, say) may change it; the change is
        recorded as a ``command_changed`` incident.
        """
        changed = {
            record.name: record.command
            for record in store.bots(self.tournament_id)
            if not record.remote
            and record.name in {b.name for b in self.config.bots}
            and record.command != self.config.bot(record.name).command
        }
        if not changed:
            return
        played = dict.fromkeys(changed, 0)
        for row in store.iter_games(self.tournament_id):
            for name in set(row.seat_bots) & set(changed):
                played[name] += 1
        for name, old in changed.items():
            new = self.config.bot(name).command
            if played[name]:
                raise StorageError(
                    f"{self.run_dir}: bot {name!r} played {played[name]} recorded game(s) as "
                    f"{old!r}; resuming it as {new!r} would mix two builds in one tournament: "
                    "give the new build another name, or use another --out directory"
                )
            store.record_incident(self.tournament_id, name, "command_changed", f"{old} -> {new}")

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

    async def _start_bots(self) -> None:
        assert self.server is not None and self.store is not None
        server = self.server
        # The launched bots all play at once: a Python SDK bot's processes share the cores with
        # the others' (one each for as many bots as cores). More processes than cores only
        # split each session's tables and batches finer: measured with four fast bots on two
        # cores (three alternated pairs, medians), 4,900 actions/s at 158 µs of arena CPU per
        # action with two processes each, 6,300 at 124 µs with one.
        launched = sum(1 for bot in self.config.bots if not bot.remote)
        cores = cores_per_bot(self.options.bot_cores, launched)
        for bot in self.config.bots:
            if bot.remote:
                continue
            token = ""
            if self.options.auth == "token":
                with contextlib.suppress(LookupError):
                    server.bots.remove(bot.name)
                _, token = server.bots.add(bot.name)
            seats = seats_per_table(self.schedule, bot.name)
            plan = plan_launch(bot, self.concurrency_limit, seats, cores)
            if self.reuses_lanes:
                # A lane's processes: one a bot (a Python SDK bot's sessions hold its tables).
                plan = plan_launch(bot, self.concurrency_limit, seats, 1)
            if self.sandbox is not None and not self.process_per_game and not self.reuses_lanes:
                # The sandbox's Unix socket admits only sessions with a launch key.
                token = server.issue_launch_key(bot.name, _launch_sessions(plan))
            # The house's language-model seat (config.house_seat: Rookery's own code, its model
            # and URL alone) reaches its model's API, so it runs outside the sandbox, as the
            # organiser's own process; every other launched bot runs in it.
            house = is_house_seat(bot)
            runtime = None if house else self.sandbox
            folder = None if house else _launch_folder(bot)
            if runtime is not None and folder is not None:
                _check_folder_is_open(bot.name, folder)
            launcher = BotLauncher(
                self._house_seat_spec(bot) if house else self._launch_spec(bot),
                plan,
                server.target,
                token,
                self.run_dir / "logs" / f"{bot.name}.log",
                self._incident,
                runtime=runtime,
                folder=folder,
            )
            self.launchers[bot.name] = launcher
            if self.process_per_game or self.reuses_lanes:
                continue  # started for each game (see _launch_game), or each lane (_lane_keys)
            try:
                await launcher.start()
            except OSError as error:
                raise BotLaunchError(
                    f"bot {bot.name!r}: cannot start {bot.command!r}: {error}"
                ) from None
        for bot in self.config.bots:
            seats = seats_per_table(self.schedule, bot.name)
            if bot.remote:
                await self._wait_remote(bot, seats)
            elif not self.process_per_game and not self.reuses_lanes:
                await self._wait_launched(bot, seats)
        if self.reuses_lanes:
            self.lanes = WarmLanes(
                self._lane_launcher,
                self._lane_sessions,
                max_processes=self.options.warm_processes,
                connect_timeout_s=self.options.connect_timeout_s,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )
            await self._warm_lanes()

    async def _warm_lanes(self) -> None:
        """Start the lanes of the first games to play, as many as play at once, before the
        first game (the others start with their first game; a lane's bots are the same in
        every round). Not every lane ahead: a tournament of one round plays each lane once, and
        starting all its processes at once only loads the machine."""
        assert self.lanes is not None
        ahead: dict[int, dict[str, int]] = {}
        first = min(self.lane_count, self.config.concurrency)
        for game in itertools.islice(self.pending(), first):
            seats = {n: game.seat_bots.count(n) for n in game.seat_bots if n in self.launchers}
            ahead.setdefault(self.lane_of(game), seats)
        try:
            await self.lanes.warm_all(ahead)
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    def _lane_launcher(self, name: str, lane: int) -> tuple[BotLauncher, str]:
        """A launcher of bot ``name``'s warm processes in ``lane``, under a launch key of its
        own (what the lane's tables bind its seats to)."""
        assert self.server is not None
        model = self.launchers[name]
        key = self.server.issue_launch_key(name, _launch_sessions(model.plan))
        launcher = BotLauncher(
            model.bot,
            model.plan,
            model.server_target,
            key,
            model.log_path,
            self._incident,
            runtime=model.runtime,
            folder=model.folder,
            label=f"lane {lane}",
        )
        return launcher, key

    def _lane_sessions(self, name: str, key: str) -> int:
        assert self.server is not None
        return sum(1 for s in self.server.sessions.get(name, ()) if s.launch_key == key)

    def _launch_spec(self, bot: BotSpec) -> BotSpec:
        """``bot`` as launched (:meth:`TournamentConfig.launch_spec`); a language-model seat
        also records every decision, with each refused attempt's reason, in
        ``logs/BOT.decisions.jsonl`` of the run (``ROOKERY_TEXT_RECORD``) unless it names a file."""
        spec = self.config.launch_spec(bot)
        if "ROOKERY_CHAT_URL" not in spec.env or "ROOKERY_TEXT_RECORD" in spec.env:
            return spec
        record = self.run_dir.absolute() / "logs" / f"{bot.name}.decisions.jsonl"
        return dataclasses.replace(spec, env={**spec.env, "ROOKERY_TEXT_RECORD": str(record)})

    def _house_seat_spec(self, bot: BotSpec) -> BotSpec:
        """A house seat as launched: in an empty folder of the run's own (``house-seat/``), since
        ``python -m`` puts its working folder first on the import path and the arena's current
        folder may hold an entrant's files (a ``json.py`` there would run unconfined)."""
        folder = self.run_dir.absolute() / "house-seat"
        folder.mkdir(parents=True, exist_ok=True)
        stray = next(folder.iterdir(), None)
        if stray is not None:
            raise BotLaunchError(f"bot {bot.name!r}: {folder} must be empty; {stray.name} is in it")
        return dataclasses.replace(self._launch_spec(bot), workdir=str(folder))

    async def _wait_launched(self, bot: BotSpec, seats: int) -> None:
        assert self.server is not None
        launcher = self.launchers[bot.name]
        deadline = time.monotonic() + self.options.connect_timeout_s
        while True:
            if self._stop.is_set():
                return  # a stop asked for while it connects: nothing is played
            try:
                await self.server.wait_for_bot(bot.name, sessions=seats, timeout=0.25)
                launcher.in_play = True  # from now on an exit is a crash of a playing bot
                return
            except TimeoutError:
                pass
            # A command that exits before it connects (each process once) will not connect, nor
            # will a program that does not exist: fail fast, without restarting it further.
            gave_up = launcher.not_found or launcher.crashes >= launcher.plan.processes
            if gave_up or time.monotonic() > deadline:
                break
        log_path = self.run_dir / "logs" / f"{bot.name}.log"
        if launcher.not_found:
            why = "could not start its program"
        elif gave_up:
            why = "kept exiting before it connected"
        else:
            why = f"did not connect within {self.options.connect_timeout_s:g} s"
        raise BotLaunchError(
            f"bot {bot.name!r} did not open {seats} session(s): it {why} "
            f"(command: {bot.command!r}); the end of {log_path}:\n{launcher.log_tail()}"
        )

    async def _wait_remote(self, bot: BotSpec, seats: int) -> None:
        assert self.server is not None
        if len(self.server.sessions.get(bot.name, ())) >= seats:
            return
        self._message(
            f"waiting for remote bot {bot.name!r}: {seats} session(s) at {self.server.target}"
        )
        waiting = asyncio.ensure_future(
            self.server.wait_for_bot(bot.name, sessions=seats, timeout=self.options.remote_wait_s)
        )
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            # A stop asked for while it waits ends the wait (nothing is played).
            await asyncio.wait({waiting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            waiting.cancel()
            await asyncio.gather(waiting, stopping, return_exceptions=True)
        if self._stop.is_set():
            return
        try:
            waiting.result()
        except TimeoutError:
            raise BotLaunchError(
                f"remote bot {bot.name!r} did not connect {seats} session(s) to "
                f"{self.server.target} within {self.options.remote_wait_s:g} s"
            ) from None

    def _incident(self, bot: str, kind: str, detail: str) -> None:
        if self.store is not None:
            self.store.record_incident(self.tournament_id, bot, kind, detail)
        if kind == "crash" or kind in _SANDBOX_KINDS:
            self.live.incidents[bot] = self.live.incidents.get(bot, 0) + 1
        self._message(f"{bot}: {kind}: {detail}")

    async def _stop_bots(self) -> None:
        if self.lanes is not None:
            await self.lanes.stop()
        await asyncio.gather(
            *(launcher.stop() for launcher in self.launchers.values()), return_exceptions=True
        )

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

    async def _play_all(self) -> None:
        pending = self.pending()
        workers = [
            asyncio.create_task(self._worker(pending, slot))
            for slot in range(self.config.concurrency)
        ]
        self.games_at_once = len(workers)
        stopper: asyncio.Future[object] = asyncio.ensure_future(self._stop.wait())
        everything: asyncio.Future[object] = asyncio.ensure_future(self._all_done(workers))
        scaler = (
            asyncio.ensure_future(self._scale_concurrency(workers, pending))
            if self.concurrency_limit > len(workers)
            else None
        )
        try:
            done, _ = await asyncio.wait({stopper, everything}, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done:
                # Stop requested: abort the games in flight; they are played again on resume.
                assert self.server is not None
                for table_id in list(self._active_tables):
                    with contextlib.suppress(Exception):
                        self.server.abort_table(table_id, "the arena was stopped")
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
        assert self.server is not None
        tally = self.server.metrics.actions
        limit = self.concurrency_limit
        share = self.config.time_control.action_ms / 1000 * SCALE_LATENCY_SHARE
        fast_s = min(self.options.fast_reply_s, share)
        accepted, latency = tally.accepted, tally.latency_sum
        while len(workers) < limit:
            await asyncio.sleep(self.options.scale_interval_s)
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
            if self._awaits_a_cost():
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

    async def _launch_game(self, game: ScheduledGame, slot: int) -> dict[str, GameLaunch]:
        """Fresh processes of each launched bot of the game, keyed to its seats."""
        assert self.server is not None
        launches: dict[str, GameLaunch] = {}
        for name in dict.fromkeys(game.seat_bots):
            launcher = self.launchers.get(name)
            if launcher is None:
                continue  # a remote bot
            seats = game.seat_bots.count(name)
            plan = plan_launch(launcher.bot, 1, seats, 1)
            key = self.server.issue_launch_key(name, _launch_sessions(plan, restarts=False))
            try:
                launches[name] = await launcher.start_game(f"game {game.index}", plan, key, slot)
            except OSError as error:
                self.server.revoke_launch_key(key)
                for launch in launches.values():
                    await self.launchers[launch.bot].finish_game(launch)
                raise BotLaunchError(
                    f"bot {name!r}: cannot start {launcher.bot.command!r}: {error}"
                ) from None
        return launches

    async def _end_game(
        self, game: ScheduledGame, launches: dict[str, GameLaunch], outcome: TableOutcome | None
    ) -> None:
        assert self.server is not None
        await asyncio.gather(
            *(
                self.launchers[name].finish_game(launch, joined=name in self._joined)
                for name, launch in launches.items()
            )
        )
        for launch in launches.values():
            self.server.revoke_launch_key(launch.key)
        if outcome is None or self.config.clock is not ClockKind.CPU:
            return
        for seat in outcome.seat_stats:
            if seat.cpu_timeouts and seat.bot_name in launches:
                self._incident(
                    seat.bot_name,
                    IncidentKind.CPU_TIME_EXHAUSTED.value,
                    f"game {game.index} seat {seat.seat}: {seat.cpu_timeouts} move(s) over "
                    "their CPU time",
                )

    async def _lane_keys(self, game: ScheduledGame) -> dict[str, str]:
        """The launch keys of the game's lane, its warm processes started where needed."""
        assert self.lanes is not None
        seats = {n: game.seat_bots.count(n) for n in game.seat_bots if n in self.launchers}
        try:
            return await self.lanes.enter(self.lane_of(game), game.seed, seats)
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    async def _play(self, game: ScheduledGame, slot: int = 0) -> None:
        assert self.server is not None and self.store is not None
        launches = await self._launch_game(game, slot) if self.process_per_game else {}
        lane_keys = await self._lane_keys(game) if self.lanes is not None else {}
        outcome: TableOutcome | None = None
        try:
            outcome = await self._play_table(game, launches, lane_keys)
        finally:
            if launches:
                await self._end_game(game, launches, outcome)
            if self.lanes is not None:
                self.lanes.leave(self.lane_of(game), list(lane_keys))
                if self._last_of_lane(game):
                    await self.lanes.retire(self.lane_of(game))
        if outcome is None:
            return
        stopping = self._stop.is_set() or self._server_stopping
        if stopping and outcome.termination == results_pb2.TERMINATION_REASON_ABORTED:
            return  # aborted by a stop (ours or the server's): played again on resume
        await self._record(game, outcome, void=self._reported_incidents(outcome.table_id))
        self._notify()

    async def _play_table(
        self,
        game: ScheduledGame,
        launches: dict[str, GameLaunch],
        lane_keys: dict[str, str] | None = None,
    ) -> TableOutcome:
        assert self.server is not None
        table_id = f"{self.tournament_id}-{game.game_id}-{os.getpid()}-{int(time.time())}"
        keys: tuple[str, ...] = ()
        clocks: tuple[Callable[[], float] | None, ...] = ()
        if launches:
            keys = tuple(launches[b].key if b in launches else "" for b in game.seat_bots)
        if lane_keys:
            keys = tuple(lane_keys.get(b, "") for b in game.seat_bots)
        if launches and self.config.clock is ClockKind.CPU:
            by_bot = {name: launch.cpu_seconds for name, launch in launches.items()}
            clocks = tuple(by_bot.get(b) for b in game.seat_bots)  # one clock for all its seats
        spec = TableSpec(
            ruleset=self.config.ruleset,
            seat_bots=game.seat_bots,
            seed=game.seed,
            time_control=self.config.time_control,
            tournament_id=self.tournament_id,
            table_id=table_id,
            join_timeout_s=self.options.join_timeout_s,
            game_number=game.index,
            seat_keys=keys,
            seat_clocks=clocks,
            bot_seed_key=bot_seed_key(self.config.seed),
        )
        table = await self.server.create_table(spec)
        self._active_tables.add(table_id)
        watch = asyncio.create_task(self._watch_joining(table, launches)) if launches else None
        try:
            try:
                outcome = await asyncio.wait_for(table.wait_finished(), self.options.game_timeout_s)
            except TimeoutError:
                self.server.abort_table(table_id, "game exceeded the arena's game timeout")
                outcome = await asyncio.wait_for(table.wait_finished(), 30.0)
        finally:
            self._active_tables.discard(table_id)
            if watch is not None:
                watch.cancel()
                await asyncio.gather(watch, return_exceptions=True)
        if watch is not None and not watch.cancelled() and watch.exception() is None:
            gone = watch.result()
            if gone and gone not in self._joined:
                launcher = self.launchers[gone]
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
        assert self.server is not None
        while table.status is TableStatus.WAITING:
            for name, launch in launches.items():
                if all(p.process.returncode is not None for p in launch.processes):
                    self.server.abort_table(table.id, f"bot {name!r} exited before it joined")
                    return name
            await asyncio.sleep(0.05)
        self._joined.update(launches)
        return ""

    def _reported_incidents(self, table_id: str) -> str:
        """Record the incidents bots reported for ``table_id`` (a text seat's provider errors);
        the game is then void (recorded as aborted, not rated): their text, or ``""``."""
        details = []
        for name, launcher in self.launchers.items():
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
                self._incident(name, kind, f"{table_id}: {detail}")
                details.append(f"{name} {kind}: {detail}")
        return "; ".join(details)

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


def _launch_sessions(plan: LaunchPlan, *, restarts: bool = True) -> int:
    """The sessions a launch key admits at once: those its processes open, twice over when a
    process that exits is restarted (the new one opens its own while the old ones still await
    their resume); a game's processes are never restarted."""
    return (2 if restarts else 1) * plan.processes * plan.sessions


def _server_name(tournament: str) -> str:
    """The name the embedded server gives itself in every Welcome: the tournament's, its
    printable characters, at most 64 (the server's bound)."""
    return "".join(c for c in tournament if c.isprintable())[:64]


def _launch_folder(bot: BotSpec) -> Path | None:
    """The folder a launched bot's sandbox mounts for it: its ``folder`` (relative to its config
    file's folder), else its command's."""
    workdir = working_folder(bot.workdir)
    if bot.folder:
        return (Path(workdir or ".") / bot.folder).resolve()
    return bot_folder(bot.argv, workdir)


def _check_folder_is_open(bot: str, folder: Path) -> None:
    """A sandboxed bot runs under a user id of its own: its folder must be open to others."""
    try:
        mode = folder.stat().st_mode
    except OSError as error:
        raise BotLaunchError(f"bot {bot!r}: its folder {folder}: {error}") from None
    if mode & 0o005 != 0o005:
        raise BotLaunchError(
            f"bot {bot!r}: its folder {folder} is mode {mode & 0o777:o}: a sandboxed bot runs "
            f"under a user id of its own and could not read it; run `chmod o+rx {folder}` "
            '(and o+r on its files), or sandbox = "off" for a bot you trust'
        )


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
