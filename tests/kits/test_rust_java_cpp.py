"""The Rust, Java and C++ starter kits: built with their own tools (cargo, Maven, CMake),
unit-tested with their own test runners (cargo test, Surefire/JUnit, ctest/GoogleTest), and played
as separate processes through whole games with and against Python bots on a real server, every
action accepted.

Each kit's ``build.sh`` is cached by a hash of its inputs, so a test run pays each build once and a
second run pays nothing. The helpers live in this module: the other kits' test modules in this
folder have their own, and nothing is shared.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TableOutcome, TableSpec, TimeControl
from rookery.server.testing import running_server
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, replay_pb2, results_pb2
from rookery.wire.replay import read_replay

#: A cold build of a kit (downloads included) on a loaded two-core machine takes minutes; the
#: first test that needs a kit pays for its build. Every wait inside a test has its own limit.
pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]
ROOKERY = Path(sys.executable).with_name("rookery")

#: Each kit's folder and the one runnable command its build.sh produces.
KITS: dict[str, tuple[Path, Path]] = {
    "rust": (REPO / "clients/rust", REPO / "clients/rust/bin/rookery-rust-bot"),
    "java": (REPO / "clients/java", REPO / "clients/java/bin/rookery-java-bot"),
    "cpp": (REPO / "clients/cpp", REPO / "clients/cpp/bin/rookery-cpp-bot"),
}
LANGUAGES = tuple(KITS)
#: The other engineers' kits, built by their own (cached) build.sh, for the all-languages arena.
OTHER_KITS: dict[str, tuple[Path, Path]] = {
    "typescript": (
        REPO / "clients/typescript",
        REPO / "clients/typescript/dist/rookery-sample-bot",
    ),
    "go": (REPO / "clients/go", REPO / "clients/go/bin/rookery-sample-bot"),
}
#: The Python reference bot the kits play with and against.
PYTHON_BOT = "rookery.client.bots.heuristic:HeuristicBot"
#: The longest any one game of these tests may take.
GAME_TIMEOUT_S = 90.0
#: A clock loose enough for a loaded test machine, tight enough to end a stuck test.
TEST_CLOCK = TimeControl(action_ms=5000, grace_ms=15000)
#: Game ends that mean the game was played out.
PLAYED_OUT = (
    results_pb2.TERMINATION_REASON_TARGET_REACHED,
    results_pb2.TERMINATION_REASON_MAX_HANDS,
)
#: The summary line every kit's runner prints when it stops after --games.
DONE_LINE = re.compile(
    r"\[rookery\] done: games=(\d+) actions=(\d+) fallbacks=(\d+) rejections=(\d+) "
    r"reconnects=(\d+) resumes=(\d+)"
)


class KitBuildError(AssertionError):
    """A kit's build.sh failed; the message carries its output."""


@dataclass(frozen=True)
class Build:
    """One run of a kit's build.sh: its output and how long it took."""

    output: str
    seconds: float


def build_kit(folder: Path, *args: str, timeout: float = 900.0) -> Build:
    """Run a kit's build.sh (cached by the script itself) at low priority."""
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
        raise KitBuildError(
            f"{folder}/build.sh {' '.join(args)} failed ({process.returncode}):\n{output}"
        )
    return Build(output, time.monotonic() - started)


@dataclass(frozen=True)
class RunSummary:
    """The counts of a kit runner's closing ``done:`` line."""

    games: int
    actions: int
    fallbacks: int
    rejections: int
    reconnects: int
    resumes: int


def run_summary(log: str) -> RunSummary:
    """The kit runner's ``done:`` line, parsed; AssertionError with the log when there is none."""
    match = DONE_LINE.search(log)
    assert match is not None, f"no done: line in the bot's log:\n{log}"
    return RunSummary(*(int(group) for group in match.groups()))


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
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 10.0)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        assert self.process.returncode is not None
        return self.process.returncode


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

    async def python_bot(self, server: str, name: str, *options: str) -> Process:
        """A Python reference bot run by ``rookery bot run``."""
        argv = [str(ROOKERY), "bot", "run", PYTHON_BOT, "--server", server, "--name", name]
        return await self._start(name, [*argv, "--log-level", "warning", *options], {})

    async def stop_all(self) -> None:
        await asyncio.gather(*(bot.stop() for bot in self.started))


