"""What the sandbox costs: start-up per bot process, and games/s of a round-robin with and without.

Figures, each the median of several runs taken in this one command, interleaved so that the
machine's load touches every setting alike:

- start-up: ``/bin/true`` started as a bot process (guard, bwrap, init) against unconfined;
- start-up to connected: a Python SDK bot, from its start until its session is open;
- games/s of a round-robin of fast bots (one hand a game): unconfined with processes for the
  whole tournament, sandboxed with the same, sandboxed with fresh processes per game (the
  default with ``clock = "cpu"``) and sandboxed in warm lanes (the default otherwise; two bots:
  two lanes, four processes). ``sandbox_play_bench.py`` measures the lanes once warm.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import (
    SandboxLimits,
    SandboxMode,
    SandboxRuntime,
    probe,
    start_bot_process,
)
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TimeControl

RUNS = 5
BOT = f"{sys.executable} -m rookery.cli.main bot run rookery.client.bots.heuristic:HeuristicBot"


async def _start_up(runtime: SandboxRuntime | None, argv: list[str], log: Path) -> float:
    started = time.perf_counter()
    bot = await start_bot_process(argv, {"PATH": "/usr/bin:/bin"}, log, "bench", label="bench",
                                  runtime=runtime, server_target="127.0.0.1:40000")  # fmt: skip
    await bot.process.wait()
    elapsed = time.perf_counter() - started
    await bot.stop(grace_s=1.0)
    return elapsed


async def _connected(server: RookeryServer, runtime: SandboxRuntime | None, log: Path) -> float:
    started = time.perf_counter()
    env = {
        "ROOKERY_SERVER": server.target,
        "ROOKERY_BOT_NAME": "bench",
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        # The server's Unix socket admits a sandboxed session only with its launch key.
        "ROOKERY_TOKEN": server.issue_launch_key("bench", 1),
    }
    if runtime is not None:
        env = runtime.environment(env, {})
    argv = [*BOT.split(), "--sessions", "1"]
    bot = await start_bot_process(argv, env, log, "bench", label="bench", runtime=runtime,
                                  server_target=server.target)  # fmt: skip
    await server.wait_for_bot("bench", 1, timeout=60)
    elapsed = time.perf_counter() - started
    await bot.stop(grace_s=1.0)
    deadline = time.monotonic() + 10
    while server.sessions.get("bench") and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    return elapsed


async def start_up_figures(directory: Path) -> None:
    support = probe()
    socket = directory / "server.sock"
    runtime = SandboxRuntime(support, SandboxLimits(), socket)
    server = RookeryServer(
        ServerConfig(address="127.0.0.1:0", unix_socket=str(socket), log_level="warning")
    )
    await server.start()
    try:
        true: dict[str, list[float]] = {"unconfined": [], "sandboxed": []}
        connect: dict[str, list[float]] = {"unconfined": [], "sandboxed": []}
        for _ in range(RUNS):
            for name, chosen in (("unconfined", None), ("sandboxed", runtime)):
                log = directory / f"{name}.log"
                true[name].append(await _start_up(chosen, ["/bin/true"], log))
                connect[name].append(await _connected(server, chosen, log))
    finally:
        await server.stop(grace_s=0.5)
        runtime.close()
    for title, figures in (("start /bin/true", true), ("start a Python bot to connected", connect)):
        plain = statistics.median(figures["unconfined"])
        boxed = statistics.median(figures["sandboxed"])
        print(
            f"{title}: unconfined {plain * 1000:.0f} ms, sandboxed {boxed * 1000:.0f} ms "
            f"(+{(boxed - plain) * 1000:.0f} ms, x{boxed / plain:.2f}; median of {RUNS})"
        )
    print(f"sandbox here: {support.describe()}")


def _config(mode: SandboxMode, per_game: bool | None) -> TournamentConfig:
    return TournamentConfig(
        name="bench",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=(BotSpec("a", BOT), BotSpec("b", BOT)),
        games=8,
        concurrency=2,
        time_control=TimeControl(action_ms=5000, grace_ms=5000),
        bootstrap=0,
        sandbox=mode,
        process_per_game=per_game,
    )


def games_per_second(directory: Path) -> None:
    settings = {
        "unconfined, processes for the tournament": _config(SandboxMode.OFF, False),
        "sandboxed, processes for the tournament": _config(SandboxMode.ON, False),
        "sandboxed, fresh processes per game": _config(SandboxMode.ON, True),
        "sandboxed, warm lanes (the default)": _config(SandboxMode.ON, None),
    }
    rates: dict[str, list[float]] = {name: [] for name in settings}
    for run in range(3):
        for index, (name, config) in enumerate(settings.items()):
            result = asyncio.run(TournamentRunner(config, directory / f"run-{run}-{index}").run())
            rates[name].append(result.played / result.wall_s)
    base = statistics.median(rates["unconfined, processes for the tournament"])
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"round-robin, {name}: {rate:.2f} games/s (x{rate / base:.2f}; median of 3)")


def main() -> None:
    if not probe(cgroups=False).available:
        print(f"skipped: {probe(cgroups=False).describe()}")
        return
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        directory.chmod(0o755)
        asyncio.run(start_up_figures(directory))
        games_per_second(directory)


if __name__ == "__main__":
    main()
