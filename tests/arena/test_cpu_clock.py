"""``clock = "cpu"``: a bot on a loaded machine keeps its time; on the wall clock it loses it.

The bot spends 60 ms of CPU a move against a budget of 150 ms. Three busy processes share its
CPU (the game's bots are pinned to one CPU, ``pin_cpus``), so a move takes about four times its
CPU time in wall time: over the budget on the wall clock, well within it on the CPU clock.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, ClockKind, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore
from rookery.arena.records._storage import BotGameStats
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl

HERE = Path(__file__).parent
HOGS = 3


@pytest.fixture
def loaded_cpu() -> Iterator[int]:
    """Three processes spinning on the first CPU this test may use, for the test's length."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    code = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    # Each in a session of its own, as the bots are: with the kernel's autogroup scheduling a
    # session shares the CPU as one, so three hogs in one session would weigh as one.
    hogs = [
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(HOGS)
    ]
    try:
        yield cpu
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait(10)


def _spinner_stats(tmp_path: Path, clock: ClockKind) -> BotGameStats:
    bot = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run"
    spin = BotSpec(
        "spin", f"{bot} {shlex.quote(str(HERE / 'clock_bots.py'))}:SpinBot", env={"SPIN_MS": "60"}
    )
    quick = BotSpec("quick", f"{bot} {shlex.quote(str(HERE / 'sdk_bots.py'))}:GreedyBot")
    config = TournamentConfig(
        name="clock",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=(spin, quick),
        games=1,
        duplicate=False,
        concurrency=1,
        time_control=TimeControl(action_ms=150, strike_limit=0, grace_ms=500),
        bootstrap=0,
        sandbox=SandboxMode.ON,
        clock=clock,
        pin_cpus=True,
    )
    result = asyncio.run(TournamentRunner(config, tmp_path / "run").run())
    assert result.recorded == 1
    store = RunStore(tmp_path / "run")
    try:
        (game,) = store.games("clock")
    finally:
        store.close()
    return game.bot_stats["spin"]


def test_a_loaded_machine_costs_a_bot_its_moves_on_the_wall_clock(
    tmp_path: Path, loaded_cpu: int
) -> None:
    stats = _spinner_stats(tmp_path, ClockKind.WALL)
    assert stats.timeouts >= (stats.actions + stats.timeouts) // 2, stats


def test_a_loaded_machine_costs_a_bot_nothing_on_the_cpu_clock(
    tmp_path: Path, loaded_cpu: int
) -> None:
    stats = _spinner_stats(tmp_path, ClockKind.CPU)
    assert stats.timeouts == 0, stats
    assert stats.actions > 10
    assert 50 <= stats.think_ms_total / stats.actions < 150, stats  # its 60 ms, in CPU time
