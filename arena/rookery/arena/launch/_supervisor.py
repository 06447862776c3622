"""A run's bots, supervised: the sandbox they run in, their launched processes (shared, warm
lanes when sandboxed, or fresh for each game), the remote ones awaited, the incidents they
report, and all of them stopped at the end.

The launching itself (plans, processes, restarts, the sandbox) is the other modules' of
:mod:`rookery.arena.launch`; :class:`BotSupervisor` is what one run asks of them. It knows games
only by their schedule position, seed and seat bots, and reports to the run through the
``on_incident`` and ``on_message`` hooks it is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from rookery.arena._config_model import TournamentConfig
from rookery.arena._config_seats import is_house_seat
from rookery.arena._config_values import BotSpec, ClockKind
from rookery.arena.errors import BotLaunchError, SandboxUnavailableError
from rookery.arena.launch._commands import working_folder
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import (
    BotLauncher,
    GameLaunch,
    LaunchPlan,
    cores_per_bot,
    plan_launch,
)
from rookery.arena.launch._sandbox import SandboxMode, SandboxRuntime, bot_folder, cpu_sets, probe
from rookery.server import RookeryServer

__all__ = ["BotSupervisor", "launch_sessions"]

IncidentHook = Callable[[str, str, str], None]
"""``(bot, kind, detail)``: an incident of a bot, for the run to record."""


def launch_sessions(plan: LaunchPlan, *, restarts: bool = True) -> int:
    """The sessions a launch key admits at once: those its processes open, twice over when a
    process that exits is restarted (the new one opens its own while the old ones still await
    their resume); a game's processes are never restarted."""
    return (2 if restarts else 1) * plan.processes * plan.sessions


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


