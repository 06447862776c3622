"""A run's bots: the sandbox they run in, their launched processes (shared, or warm lanes
when sandboxed), the remote ones awaited, and all of them stopped at the end.

The launching itself (processes, restarts, the sandbox) is :mod:`rookery.arena.launch`'s; this
is what one run asks of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import shutil
import tempfile
import time
from pathlib import Path

from rookery.arena._config_seats import is_house_seat
from rookery.arena._config_values import BotSpec
from rookery.arena.errors import BotLaunchError, SandboxUnavailableError
from rookery.arena.launch._commands import working_folder
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import BotLauncher, cores_per_bot, plan_launch
from rookery.arena.launch._sandbox import SandboxMode, SandboxRuntime, bot_folder, cpu_sets, probe
from rookery.arena.run._local import launch_sessions
from rookery.arena.run._ports import RunState
from rookery.arena.run._schedule import seats_per_table
from rookery.server import RookeryServer

__all__ = ["RunBots"]


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


class RunBots:
    """The bots of ``runner``'s run (``server``: a running server it plays on, if given)."""

    def __init__(self, runner: RunState, server: RookeryServer | None) -> None:
        self._runner = runner
        self._external_server = server
        self._socket_dir: Path | None = None

    def make_sandbox(self) -> SandboxRuntime | None:
        """The sandbox the config asks for, if this machine can make it (``on``: or refuse)."""
        mode = self._runner.config.sandbox
        launched = [b for b in self._runner.config.bots if not b.remote and not is_house_seat(b)]
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
            self._runner._message(f"bots run unconfined: {why}")
            return None
        missing = [str(p) for p in self._runner.config.sandbox_paths if not p.exists()]
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
        slots = self._runner.config.concurrency if self._runner.config.pin_cpus else 0
        runtime = SandboxRuntime(
            support,
            self._runner.config.limits,
            socket,
            read_only=self._runner.config.sandbox_paths,
            cpu_sets=cpu_sets(slots) if slots else (),
            run_dirs=(self._runner.run_dir,),
            bot_folders=tuple(
                folder for bot in launched if (folder := _launch_folder(bot)) is not None
            ),
        )
        self._runner._message(f"sandbox: {support.describe()}")
        return runtime

    def close_sandbox(self) -> None:
        if self._runner.sandbox is not None:
            self._runner.sandbox.close()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

    async def start(self) -> None:
        assert self._runner.server is not None and self._runner.store is not None
        server = self._runner.server
        # The launched bots all play at once: a Python SDK bot's processes share the cores with
        # the others' (one each for as many bots as cores). More processes than cores only
        # split each session's tables and batches finer: measured with four fast bots on two
        # cores (three alternated pairs, medians), 4,900 actions/s at 158 µs of arena CPU per
        # action with two processes each, 6,300 at 124 µs with one.
        launched = sum(1 for bot in self._runner.config.bots if not bot.remote)
        cores = cores_per_bot(self._runner.options.bot_cores, launched)
        for bot in self._runner.config.bots:
            if bot.remote:
                continue
            token = ""
            if self._runner.options.auth == "token":
                with contextlib.suppress(LookupError):
                    server.bots.remove(bot.name)
                _, token = server.bots.add(bot.name)
            seats = seats_per_table(self._runner.schedule, bot.name)
            plan = plan_launch(bot, self._runner.concurrency_limit, seats, cores)
            if self._runner.reuses_lanes:
                # A lane's processes: one a bot (a Python SDK bot's sessions hold its tables).
                plan = plan_launch(bot, self._runner.concurrency_limit, seats, 1)
            if (
                self._runner.sandbox is not None
                and not self._runner.process_per_game
                and not self._runner.reuses_lanes
            ):
                # The sandbox's Unix socket admits only sessions with a launch key.
                token = server.issue_launch_key(bot.name, launch_sessions(plan))
            # The house's language-model seat (config.house_seat: Rookery's own code, its model
            # and URL alone) reaches its model's API, so it runs outside the sandbox, as the
            # organiser's own process; every other launched bot runs in it.
            house = is_house_seat(bot)
            runtime = None if house else self._runner.sandbox
            folder = None if house else _launch_folder(bot)
            if runtime is not None and folder is not None:
                _check_folder_is_open(bot.name, folder)
            launcher = BotLauncher(
                self._house_seat_spec(bot) if house else self._launch_spec(bot),
                plan,
                server.target,
                token,
                self._runner.run_dir / "logs" / f"{bot.name}.log",
                self._runner._incident,
                runtime=runtime,
                folder=folder,
            )
            self._runner.launchers[bot.name] = launcher
            if self._runner.process_per_game or self._runner.reuses_lanes:
                continue  # started for each game (see _launch_game), or each lane (_lane_keys)
            try:
                await launcher.start()
            except OSError as error:
                raise BotLaunchError(
                    f"bot {bot.name!r}: cannot start {bot.command!r}: {error}"
                ) from None
        for bot in self._runner.config.bots:
            seats = seats_per_table(self._runner.schedule, bot.name)
            if bot.remote:
                await self._wait_remote(bot, seats)
            elif not self._runner.process_per_game and not self._runner.reuses_lanes:
                await self._wait_launched(bot, seats)
        if self._runner.reuses_lanes:
            self._runner.lanes = WarmLanes(
                self._lane_launcher,
                self._lane_sessions,
                max_processes=self._runner.options.warm_processes,
                connect_timeout_s=self._runner.options.connect_timeout_s,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )
            await self._warm_lanes()

    async def _warm_lanes(self) -> None:
        """Start the lanes of the first games to play, as many as play at once, before the
        first game (the others start with their first game; a lane's bots are the same in
        every round). Not every lane ahead: a tournament of one round plays each lane once, and
        starting all its processes at once only loads the machine."""
        assert self._runner.lanes is not None
        ahead: dict[int, dict[str, int]] = {}
        first = min(self._runner.lane_count, self._runner.config.concurrency)
        for game in itertools.islice(self._runner.pending(), first):
            seats = {
                n: game.seat_bots.count(n) for n in game.seat_bots if n in self._runner.launchers
            }
            ahead.setdefault(self._runner.lane_of(game), seats)
        try:
            await self._runner.lanes.warm_all(ahead)
        except LaneStartError as error:
            raise BotLaunchError(str(error)) from None

    def _lane_launcher(self, name: str, lane: int) -> tuple[BotLauncher, str]:
        """A launcher of bot ``name``'s warm processes in ``lane``, under a launch key of its
        own (what the lane's tables bind its seats to)."""
        assert self._runner.server is not None
        model = self._runner.launchers[name]
        key = self._runner.server.issue_launch_key(name, launch_sessions(model.plan))
        launcher = model.for_lane(key, lane, self._runner._incident)
        return launcher, key

    def _lane_sessions(self, name: str, key: str) -> int:
        assert self._runner.server is not None
        return sum(1 for s in self._runner.server.sessions.get(name, ()) if s.launch_key == key)

    def _launch_spec(self, bot: BotSpec) -> BotSpec:
        """``bot`` as launched (:meth:`TournamentConfig.launch_spec`); a language-model seat
        also records every decision, with each refused attempt's reason, in
        ``logs/BOT.decisions.jsonl`` of the run (``ROOKERY_TEXT_RECORD``) unless it names a file."""
        spec = self._runner.config.launch_spec(bot)
        if "ROOKERY_CHAT_URL" not in spec.env or "ROOKERY_TEXT_RECORD" in spec.env:
            return spec
        record = self._runner.run_dir.absolute() / "logs" / f"{bot.name}.decisions.jsonl"
        return dataclasses.replace(spec, env={**spec.env, "ROOKERY_TEXT_RECORD": str(record)})

    def _house_seat_spec(self, bot: BotSpec) -> BotSpec:
        """A house seat as launched: in an empty folder of the run's own (``house-seat/``), since
        ``python -m`` puts its working folder first on the import path and the arena's current
        folder may hold an entrant's files (a ``json.py`` there would run unconfined)."""
        folder = self._runner.run_dir.absolute() / "house-seat"
        folder.mkdir(parents=True, exist_ok=True)
        stray = next(folder.iterdir(), None)
        if stray is not None:
            raise BotLaunchError(f"bot {bot.name!r}: {folder} must be empty; {stray.name} is in it")
        return dataclasses.replace(self._launch_spec(bot), workdir=str(folder))

    async def _wait_launched(self, bot: BotSpec, seats: int) -> None:
        assert self._runner.server is not None
        launcher = self._runner.launchers[bot.name]
        deadline = time.monotonic() + self._runner.options.connect_timeout_s
        while True:
            if self._runner._stop.is_set():
                return  # a stop asked for while it connects: nothing is played
            try:
                await self._runner.server.wait_for_bot(bot.name, sessions=seats, timeout=0.25)
                launcher.in_play = True  # from now on an exit is a crash of a playing bot
                return
            except TimeoutError:
                pass
            # A command that exits before it connects (each process once) will not connect, nor
            # will a program that does not exist: fail fast, without restarting it further.
            gave_up = launcher.not_found or launcher.crashes >= launcher.plan.processes
            if gave_up or time.monotonic() > deadline:
                break
        log_path = self._runner.run_dir / "logs" / f"{bot.name}.log"
        if launcher.not_found:
            why = "could not start its program"
        elif gave_up:
            why = "kept exiting before it connected"
        else:
            why = f"did not connect within {self._runner.options.connect_timeout_s:g} s"
        raise BotLaunchError(
            f"bot {bot.name!r} did not open {seats} session(s): it {why} "
            f"(command: {bot.command!r}); the end of {log_path}:\n{launcher.log_tail()}"
        )

    async def _wait_remote(self, bot: BotSpec, seats: int) -> None:
        assert self._runner.server is not None
        if len(self._runner.server.sessions.get(bot.name, ())) >= seats:
            return
        self._runner._message(
            f"waiting for remote bot {bot.name!r}: {seats} session(s) at "
            f"{self._runner.server.target}"
        )
        waiting = asyncio.ensure_future(
            self._runner.server.wait_for_bot(
                bot.name, sessions=seats, timeout=self._runner.options.remote_wait_s
            )
        )
        stopping = asyncio.ensure_future(self._runner._stop.wait())
        try:
            # A stop asked for while it waits ends the wait (nothing is played).
            await asyncio.wait({waiting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            waiting.cancel()
            await asyncio.gather(waiting, stopping, return_exceptions=True)
        if self._runner._stop.is_set():
            return
        try:
            waiting.result()
        except TimeoutError:
            raise BotLaunchError(
                f"remote bot {bot.name!r} did not connect {seats} session(s) to "
                f"{self._runner.server.target} within {self._runner.options.remote_wait_s:g} s"
            ) from None

    async def stop(self) -> None:
        if self._runner.lanes is not None:
            await self._runner.lanes.stop()
        await asyncio.gather(
            *(launcher.stop() for launcher in self._runner.launchers.values()),
            return_exceptions=True,
        )