async def play(server: RookeryServer, seat_bots: tuple[str, ...], *, seed: int) -> TableOutcome:
    """Create a table of ``standard`` seating ``seat_bots`` and wait for its game to end."""
    spec = TableSpec(
        Ruleset.preset("standard"),
        seat_bots,
        seed=seed,
        time_control=TEST_CLOCK,
        join_timeout_s=60.0,
    )
    table = await server.create_table(spec)
    return await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)


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


async def wait_until(condition: Callable[[], bool], *, what: str, limit_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; TimeoutError naming ``what`` otherwise."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {limit_s:g} s")
        await asyncio.sleep(0.02)


class CuttableProxy:
    """A TCP proxy in front of the server whose open connections can be cut (a dead network).

    It keeps listening after a cut, so a client that reconnects gets through again.
    """

    def __init__(self, upstream: str) -> None:
        host, _, port = upstream.rpartition(":")
        self._upstream = (host, int(port))
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def target(self) -> str:
        assert self._server is not None
        return f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self._writers.difference_update((writer, up_writer))

    def cut(self) -> int:
        """Abort every open connection; how many were cut."""
        cut = 0
        for writer in list(self._writers):
            if not writer.transport.is_closing():
                writer.transport.abort()
                cut += 1
        self._writers.clear()
        return cut

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, upstream: str) -> AsyncIterator[CuttableProxy]:
        proxy = cls(upstream)
        proxy._server = await asyncio.start_server(proxy._handle, "127.0.0.1", 0)
        try:
            yield proxy
        finally:
            proxy.cut()
            proxy._server.close()
            await proxy._server.wait_closed()


class BuiltKits:
    """Each kit built, with its unit tests run (``build.sh test``), once per test run and only
    when a test first needs it, so that no single test pays for more than one cold build."""

    def __init__(self) -> None:
        self._builds: dict[str, Build] = {}

    def __getitem__(self, language: str) -> Build:
        if language not in self._builds:
            self._builds[language] = build_kit(KITS[language][0], "test")
        return self._builds[language]

    def all(self) -> None:
        for language in LANGUAGES:
            self[language]


@pytest.fixture(scope="session")
def built_kits() -> Iterator[BuiltKits]:
    yield BuiltKits()


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    async with running_server(log_level="warning") as running:
        yield running


@pytest.fixture
async def launcher(tmp_path: Path) -> AsyncIterator[Launcher]:
    bots = Launcher(tmp_path)
    try:
        yield bots
    finally:
        await bots.stop_all()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_second_build_with_nothing_changed_does_nothing(
    language: str, built_kits: BuiltKits
) -> None:
    kit, command = KITS[language]
    built_kits[language]

    again = build_kit(kit)

    assert again.output.strip() == str(command), again.output
    assert again.seconds < 2.0


def test_rust_kit_unit_tests_pass_under_cargo_test(built_kits: BuiltKits) -> None:
    output = built_kits["rust"].output

    assert re.search(r"test result: ok\. 1\d passed; 0 failed", output), output
    assert "test sample::tests::plays_the_cheapest_winning_card ... ok" in output, output


def test_java_kit_unit_tests_pass_under_surefire(built_kits: BuiltKits) -> None:
    output = built_kits["java"].output

    assert "Tests run: 6, Failures: 0, Errors: 0, Skipped: 0" in output, output  # CardsTest
    assert "Tests run: 11, Failures: 0, Errors: 0, Skipped: 0" in output, output  # SampleBotTest


