"""A stop asked for while the arena waits for its bots to connect ends the run at once, not when
the wait would have timed out (``remote_wait_s`` is ten minutes by default, ``connect_timeout_s``
a minute): Ctrl-C of ``rookery arena run`` and a server's shutdown are answered."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.run import TournamentOptions, TournamentRunner

BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]
WAIT_S = 120.0
"""The wait the stop cuts short: far longer than any test may take."""


async def _stopped_while_waiting(runner: TournamentRunner, waiting_for: str) -> float:
    """Starts the run, asks for a stop once it waits for ``waiting_for``; the seconds to its end."""
    run = asyncio.create_task(runner.run())
    for _ in range(600):
        if any(f"waiting for remote bot {waiting_for!r}" in m for m in runner.live.messages):
            break
        if runner.server is not None and runner.launchers.get(waiting_for) is not None:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the run never waited for the bot")
    await asyncio.sleep(0.5)  # well inside the wait
    stopped = time.monotonic()
    runner.request_stop()
    result = await asyncio.wait_for(run, WAIT_S)
    assert result.cancelled and result.recorded == 0
    return time.monotonic() - stopped


async def test_a_stop_ends_the_wait_for_a_remote_bot(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    config = make_config((make_sdk_bot("a", "RandomBot"), BotSpec("far", remote=True)))
    runner = TournamentRunner(config, tmp_path, options=TournamentOptions(remote_wait_s=WAIT_S))
    assert await _stopped_while_waiting(runner, "far") < 10.0


async def test_a_stop_ends_the_wait_for_a_launched_bot_that_does_not_connect(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    silent = BotSpec("silent", f"{sys.executable} -c 'import time; time.sleep(300)'")
    config = make_config((make_sdk_bot("a", "RandomBot"), silent), process_per_game=False)
    runner = TournamentRunner(config, tmp_path, options=TournamentOptions(connect_timeout_s=WAIT_S))
    assert await _stopped_while_waiting(runner, "silent") < 10.0
