"""Launched bots: start a bot's command, log its stderr, restart it after a crash.

The arena starts each launched bot with the server's address, the bot's token and its name in
the environment (``ROOKERY_SERVER``, ``ROOKERY_TOKEN``, ``ROOKERY_BOT_NAME``; also
``ROOKERY_SESSIONS`` and ``ROOKERY_MAX_TABLES`` as hints), so a starter kit bot needs no flags. A
table seats a bot on several seats only through several sessions, and the arena plays several
games at once, so it opens enough sessions:

- a Python SDK bot (``rookery bot run ...``) gets ``--sessions`` and ``--max-tables`` flags and
  runs as a few processes (one per core of its share, the machine's cores divided evenly among
  the launched bots, which all play at once; at most one per concurrent game);
- any other command is assumed to open one session that plays one table at a time, and runs as
  ``concurrency x seats`` processes.

``processes`` and ``sessions`` in the bot's config entry override the guess. A process that exits
while the tournament runs is a crash: it is counted, and the process restarted with exponential
backoff (0.5 s doubling to 10 s, reset after 30 s of uptime). One that exits before the bot has
connected is a failed start (``start_exit``), not a crash of the bot in a game; a program that
does not exist is ``not_found``, reported once and never started again. How a command is
resolved (``python``, ``rookery``, its folder) is :mod:`rookery.arena.launch._commands`.

With ``process_per_game`` the bot's processes are started for each game instead
(:meth:`BotLauncher.start_game`), with a launch key of their own as ``ROOKERY_TOKEN`` that binds
them to that game's seats, and stopped with the game; with a :class:`SandboxRuntime` every
process runs in the sandbox (:mod:`rookery.arena.launch._sandbox`).
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from rookery.arena._config_values import BotSpec
from rookery.arena.launch._bot_process import BotProcess, start_bot_process
from rookery.arena.launch._commands import (
    CommandNotFoundError,
    absolute_paths,
    check_program,
    resolve_argv,
    working_folder,
)
from rookery.arena.launch._sandbox import IncidentKind, SandboxRuntime

__all__ = [
    "BotLauncher",
    "GameLaunch",
    "LaunchPlan",
    "cores_per_bot",
    "failure_cause",
    "is_python_sdk_command",
    "plan_launch",
]

log = structlog.get_logger("rookery.arena")

#: What ``_exec_guard`` exits with when the program cannot be found (as a shell).
EXIT_NOT_FOUND = 127
#: ... and when it exists but cannot be executed.
EXIT_CANNOT_EXECUTE = 126

_CAUSE = re.compile(
    r"^([A-Za-z_][\w.]*(Error|Exception|Exit)\b.*|cannot start .*|rookery [\w ]+: .+)$"
)


def failure_cause(lines: list[str]) -> str:
    """The last log line that names why a bot stopped (an exception, a refusal), or ''."""
    for line in reversed(lines):
        if _CAUSE.match(line.strip()):
            return line.strip()
    return ""


@dataclass(frozen=True)
class LaunchPlan:
    """How a launched bot is started: the argv, processes, sessions and tables per session."""

    argv: tuple[str, ...]
    processes: int
    sessions: int
    max_tables: int

    @property
    def capacity(self) -> int:
        """Seats the bot can hold at once over all its processes."""
        return self.processes * self.sessions * self.max_tables


def _is_python_sdk(argv: list[str]) -> bool:
    return any(argv[i] == "bot" and argv[i + 1] == "run" for i in range(len(argv) - 1))


def is_python_sdk_command(argv: list[str] | tuple[str, ...]) -> bool:
    """Whether a bot's command runs a Python SDK bot (``rookery bot run``), whose sessions the
    arena sizes (``--max-tables``)."""
    return _is_python_sdk(resolve_argv(list(argv)))


def cores_per_bot(cores: int, bots: int) -> int:
    """The cores each of ``bots`` launched bots playing at once may use: an even share of
    ``cores`` (0: this machine's), at least one.

    >>> cores_per_bot(2, 4), cores_per_bot(16, 2), cores_per_bot(8, 1)
    (1, 8, 8)
    """
    cores = cores or os.cpu_count() or 1
    return max(1, cores // max(1, bots))


def plan_launch(bot: BotSpec, concurrency: int, seats_per_table: int, cores: int = 0) -> LaunchPlan:
    """Enough processes and sessions to seat the bot at ``concurrency`` tables at once.

    ``cores`` caps a Python SDK bot's processes (0: this machine's cores).
    """
    argv = resolve_argv(bot.argv)
    needed = concurrency * seats_per_table
    if _is_python_sdk(argv):
        cores = max(1, cores or os.cpu_count() or 1)
        processes = bot.processes or max(1, min(concurrency, cores))
        sessions = bot.sessions or seats_per_table
        max_tables = max(1, math.ceil(needed / (processes * sessions)))
        extra = []
        if "--sessions" not in argv:
            extra += ["--sessions", str(sessions)]
        if "--max-tables" not in argv:
            extra += ["--max-tables", str(max_tables)]
        return LaunchPlan(tuple(argv + extra), processes, sessions, max_tables)
    sessions = bot.sessions or 1
    processes = bot.processes or max(1, math.ceil(needed / sessions))
    return LaunchPlan(tuple(argv), processes, sessions, 1)


@dataclass
class GameLaunch:
    """The fresh processes one game started for one bot, bound to its seats by ``key``."""

    bot: str
    key: str
    label: str
    processes: list[BotProcess] = field(default_factory=list)

    def cpu_seconds(self) -> float:
        """CPU time all of them used so far (the seat clock of ``clock = "cpu"``)."""
        return sum(p.meter.cpu_seconds() for p in self.processes)


class BotLauncher:
    """Runs one launched bot's processes: for the length of a tournament, or per game."""

    def __init__(
        self,
        bot: BotSpec,
        plan: LaunchPlan,
        server_target: str,
        token: str,
        log_path: Path,
        on_incident: Callable[[str, str, str], None],
        *,
        runtime: SandboxRuntime | None = None,
        folder: Path | None = None,
        label: str = "",
    ) -> None:
        self.bot = bot
        #: What its processes' log lines and incidents start with (a lane's, say).
        self.label = label
        self.plan = plan
        self.server_target = server_target
        self.token = token
        self.log_path = log_path
        #: Where an unconfined bot may report incidents of its own (a text seat's provider
        #: errors), one JSON object a line: ``{"table_id", "kind", "detail"}``; given as
        #: ``ROOKERY_INCIDENT_FILE``. A sandboxed bot gets none: a contest's bots cannot void
        #: their own games.
        self.incident_path = log_path.with_suffix(".incidents.jsonl")
        self.runtime = runtime
        self.folder = folder
        self._on_incident = on_incident
        self._processes: list[BotProcess | None] = [None] * plan.processes
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._games: set[int] = set()
        #: Exits counted so far, at start-up and in play.
        self.crashes = 0
        self.starts = 0
        #: False until the bot has connected: an exit before that is a failed start.
        self.in_play = False
        #: Set once the program was found missing at exec: it is not started again.
        self.not_found = False
        self._checked = False

    def for_lane(
        self, key: str, lane: int, on_incident: Callable[[str, str, str], None] | None = None
    ) -> BotLauncher:
        """The same bot's launcher for a warm lane: its processes under the lane's launch key
        ``key``, labelled with the lane, their incidents to ``on_incident`` (else this one's)."""
        return BotLauncher(
            self.bot,
            self.plan,
            self.server_target,
            key,
            self.log_path,
            on_incident or self._on_incident,
            runtime=self.runtime,
            folder=self.folder,
            label=f"lane {lane}",
        )

    def _environment(self, plan: LaunchPlan, token: str) -> dict[str, str]:
        rookery = {
            "ROOKERY_SERVER": self.server_target,
            "ROOKERY_TOKEN": token,
            "ROOKERY_BOT_NAME": self.bot.name,
            "ROOKERY_SESSIONS": str(plan.sessions),
            "ROOKERY_MAX_TABLES": str(plan.max_tables),
        }
        if self.runtime is not None:
            if _is_python_sdk(list(plan.argv)):
                # gRPC in Python speaks Unix sockets: the server's own, mounted in the sandbox,
                # without init's forwarder between (its two copies of every byte cost 13 % of a
                # core with four fast bots, see docs/arena.md's performance section).
                rookery["ROOKERY_SERVER"] = self.runtime.unix_target
            return self.runtime.environment(rookery, self._env_with_whole_paths())
        env = dict(os.environ)
        env.update(self.bot.env)
        env.update(rookery)
        env["ROOKERY_INCIDENT_FILE"] = str(self.incident_path)
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _named_files(self) -> dict[str, Path]:
        """The files the bot's ``env`` names that its sandbox mounts, by variable: a value that
        names a file in its config file's folder (``ROOKERY_POLICY = "policy.npz"``), by a
        relative or absolute path, no part of it hidden (``.ssh/…``). Nothing else: a spec from
        elsewhere cannot mount a host file into a sandbox."""
        workdir = working_folder(self.bot.workdir)
        if workdir is None:
            return {}
        base = Path(workdir).resolve()
        files: dict[str, Path] = {}
        for key, value in self.bot.env.items():
            if not value:
                continue
            candidate = (base / value).resolve()
            if not candidate.is_relative_to(base) or not candidate.is_file():
                continue
            if not any(part.startswith(".") for part in candidate.relative_to(base).parts):
                files[key] = candidate
        return files

    def _env_with_whole_paths(self) -> dict[str, str]:
        """The bot's ``env`` with the values that name a mounted file made absolute (the bot
        starts in its own folder, not in its config file's)."""
        named = self._named_files()
        return {k: str(named[k]) if k in named else v for k, v in self.bot.env.items()}

    def _cut(self, label: str) -> Callable[[int], None]:
        def cut(limit: int) -> None:
            self._on_incident(
                self.bot.name,
                IncidentKind.OUTPUT_CUT.value,
                f"{label}: wrote more than {limit} bytes; its log was cut",
            )

        return cut

    async def _start_one(self, plan: LaunchPlan, token: str, label: str, slot: int) -> BotProcess:
        argv = plan.argv
        if self.runtime is not None:  # it starts in its own folder: relative paths made whole
            argv = absolute_paths(argv, working_folder(self.bot.workdir))
        try:
            process = await start_bot_process(
                argv,
                self._environment(plan, token),
                self.log_path,
                f"start {label}",
                label=label,
                runtime=self.runtime,
                server_target=self.server_target,
                folder=self.folder,
                cwd=working_folder(self.bot.workdir),
                slot=slot,
                files=tuple(self._named_files().values()) if self.runtime is not None else (),
                on_cut=self._cut(label),
            )
        except OSError as error:
            self._on_incident(self.bot.name, "launch_failed", f"{plan.argv[0]}: {error}")
            raise
        self.starts += 1
        return process

    async def start_game(self, label: str, plan: LaunchPlan, key: str, slot: int = 0) -> GameLaunch:
        """Fresh processes for one game (``plan`` for one table), their token ``key``."""
        self.check_command()
        launch = GameLaunch(self.bot.name, key, label)
        for index in range(plan.processes):
            name = f"{label} process {index}"
            launch.processes.append(await self._start_one(plan, key, name, slot))
        return launch

    async def finish_game(self, launch: GameLaunch, *, joined: bool = True) -> None:
        """Stop the game's processes (all they started too) and record what the sandbox saw.

        ``joined``: whether the bot ever took a seat; before that, an exit is a failed start
        (``start_exit``, or ``not_found`` for a program missing at exec), not a crash."""
        await asyncio.gather(*(p.stop(grace_s=1.0) for p in launch.processes))
        for process in launch.processes:
            code = process.process.returncode
            if process.stopped_by_arena or code == 0:
                pass
            elif code in (EXIT_NOT_FOUND, EXIT_CANNOT_EXECUTE) and not joined:
                if not self.not_found:  # once for the bot, not once per process
                    self.not_found = True
                    self._on_incident(self.bot.name, "not_found", self._last_line())
            elif not joined:
                self._on_incident(
                    self.bot.name, "start_exit", f"{process.label}: exited with code {code}"
                )
            else:
                self.crashes += 1
                self._on_incident(
                    self.bot.name, "crash", f"{process.label}: exited with code {code} mid-game"
                )
            for kind, detail in process.incidents():
                self._on_incident(self.bot.name, kind, detail)

    def check_command(self) -> None:
        """Raises :class:`CommandNotFoundError` (recorded once as ``not_found``) when the
        program does not exist; checked once, before the first process starts."""
        if self._checked:
            return
        try:
            check_program(
                self.bot.name,
                list(self.plan.argv),
                working_folder(self.bot.workdir),
                self._environment(self.plan, self.token).get("PATH"),
                self.bot.folder,
            )
        except CommandNotFoundError as error:
            self.not_found = True
            self._on_incident(self.bot.name, "not_found", str(error))
            raise
        self._checked = True

    async def start(self) -> None:
        """Start every process and keep them running until :meth:`stop`.

        Raises :class:`CommandNotFoundError` (recorded once as ``not_found``) when the program
        does not exist.
        """
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.check_command()
        for slot in range(self.plan.processes):
            await self._spawn(slot)
            self._tasks.append(asyncio.create_task(self._watch(slot)))

    async def _spawn(self, slot: int) -> None:
        self._processes[slot] = None
        label = f"{self.label} process {slot}" if self.label else f"process {slot}"
        self._processes[slot] = await self._start_one(self.plan, self.token, label, slot)

    async def _watch(self, slot: int) -> None:
        backoff = 0.5
        while not self._stopping:
            process = self._processes[slot]
            if process is None:
                return
            started = time.monotonic()
            code = await process.process.wait()
            if self._stopping:
                return
            await process.stop(grace_s=0.5)  # whatever it left behind, its cgroup, its log pipe
            for kind, detail in process.incidents():
                self._on_incident(self.bot.name, kind, detail)
            self.crashes += 1
            uptime = time.monotonic() - started
            if code in (EXIT_NOT_FOUND, EXIT_CANNOT_EXECUTE) and not self.in_play:
                if not self.not_found:  # once for the bot, not once per process
                    self.not_found = True
                    self._on_incident(self.bot.name, "not_found", self._last_line())
                return
            detail = f"process {slot} exited with code {code} after {uptime:.1f} s"
            kind = "crash" if self.in_play else "start_exit"
            self._on_incident(self.bot.name, kind, detail)
            log.warning(
                "bot crashed" if self.in_play else "bot exited at start",
                bot=self.bot.name,
                detail=detail,
            )
            if uptime > 30.0:
                backoff = 0.5
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)
            if self._stopping:
                return
            try:
                await self._spawn(slot)
            except OSError:
                return
            self._on_incident(self.bot.name, "restart", f"process {slot} restarted")

    def _log_lines(self) -> list[str]:
        try:
            return self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return []

    def _last_line(self) -> str:
        lines = [line for line in self._log_lines() if line.strip()]
        return lines[-1] if lines else ""

    def log_tail(self, lines: int = 15) -> str:
        """The end of the bot's log for error messages: each line once, the cause named first.

        Several processes write one log, so their tracebacks interleave and repeat; the tail
        keeps the last ``lines`` distinct lines, after the line that names the cause (the last
        ``SomeError: ...``, ``cannot start ...`` or ``rookery ...: ...`` line), if any.
        """
        text = self._log_lines()
        distinct = list(dict.fromkeys(reversed(text)))[:lines]
        distinct.reverse()
        cause = failure_cause(text)
        if cause and cause not in distinct:
            return "\n".join([f"cause: {cause}", *distinct])
        return "\n".join(distinct)

    @property
    def running(self) -> int:
        """Processes alive now."""
        return sum(1 for p in self._processes if p is not None and p.process.returncode is None)

    async def stop(self, grace_s: float = 3.0) -> None:
        """Stop the processes: SIGTERM, SIGKILL after ``grace_s`` to all they started too."""
        self._stopping = True
        running = [p for p in self._processes if p is not None]
        await asyncio.gather(*(p.stop(grace_s) for p in running))
        if self.runtime is not None:
            for process in running:
                for kind, detail in process.incidents():
                    if kind == IncidentKind.LEFTOVER_PROCESSES.value:
                        self._on_incident(self.bot.name, kind, detail)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
