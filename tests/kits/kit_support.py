"""What the kit test modules share: the kits' build and commands, bot processes, tables played on
a real server, replay checks, a proxy whose connections can be cut, and ``rookery arena run``.

Each test module keeps what is specific to its kits (their clocks, builds, unit tests and the
lines their runners print); ``conftest.py`` turns the launcher and the server into fixtures and
has pytest rewrite the asserts here, so that a failed check shows its values.
"""

from __future__ import annotations

import asyncio
import csv
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from rookery.engine import Ruleset
from rookery.server import RookeryServer, Table, TableOutcome, TableSpec, TimeControl
from rookery.server.testing import stop_process
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, replay_pb2, results_pb2
from rookery.wire.replay import read_replay

REPO = Path(__file__).resolve().parents[2]
ROOKERY = Path(sys.executable).with_name("rookery")

#: Each kit's folder and the one runnable command its build.sh produces.
KITS: dict[str, tuple[Path, Path]] = {
    "rust": (REPO / "clients/rust", REPO / "clients/rust/bin/rookery-rust-bot"),
    "java": (REPO / "clients/java", REPO / "clients/java/bin/rookery-java-bot"),
    "cpp": (REPO / "clients/cpp", REPO / "clients/cpp/bin/rookery-cpp-bot"),
    "typescript": (
        REPO / "clients/typescript",
        REPO / "clients/typescript/dist/rookery-sample-bot",
    ),
    "go": (REPO / "clients/go", REPO / "clients/go/bin/rookery-sample-bot"),
}
#: The Python reference bot the kits play with and against.
PYTHON_BOT = "rookery.client.bots.heuristic:HeuristicBot"
#: The same bot as a command line, for the arena.
PYTHON_BOT_COMMAND = f"{ROOKERY} bot run {PYTHON_BOT}"
#: The longest any one game of these tests may take.
GAME_TIMEOUT_S = 90.0
#: Game ends that mean the game was played out.
PLAYED_OUT = (
    results_pb2.TERMINATION_REASON_TARGET_REACHED,
    results_pb2.TERMINATION_REASON_MAX_HANDS,
)


class KitBuildError(AssertionError):
    """A kit's build.sh failed; the message carries its output."""


@dataclass(frozen=True)
class Build:
    """One run of a kit's build.sh: its output and how long it took."""

    output: str
    seconds: float