def test_cpp_kit_unit_tests_pass_under_ctest(built_kits: BuiltKits) -> None:
    output = built_kits["cpp"].output

    assert "100% tests passed, 0 tests failed out of 17" in output, output


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_plays_four_games_with_and_against_python_bots_every_action_accepted(
    language: str, built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits[language]
    kit_name, python_name = f"{language}-kit", "python-heuristic"
    kit = await launcher.kit_bot(
        language, server.target, kit_name, "--max-tables", "4", "--games", "4"
    )
    await launcher.python_bot(server.target, python_name, "--sessions", "3", "--max-tables", "4")
    # The kit bot takes each seat once: partnering a Python bot and playing against two.
    layouts = [
        tuple(kit_name if seat == kit_seat else python_name for seat in range(4))
        for kit_seat in range(4)
    ]

    outcomes = await asyncio.gather(
        *(play(server, seats, seed=200 + i) for i, seats in enumerate(layouts))
    )

    for kit_seat, outcome in enumerate(outcomes):
        assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
        replay = await fetch_replay(server.target, outcome.table_id)
        assert replay.header.seats[kit_seat].bot_name == kit_name
        assert refused_actions(replay) == [], kit.log()
        assert actions_of(replay, kit_seat) > 0
        assert replay.result.reason == outcome.termination
    assert await kit.wait() == 0, kit.log()
    summary = run_summary(kit.log())
    assert (summary.games, summary.fallbacks, summary.rejections) == (4, 0, 0), kit.log()
    assert summary.actions == sum(
        outcome.seat_stats[seat].actions for seat, outcome in enumerate(outcomes)
    )


async def test_rust_java_and_cpp_bots_play_one_game_together_with_a_python_bot(
    built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits.all()
    for language in LANGUAGES:
        await launcher.kit_bot(language, server.target, language)
    await launcher.python_bot(server.target, "py")

    # Rust partners C++ (seats 0 and 2) against Java and Python (seats 1 and 3).
    outcome = await play(server, ("rust", "java", "cpp", "py"), seed=7)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == []
    assert [actions_of(replay, seat) > 0 for seat in range(4)] == [True] * 4


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_resumes_its_session_after_the_network_drops_mid_game(
    language: str, built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits[language]
    async with CuttableProxy.running(server.target) as proxy:
        kit = await launcher.kit_bot(language, proxy.target, "kit", "--games", "1")
        await launcher.python_bot(server.target, "py", "--sessions", "3")
        spec = TableSpec(
            Ruleset.preset("standard"), ("kit", "py", "py", "py"), seed=11, time_control=TEST_CLOCK
        )
        table = await server.create_table(spec)
        await wait_until(lambda: table.game_seq > 40, what="the game to get under way")
        assert proxy.cut() > 0

        outcome = await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)
        assert await kit.wait() == 0, kit.log()

    assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
    summary = run_summary(kit.log())
    assert summary.resumes >= 1, kit.log()
    assert (summary.games, summary.rejections) == (1, 0), kit.log()
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == [], kit.log()


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_exits_4_with_a_clear_message_when_no_server_answers(
    language: str, built_kits: BuiltKits, launcher: Launcher
) -> None:
    built_kits[language]
    kit = await launcher.kit_bot(language, "127.0.0.1:1", "kit", "--connect-timeout", "1")

    assert await kit.wait() == 4, kit.log()
    assert "was unreachable" in kit.log() and "127.0.0.1:1" in kit.log(), kit.log()


def test_arena_round_robin_rates_all_six_languages(built_kits: BuiltKits, tmp_path: Path) -> None:
    built_kits.all()
    for folder, _ in OTHER_KITS.values():
        build_kit(folder)
    out = tmp_path / "run"
    bots = {f"{language}-kit": str(command) for language, (_, command) in KITS.items()}
    bots |= {f"{language}-kit": str(command) for language, (_, command) in OTHER_KITS.items()}
    bots["python-heuristic"] = f"{ROOKERY} bot run {PYTHON_BOT}"
    argv = [str(ROOKERY), "arena", "run", "--name", "six-languages", "--preset", "standard"]
    argv += ["--games", "2", "--concurrency", "2", "--seed", "9", "--out", str(out)]
    for name, command in bots.items():
        argv += ["--bot", f"{name}={command}"]

    process = subprocess.run(
        argv, capture_output=True, text=True, timeout=420, check=False, cwd=tmp_path
    )

    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    with (out / "games.csv").open(newline="") as handle:
        games = list(csv.DictReader(handle))
    assert len(games) == 30, output  # 15 pairings x 2 games (a duplicate pair each)
    assert {game["termination"] for game in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games
    for name in bots:
        assert sum(name in game["seats"].split() for game in games) == 10, (name, games)
    rejected = [
        (game["game_id"], refused)
        for game in games
        if (refused := refused_actions(read_replay(out / game["replay"])))
    ]
    assert rejected == []
    standings = output + "".join(path.read_text() for path in out.glob("*.md"))
    for name in bots:
        assert name in standings, standings
