"""The TypeScript and Go starter kits: built with their own tools, unit-tested with their own test
runners, and played as separate processes through whole games against Python bots on a real
server, every action accepted.

The helpers live in this module rather than in ``conftest.py``: the kits of other languages have
their own test modules in this folder, and nothing here is shared with them.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import os
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

REPO = Path(__file__).resolve().parents[2]
ROOKERY = Path(sys.executable).with_name("rookery")

#: The kit folder and the command each kit's build.sh produces.
KITS: dict[str, tuple[Path, Path]] = {
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
TEST_CLOCK = TimeControl(action_ms=5000, grace_ms=10000)
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


def build_kit(language: str, timeout: float = 600.0) -> Build:
    """Run the kit's build.sh (cached by the script itself) at low priority."""
    kit, _ = KITS[language]
    started = time.monotonic()
    process = subprocess.run(
        ["nice", "-n", "10", str(kit / "build.sh")],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = process.stdout + process.stderr
    if process.returncode != 0:
        raise KitBuildError(f"{kit}/build.sh failed ({process.returncode}):\n{output}")
    return Build(output, time.monotonic() - started)


def run_unit_tests(command: list[str], cwd: Path, timeout: float = 300.0) -> str:
    """Run a kit's own test tool; its output, or an AssertionError with that output."""
    process = subprocess.run(
        ["nice", "-n", "10", *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 0, f"{' '.join(command)} failed in {cwd}:\n{output}"
    return output


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

    async def kit_bot(
        self,
        language: str,
        server: str,
        name: str,
        *options: str,
        env: dict[str, str] | None = None,
    ) -> Process:
        """The kit's sample bot, given its server and name in the environment as the arena does."""
        _, command = KITS[language]
        environment = {"ROOKERY_SERVER": server, "ROOKERY_BOT_NAME": name, **(env or {})}
        return await self._start(name, [str(command), *options], environment)

    async def python_bot(self, server: str, name: str, *options: str) -> Process:
        """A Python reference bot run by ``rookery bot run``."""
        argv = [str(ROOKERY), "bot", "run", PYTHON_BOT, "--server", server, "--name", name]
        return await self._start(name, [*argv, "--log-level", "warning", *options], {})

    async def stop_all(self) -> None:
        await asyncio.gather(*(bot.stop() for bot in self.started))


async def play(
    server: RookeryServer,
    seat_bots: tuple[str, ...],
    *,
    seed: int,
    preset: str = "standard",
    clock: TimeControl = TEST_CLOCK,
) -> TableOutcome:
    """Create a table seating ``seat_bots`` and wait for its game to end."""
    spec = TableSpec(
        Ruleset.preset(preset), seat_bots, seed=seed, time_control=clock, join_timeout_s=30.0
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


async def wait_until(condition: Callable[[], bool], *, what: str, limit_s: float = 30.0) -> None:
    """Poll ``condition`` until it holds; TimeoutError naming ``what`` otherwise."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {limit_s:g} s")
        await asyncio.sleep(0.02)


def refused_actions(replay: replay_pb2.Replay) -> list[str]:
    """Every recorded action that was not the bot's own accepted one, described."""
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


LANGUAGES = ("typescript", "go")


@pytest.fixture(scope="session")
def built_kits() -> Iterator[dict[str, float]]:
    """Build both kits once per test run (each build.sh is itself cached across runs)."""
    yield {language: build_kit(language).seconds for language in LANGUAGES}


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
    language: str, built_kits: dict[str, float]
) -> None:
    again = build_kit(language)

    assert again.output == "", again.output
    assert again.seconds < 2.0


def test_typescript_kit_unit_tests_pass_under_node_test(built_kits: dict[str, float]) -> None:
    kit, _ = KITS["typescript"]

    output = run_unit_tests(["node", "--test", "dist/test/"], kit)

    assert "# fail 0" in output, output


def test_go_kit_unit_tests_pass_under_go_test(built_kits: dict[str, float]) -> None:
    kit, _ = KITS["go"]

    output = run_unit_tests(["go", "test", "./..."], kit)

    assert "ok  \trookery/kit/samplebot" in output, output
    assert "ok  \trookery/kit/rookery" in output, output


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_plays_four_games_with_and_against_python_bots_every_action_accepted(
    language: str, built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    kit_name, python_name = f"{language}-kit", "python-heuristic"
    kit = await launcher.kit_bot(language, server.target, kit_name, "--max-tables", "4")
    await launcher.python_bot(server.target, python_name, "--sessions", "3", "--max-tables", "4")
    # The kit bot takes each seat once: partnering a Python bot and playing against two.
    layouts = [
        tuple(kit_name if seat == kit_seat else python_name for seat in range(4))
        for kit_seat in range(4)
    ]

    outcomes = await asyncio.gather(
        *(play(server, seats, seed=100 + i) for i, seats in enumerate(layouts))
    )

    for kit_seat, outcome in enumerate(outcomes):
        assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
        replay = await fetch_replay(server.target, outcome.table_id)
        assert replay.header.seats[kit_seat].bot_name == kit_name
        assert refused_actions(replay) == [], kit.log()
        assert actions_of(replay, kit_seat) > 0
        assert replay.result.reason == outcome.termination
        stats = outcome.seat_stats[kit_seat]
        assert (stats.auto_plays, stats.illegal_replies, stats.malformed_replies) == (0, 0, 0)
    assert "rejected" not in kit.log() and "fallback" not in kit.log(), kit.log()


async def test_typescript_and_go_bots_partner_each_other_against_python_bots(
    built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    await launcher.kit_bot("typescript", server.target, "ts")
    await launcher.kit_bot("go", server.target, "go")
    await launcher.python_bot(server.target, "py", "--sessions", "2")

    outcome = await play(server, ("ts", "py", "go", "py"), seed=7)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == []


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_resumes_its_session_after_the_network_drops_mid_game(
    language: str, built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    async with CuttableProxy.running(server.target) as proxy:
        kit = await launcher.kit_bot(language, proxy.target, "kit")
        await launcher.python_bot(server.target, "py", "--sessions", "3")
        spec = TableSpec(
            Ruleset.preset("standard"), ("kit", "py", "py", "py"), seed=11, time_control=TEST_CLOCK
        )
        table = await server.create_table(spec)
        await wait_until(lambda: table.game_seq > 40, what="the game to get under way")
        assert proxy.cut() > 0

        outcome = await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)

    assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
    assert "resumed: session" in kit.log(), kit.log()
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == [], kit.log()


async def test_kit_bots_exit_after_their_games_with_the_games_flag(
    built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    ts = await launcher.kit_bot("typescript", server.target, "ts", "--games", "1")
    go = await launcher.kit_bot("go", server.target, "go", "--games", "1")
    await launcher.python_bot(server.target, "py", "--sessions", "2")

    await play(server, ("ts", "go", "py", "py"), seed=3)

    assert await ts.wait() == 0, ts.log()
    assert await go.wait() == 0, go.log()
    assert "done: 1 tables" in ts.log() and "done: 1 tables" in go.log()


def test_arena_round_robin_rates_the_typescript_and_go_bots_beside_a_python_bot(
    built_kits: dict[str, float], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    bots = {
        "typescript-kit": str(KITS["typescript"][1]),
        "go-kit": str(KITS["go"][1]),
        "python-heuristic": f"{ROOKERY} bot run {PYTHON_BOT}",
    }
    argv = [str(ROOKERY), "arena", "run", "--name", "kits", "--preset", "standard"]
    argv += ["--games", "2", "--concurrency", "2", "--seed", "5", "--out", str(out)]
    for name, command in bots.items():
        argv += ["--bot", f"{name}={command}"]

    process = subprocess.run(
        argv, capture_output=True, text=True, timeout=240, check=False, cwd=tmp_path
    )

    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    with (out / "games.csv").open(newline="") as handle:
        games = list(csv.DictReader(handle))
    assert len(games) == 6, output  # 3 pairings x 2 games
    assert {game["termination"] for game in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games
    for name in ("typescript-kit", "go-kit"):
        assert sum(name in game["seats"].split() for game in games) == 4, games
    rejected = [
        (game["game_id"], refused)
        for game in games
        if (refused := refused_actions(read_replay(out / game["replay"])))
    ]
    assert rejected == []