@contextmanager
def _build_lock(folder: Path) -> Iterator[None]:
    """Hold the kit's build lock: one build.sh at a time per kit, across test processes."""
    with (folder / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_kit(language: str, *args: str, timeout: float) -> Build:
    """Run the kit's build.sh (cached by the script itself) at low priority."""
    folder, _ = KITS[language]
    command = " ".join(["build.sh", *args])
    with _build_lock(folder):  # the suite's workers share each kit's build folder
        started = time.monotonic()
        process = subprocess.run(
            ["nice", "-n", "10", str(folder / "build.sh"), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    output = process.stdout + process.stderr
    if process.returncode != 0:
        raise KitBuildError(f"{folder}/{command} failed ({process.returncode}):\n{output}")
    return Build(output, time.monotonic() - started)


@dataclass
class Process:
    """A bot subprocess and its log file."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait(self, limit_s: float = 30.0) -> int:
        return await asyncio.wait_for(self.process.wait(), limit_s)

    async def stop(self) -> int:
        """SIGTERM, then SIGKILL if it lingers; the exit code."""
        return await stop_process(self.process)


@dataclass
class Launcher:
    """Starts bot processes; the test's fixture stops every one at its end."""

    directory: Path
    started: list[Process] = field(default_factory=list)

    async def _start(self, name: str, argv: list[str], env: dict[str, str]) -> Process:
        log_path = self.directory / f"bot-{name}-{len(self.started)}.log"
        with log_path.open("wb") as log_file:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdout=log_file,
                stderr=asyncio.subprocess.STDOUT,
                env={**os.environ, **env},
            )
        bot = Process(name, process, log_path)
        self.started.append(bot)
        return bot

    async def kit_bot(self, language: str, server: str, name: str, *options: str) -> Process:
        """The kit's sample bot, given its server and name in the environment as the arena does."""
        _, command = KITS[language]
        environment = {"ROOKERY_SERVER": server, "ROOKERY_BOT_NAME": name}
        return await self._start(name, [str(command), *options], environment)

    async def command_bot(
        self, argv: list[str], server: str, name: str, env: dict[str, str] | None = None
    ) -> Process:
        """Any bot command, given its server and name in the environment as the arena does
        (and ``env`` besides)."""
        environment = {"ROOKERY_SERVER": server, "ROOKERY_BOT_NAME": name, **(env or {})}
        return await self._start(name, argv, environment)

    async def python_bot(self, server: str, name: str, *options: str) -> Process:
        """A Python reference bot run by ``rookery bot run``."""
        argv = [str(ROOKERY), "bot", "run", PYTHON_BOT, "--server", server, "--name", name]
        return await self._start(name, [*argv, "--log-level", "warning", *options], {})

    async def stop_all(self) -> None:
        await asyncio.gather(*(bot.stop() for bot in self.started))


async def wait_until(condition: Callable[[], bool], *, what: str, limit_s: float) -> None:
    """Poll ``condition`` until it holds; TimeoutError naming ``what`` otherwise."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {limit_s:g} s")
        await asyncio.sleep(0.02)


async def game_over(table: Table) -> TableOutcome:
    """Wait for the table's game to end."""
    return await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)


@dataclass(frozen=True)
class Tables:
    """How a test module's tables of ``standard`` are set up: the clock they run on, how long
    :meth:`play` waits for the bots to join and how long :meth:`under_way` waits for a game to
    start."""

    clock: TimeControl
    join_timeout_s: float
    under_way_limit_s: float

    async def play(
        self, server: RookeryServer, seat_bots: tuple[str, ...], *, seed: int
    ) -> TableOutcome:
        """Create a table seating ``seat_bots`` and wait for its game to end."""
        spec = TableSpec(
            Ruleset.preset("standard"),
            seat_bots,
            seed=seed,
            time_control=self.clock,
            join_timeout_s=self.join_timeout_s,
        )
        table = await server.create_table(spec)
        return await game_over(table)

    async def under_way(
        self, server: RookeryServer, seat_bots: tuple[str, ...], *, seed: int
    ) -> Table:
        """A new table seating ``seat_bots`` (its bots given the server's default time to join),
        once its game has got under way."""
        spec = TableSpec(Ruleset.preset("standard"), seat_bots, seed=seed, time_control=self.clock)
        table = await server.create_table(spec)
        await wait_until(
            lambda: table.game_seq > 40,
            what="the game to get under way",
            limit_s=self.under_way_limit_s,
        )
        return table

    async def kit_in_every_seat(
        self,
        server: RookeryServer,
        launcher: Launcher,
        language: str,
        *kit_options: str,
        seed: int,
    ) -> tuple[Process, list[TableOutcome]]:
        """The kit bot ``{language}-kit`` plays four tables at once with and against a Python
        bot, taking each seat once: partnering a Python bot and playing against two.

        The kit bot runs with ``--max-tables 4`` and ``kit_options``; table ``i`` (the kit in
        seat ``i``) has the seed ``seed + i``. The kit bot and the outcomes, in seat order.
        """
        kit_name, python_name = f"{language}-kit", "python-heuristic"
        kit = await launcher.kit_bot(
            language, server.target, kit_name, "--max-tables", "4", *kit_options
        )
        await launcher.python_bot(
            server.target, python_name, "--sessions", "3", "--max-tables", "4"
        )
        layouts = [
            tuple(kit_name if seat == kit_seat else python_name for seat in range(4))
            for kit_seat in range(4)
        ]
        outcomes = await asyncio.gather(
            *(self.play(server, seats, seed=seed + i) for i, seats in enumerate(layouts))
        )
        return kit, outcomes


async def fetch_replay(target: str, table_id: str) -> replay_pb2.Replay:
    """The finished table's replay, through ArenaService.GetReplay."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        request = arena_service_pb2.GetReplayRequest(table_id=table_id)
        response = await stub.GetReplay(request, timeout=10.0)
    replay: replay_pb2.Replay = response.replay
    return replay


def refused_actions(replay: replay_pb2.Replay) -> list[str]:
    """Every recorded action that was not the bot's own accepted one (rejected, auto-played)."""
    refused = []
    for hand in replay.hands:
        for action in hand.actions:
            if action.outcome != replay_pb2.ACTION_OUTCOME_ACCEPTED:
                outcome = replay_pb2.ActionOutcome.Name(action.outcome)
                where = f"hand {hand.hand_number} seat {action.seat}"
                refused.append(f"{where}: {outcome} {action.rejection_reason}")
    return refused


def actions_of(replay: replay_pb2.Replay, seat: int) -> int:
    """How many actions a seat made in the replay."""
    return sum(1 for hand in replay.hands for action in hand.actions if action.seat == seat)


async def check_kit_seat(target: str, outcome: TableOutcome, seat: int, kit: Process) -> None:
    """The kit bot sat at ``seat`` of the played-out game of ``outcome`` and acted, and its replay
    (from the server at ``target``) records every action accepted."""
    assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
    replay = await fetch_replay(target, outcome.table_id)
    assert replay.header.seats[seat].bot_name == kit.name
    assert refused_actions(replay) == [], kit.log()
    assert actions_of(replay, seat) > 0
    assert replay.result.reason == outcome.termination


@dataclass(frozen=True)
class ArenaRun:
    """One finished ``rookery arena run``: its exit code, its output and its results folder."""

    returncode: int
    output: str
    out: Path

    def games(self) -> list[dict[str, str]]:
        """The rows of the run's ``games.csv``."""
        with (self.out / "games.csv").open(newline="") as handle:
            return list(csv.DictReader(handle))

    def refused_games(self) -> list[tuple[str, list[str]]]:
        """Each game whose replay records an action not accepted: its id and those actions."""
        return [
            (game["game_id"], refused)
            for game in self.games()
            if (refused := refused_actions(read_replay(self.out / game["replay"])))
        ]

    def standings(self) -> str:
        """The run's output and its Markdown reports, together."""
        return self.output + "".join(path.read_text() for path in self.out.glob("*.md"))


def run_arena(
    directory: Path,
    name: str,
    bots: dict[str, str],
    *,
    seed: int,
    timeout_s: float,
    options: tuple[str, ...] = (),
) -> ArenaRun:
    """A round-robin of ``bots`` (name: command), two games a pairing, two at a time, on the
    ``standard`` preset (and ``options`` of ``arena run``), with its results in
    ``directory/run``."""
    out = directory / "run"
    argv = [str(ROOKERY), "arena", "run", "--name", name, "--preset", "standard", *options]
    argv += ["--games", "2", "--concurrency", "2", "--seed", str(seed), "--out", str(out)]
    for bot, command in bots.items():
        argv += ["--bot", f"{bot}={command}"]
    process = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout_s, check=False, cwd=directory
    )
    return ArenaRun(process.returncode, process.stdout + process.stderr, out)