class BotSupervisor:
    """The bots of one run into ``run_dir`` (``external_server``: a running server the run plays
    on, if given: sandboxed bots then reach it through its Unix socket)."""

    def __init__(
        self,
        config: TournamentConfig,
        run_dir: Path,
        *,
        auth: str,
        bot_cores: int,
        connect_timeout_s: float,
        remote_wait_s: float,
        warm_processes: int,
        stop: asyncio.Event,
        on_incident: IncidentHook,
        on_message: Callable[[str], None],
        external_server: RookeryServer | None = None,
    ) -> None:
        self._config = config
        self._run_dir = run_dir
        self._auth = auth
        self._bot_cores = bot_cores
        self._connect_timeout_s = connect_timeout_s
        self._remote_wait_s = remote_wait_s
        self._warm_processes = warm_processes
        self._stop = stop
        self._on_incident = on_incident
        self._on_message = on_message
        self._external_server = external_server
        self._server: RookeryServer | None = None
        self._socket_dir: Path | None = None
        #: The sandbox of the launched bots (None: unconfined), made by :meth:`open_sandbox`.
        self.sandbox: SandboxRuntime | None = None
        self.launchers: dict[str, BotLauncher] = {}
        #: The warm lanes of sandboxed bots (see ``reuses_lanes``), made by :meth:`start`.
        self.lanes: WarmLanes | None = None
        #: Launched bots that have been seated at a table at least once (``process_per_game``).
        self.joined: set[str] = set()

    @property
    def process_per_game(self) -> bool:
        """Whether launched bots get fresh processes for every game (by default only when
        sandboxed with ``clock = "cpu"``, which measures each game's own processes)."""
        chosen = self._config.process_per_game
        if chosen is not None:
            return chosen
        return self.sandbox is not None and self._config.clock is ClockKind.CPU

    @property
    def reuses_lanes(self) -> bool:
        """Whether sandboxed bots play in warm lanes (:mod:`rookery.arena.launch._lanes`):
        the default when sandboxed, where a process never sees two games of one seed."""
        return (
            self.sandbox is not None
            and self._config.process_per_game is None
            and not self.process_per_game
        )

    def open_sandbox(self) -> SandboxRuntime | None:
        """The sandbox the config asks for, if this machine can make it (``on``: or refuse)."""
        mode = self._config.sandbox
        launched = [b for b in self._config.bots if not b.remote and not is_house_seat(b)]
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
            self._on_message(f"bots run unconfined: {why}")
            return None
        missing = [str(p) for p in self._config.sandbox_paths if not p.exists()]
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
        slots = self._config.concurrency if self._config.pin_cpus else 0
        self.sandbox = SandboxRuntime(
            support,
            self._config.limits,
            socket,
            read_only=self._config.sandbox_paths,
            cpu_sets=cpu_sets(slots) if slots else (),
            run_dirs=(self._run_dir,),
            bot_folders=tuple(
                folder for bot in launched if (folder := _launch_folder(bot)) is not None
            ),
        )
        self._on_message(f"sandbox: {support.describe()}")
        return self.sandbox

    def close_sandbox(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

    async def start(
        self,
        server: RookeryServer,
        *,
        games_at_once: int,
        seats: Mapping[str, int],
        first_lanes: Mapping[int, Sequence[str]],
    ) -> None:
        """Launch the bots for ``server`` and wait until each has its sessions open.

        ``games_at_once``: the most games played at once; ``seats``: the most seats each bot
        holds at one table; ``first_lanes``: the seat bots of the first game of each lane that
        plays first (their warm processes start now, the others' with their first game).
        """
        self._server = server
        # The launched bots all play at once: a Python SDK bot's processes share the cores with
        # the others' (one each for as many bots as cores). More processes than cores only
        # split each session's tables and batches finer: measured with four fast bots on two
        # cores (three alternated pairs, medians), 4,900 actions/s at 158 µs of arena CPU per
        # action with two processes each, 6,300 at 124 µs with one.
        launched = sum(1 for bot in self._config.bots if not bot.remote)
        cores = cores_per_bot(self._bot_cores, launched)
        for bot in self._config.bots:
            if bot.remote:
                continue
            token = ""
            if self._auth == "token":
                with contextlib.suppress(LookupError):
                    server.bots.remove(bot.name)
                _, token = server.bots.add(bot.name)
            plan = plan_launch(bot, games_at_once, seats[bot.name], cores)
            if self.reuses_lanes:
                # A lane's processes: one a bot (a Python SDK bot's sessions hold its tables).
                plan = plan_launch(bot, games_at_once, seats[bot.name], 1)
            if self.sandbox is not None and not self.process_per_game and not self.reuses_lanes:
                # The sandbox's Unix socket admits only sessions with a launch key.
                token = server.issue_launch_key(bot.name, launch_sessions(plan))
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
                self._run_dir / "logs" / f"{bot.name}.log",
                self._on_incident,
                runtime=runtime,
                folder=folder,
            )
            self.launchers[bot.name] = launcher
            if self.process_per_game or self.reuses_lanes:
                continue  # started for each game (start_game), or each lane (enter_lane)
            try:
                await launcher.start()
            except OSError as error:
                raise BotLaunchError(
                    f"bot {bot.name!r}: cannot start {bot.command!r}: {error}"
                ) from None
        for bot in self._config.bots:
            if bot.remote:
                await self._wait_remote(server, bot, seats[bot.name])
            elif not self.process_per_game and not self.reuses_lanes:
                await self._wait_launched(server, bot, seats[bot.name])
        if self.reuses_lanes:
            self.lanes = WarmLanes(
                self._lane_launcher,
                self._lane_sessions,
                max_processes=self._warm_processes,
                connect_timeout_s=self._connect_timeout_s,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )
            await self._warm_lanes(first_lanes)

    async def _warm_lanes(self, first_lanes: Mapping[int, Sequence[str]]) -> None:
        """Start the lanes of the first games to play, as many as play at once, before the
        first game (the others start with their first game; a lane's bots are the same in
        every round). Not every lane ahead: a tournament of one round plays each lane once, and
        starting all its processes at once only loads the machine."""
        assert self.lanes is not None
        ahead = {lane: self._launched_seats(seat_bots) for lane, seat_bots in first_lanes.items()}
        try:
            await self.lanes.warm_all(ahead)
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    def _launched_seats(self, seat_bots: Sequence[str]) -> dict[str, int]:
        """The seats each launched bot holds at a table of ``seat_bots``."""
        return {n: seat_bots.count(n) for n in seat_bots if n in self.launchers}

    def _lane_launcher(self, name: str, lane: int) -> tuple[BotLauncher, str]:
        """A launcher of bot ``name``'s warm processes in ``lane``, under a launch key of its
        own (what the lane's tables bind its seats to)."""
        assert self._server is not None
        model = self.launchers[name]
        key = self._server.issue_launch_key(name, launch_sessions(model.plan))
        launcher = model.for_lane(key, lane, self._on_incident)
        return launcher, key

    def _lane_sessions(self, name: str, key: str) -> int:
        assert self._server is not None
        return sum(1 for s in self._server.sessions.get(name, ()) if s.launch_key == key)

    def _launch_spec(self, bot: BotSpec) -> BotSpec:
        """``bot`` as launched (:meth:`TournamentConfig.launch_spec`); a language-model seat
        also records every decision, with each refused attempt's reason, in
        ``logs/BOT.decisions.jsonl`` of the run (``ROOKERY_TEXT_RECORD``) unless it names a file."""
        spec = self._config.launch_spec(bot)
        if "ROOKERY_CHAT_URL" not in spec.env or "ROOKERY_TEXT_RECORD" in spec.env:
            return spec
        record = self._run_dir.absolute() / "logs" / f"{bot.name}.decisions.jsonl"
        return dataclasses.replace(spec, env={**spec.env, "ROOKERY_TEXT_RECORD": str(record)})

    def _house_seat_spec(self, bot: BotSpec) -> BotSpec:
        """A house seat as launched: in an empty folder of the run's own (``house-seat/``), since
        ``python -m`` puts its working folder first on the import path and the arena's current
        folder may hold an entrant's files (a ``json.py`` there would run unconfined)."""
        folder = self._run_dir.absolute() / "house-seat"
        folder.mkdir(parents=True, exist_ok=True)
        stray = next(folder.iterdir(), None)
        if stray is not None:
            raise BotLaunchError(f"bot {bot.name!r}: {folder} must be empty; {stray.name} is in it")
        return dataclasses.replace(self._launch_spec(bot), workdir=str(folder))

    async def _wait_launched(self, server: RookeryServer, bot: BotSpec, seats: int) -> None:
        launcher = self.launchers[bot.name]
        deadline = time.monotonic() + self._connect_timeout_s
        while True:
            if self._stop.is_set():
                return  # a stop asked for while it connects: nothing is played
            try:
                await server.wait_for_bot(bot.name, sessions=seats, timeout=0.25)
                launcher.in_play = True  # from now on an exit is a crash of a playing bot
                return
            except TimeoutError:
                pass
            # A command that exits before it connects (each process once) will not connect, nor
            # will a program that does not exist: fail fast, without restarting it further.
            gave_up = launcher.not_found or launcher.crashes >= launcher.plan.processes
            if gave_up or time.monotonic() > deadline:
                break
        log_path = self._run_dir / "logs" / f"{bot.name}.log"
        if launcher.not_found:
            why = "could not start its program"
        elif gave_up:
            why = "kept exiting before it connected"
        else:
            why = f"did not connect within {self._connect_timeout_s:g} s"
        raise BotLaunchError(
            f"bot {bot.name!r} did not open {seats} session(s): it {why} "
            f"(command: {bot.command!r}); the end of {log_path}:\n{launcher.log_tail()}"
        )

    async def _wait_remote(self, server: RookeryServer, bot: BotSpec, seats: int) -> None:
        if len(server.sessions.get(bot.name, ())) >= seats:
            return
        self._on_message(
            f"waiting for remote bot {bot.name!r}: {seats} session(s) at {server.target}"
        )
        waiting = asyncio.ensure_future(
            server.wait_for_bot(bot.name, sessions=seats, timeout=self._remote_wait_s)
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
                f"{server.target} within {self._remote_wait_s:g} s"
            ) from None

    async def start_game(
        self, index: int, seat_bots: Sequence[str], slot: int
    ) -> dict[str, GameLaunch]:
        """Fresh processes of each launched bot of game ``index``, keyed to its seats
        (``process_per_game``; ``slot``: the worker playing it, for pinned CPUs)."""
        assert self._server is not None
        launches: dict[str, GameLaunch] = {}
        for name in dict.fromkeys(seat_bots):
            launcher = self.launchers.get(name)
            if launcher is None:
                continue  # a remote bot
            plan = plan_launch(launcher.bot, 1, seat_bots.count(name), 1)
            key = self._server.issue_launch_key(name, launch_sessions(plan, restarts=False))
            try:
                launches[name] = await launcher.start_game(f"game {index}", plan, key, slot)
            except OSError as error:
                self._server.revoke_launch_key(key)
                for launch in launches.values():
                    await self.launchers[launch.bot].finish_game(launch)
                raise BotLaunchError(
                    f"bot {name!r}: cannot start {launcher.bot.command!r}: {error}"
                ) from None
        return launches

    async def finish_game(self, launches: Mapping[str, GameLaunch]) -> None:
        """Stop a game's fresh processes and revoke their launch keys."""
        assert self._server is not None
        await asyncio.gather(
            *(
                self.launchers[name].finish_game(launch, joined=name in self.joined)
                for name, launch in launches.items()
            )
        )
        for launch in launches.values():
            self._server.revoke_launch_key(launch.key)

    async def enter_lane(self, lane: int, seed: int, seat_bots: Sequence[str]) -> dict[str, str]:
        """The launch keys of ``lane`` for a game of ``seed``, its warm processes started
        where needed."""
        assert self.lanes is not None
        try:
            return await self.lanes.enter(lane, seed, self._launched_seats(seat_bots))
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    async def leave_lane(self, lane: int, bots: Collection[str], *, last: bool) -> None:
        """The game of ``lane`` seating ``bots`` has ended; ``last``: its lane plays no more
        (its processes stop)."""
        assert self.lanes is not None
        self.lanes.leave(lane, list(bots))
        if last:
            await self.lanes.retire(lane)

    def reported_incidents(self, table_id: str) -> str:
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
                self._on_incident(name, kind, f"{table_id}: {detail}")
                details.append(f"{name} {kind}: {detail}")
        return "; ".join(details)

    async def stop(self) -> None:
        """Stop every process: the warm lanes' and the launched bots'."""
        if self.lanes is not None:
            await self.lanes.stop()
        await asyncio.gather(
            *(launcher.stop() for launcher in self.launchers.values()),
            return_exceptions=True,
        )
