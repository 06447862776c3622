"""Fixtures of the web tests: a real tournament, a real game server with slow in-process bots,
the dashboard serving both, and Debian's Chromium driven by Playwright.

The servers run in an event loop of their own thread (``LoopThread``) so that the tests can use
Playwright's synchronous API.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.report import load_run
from rookery.arena.runner import RunOptions, TournamentRunner
from rookery.client import arun_bot, load_bot
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TimeControl
from rookery.web import WebServer
from rookery.web.testing import LiveGame, LoopThread, Tournament

HERE = Path(__file__).parent
PYTHON = shlex.quote(sys.executable)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Short games: the first side to 100 points wins.
SHORT = Ruleset.preset("standard").replace(target=100)
#: The live game: long enough to be watched over several hands.
LIVE = Ruleset.preset("standard").replace(target=300)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go: ``$ROOKERY_WEB_ARTIFACTS`` or ``tests/web/artifacts`` (ignored)."""
    path = Path(os.environ.get("ROOKERY_WEB_ARTIFACTS", HERE / "artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's), no network services of its own."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page; JavaScript errors fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    """The event loop of the servers, in a thread of its own."""
    thread = LoopThread()
    yield thread
    thread.close()


def _bot(name: str, cls: str) -> BotSpec:
    path = shlex.quote(str(HERE / "web_bots.py"))
    return BotSpec(name, f"{PYTHON} -m rookery.cli.main bot run {path}:{cls}")


@pytest.fixture(scope="session")
def tournament(loop_thread: LoopThread) -> Iterator[Tournament]:
    """A real round-robin of three launched bots (short games), then the dashboard over it."""
    with tempfile.TemporaryDirectory(prefix="rookery-web-") as tmp:
        run_dir = Path(tmp) / "run"
        config = TournamentConfig(
            name="webtest",
            ruleset=SHORT,
            bots=(
                _bot("random", "RandomBot"),
                _bot("greedy", "GreedyBot"),
                _bot("first", "FirstBot"),
            ),
            games=4,
            concurrency=2,
            time_control=TimeControl(action_ms=2000, strike_limit=3, grace_ms=500),
            bootstrap=50,
        )
        options = RunOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=60.0)
        loop_thread.run(TournamentRunner(config, run_dir, options=options).run(), 150.0)
        web = WebServer("127.0.0.1:0", runs=[Path(tmp)])
        loop_thread.run(web.start())
        yield Tournament(run_dir, load_run(run_dir), web)
        loop_thread.run(web.stop())


async def _start_live(tmp: Path) -> LiveGame:
    server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="warning"))
    await server.start()
    web = WebServer("127.0.0.1:0", server=server, poll_interval_s=0.05)
    await web.start()
    slow_bot = load_bot(f"{HERE / 'web_bots.py'}:SlowBot")
    stop = asyncio.Event()
    for name in ("slow-a", "slow-b"):
        asyncio.get_running_loop().create_task(
            arun_bot(slow_bot, server.target, name=name, sessions=2, stop=stop)
        )
    for name in ("slow-a", "slow-b"):
        await server.wait_for_bot(name, sessions=2, timeout=20.0)
    table = await server.create_table(
        TableSpec(
            ruleset=LIVE,
            seat_bots=("slow-a", "slow-b", "slow-a", "slow-b"),
            seed=7,
            time_control=TimeControl(action_ms=5000),
            table_id="live-1",
        )
    )
    return LiveGame(server, web, table, stop)


@pytest.fixture(scope="module")
def live_game(loop_thread: LoopThread) -> Iterator[LiveGame]:
    """A 4-seat game of two slow bots (40 ms an action), started at once, not awaited."""
    with tempfile.TemporaryDirectory(prefix="rookery-live-") as tmp:
        game = loop_thread.run(_start_live(Path(tmp)), 60.0)
        game.loop = loop_thread
        yield game

        async def stop() -> None:
            game.stop.set()
            await game.web.stop()
            await game.server.stop(grace_s=0.5)

        loop_thread.run(stop(), 30.0)
