"""Fixtures of the web tests: a real tournament, a real game server with slow in-process bots,
the dashboard serving both, and Debian's Chromium driven by Playwright.

The servers run in an event loop of their own thread (``LoopThread``) so that the tests can use
Playwright's synchronous API.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from rookery.arena.records import load_run
from rookery.arena.run._service import make_backend
from rookery.client import arun_bot, load_bot
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TimeControl
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2
from rookery.web import WebServer
from rookery.web.testing import LiveGame, LoopThread, Tournament
from rookery.wire.convert import ruleset_to_proto

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


#: How to stop the session's Playwright, once it has started.
_STOP_PLAYWRIGHT: list[Callable[[], None]] = []


@pytest.hookimpl(trylast=True)  # after the test's own fixtures (a page) are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop Playwright after the last browser test of this process: its sync API leaves its event
    loop marked running in this thread, which would refuse every asyncio test after it (under
    xdist, a worker runs other folders' tests after the web group, which tests/conftest.py keeps
    in one piece)."""
    if nextitem is None or not nextitem.path.is_relative_to(HERE):
        while _STOP_PLAYWRIGHT:
            _STOP_PLAYWRIGHT.pop()()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's), no network services of its own; stopped after the last
    browser test (``pytest_runtest_teardown``) or at the end of the session."""
    playwright = sync_playwright().start()
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )

    def stop() -> None:
        chromium.close()
        playwright.stop()

    _STOP_PLAYWRIGHT.append(stop)
    yield chromium
    while _STOP_PLAYWRIGHT:
        _STOP_PLAYWRIGHT.pop()()


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


def _bot(name: str, cls: str) -> api.TournamentBot:
    path = shlex.quote(str(HERE / "web_bots.py"))
    return api.TournamentBot(
        name=name, command=f"{PYTHON} -m rookery.cli.main bot run {path}:{cls}"
    )


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def _start_serve(store: Path) -> tuple[RookeryServer, WebServer]:
    """What ``rookery serve`` starts: the game server with the arena's tournament backend, and
    the dashboard with no ``--web-runs``."""
    server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="warning"))
    server.tournaments = make_backend(server, store)
    await server.start()
    web = WebServer("127.0.0.1:0", server=server)
    await web.start()
    return server, web


def _watch(
    stub: arena_service_pb2_grpc.ArenaServiceStub, web: WebServer, key: str, browser: Browser
) -> tuple[set[str], set[str]]:
    """Watches the tournament page in the browser while the tournament runs: the tables its
    "Now playing" list links, and the finished games whose replay the dashboard withholds (409)
    meanwhile."""
    playing: set[str] = set()
    withheld: set[str] = set()
    context = browser.new_context()
    page = context.new_page()
    opened = False
    deadline = time.monotonic() + 150
    try:
        while time.monotonic() < deadline:
            info = stub.GetTournament(api.GetTournamentRequest(tournament_id=key), timeout=10)
            if info.tournament.status != api.TOURNAMENT_STATUS_RUNNING:
                return playing, withheld
            status, view = _get(f"{web.url}/api/tournaments/{key}")
            if status == 200:
                if not opened:
                    page.goto(f"{web.url}/tournaments/{key}")  # it reloads itself every 2 s
                    opened = True
                links = page.locator("#now-playing li a").evaluate_all(
                    "as => as.map(a => a.getAttribute('href'))"
                )
                playing |= {href.removeprefix("/tables/") for href in links}
                for game in view["game_list"]:
                    if not game["has_replay"] and len(withheld) < 3:
                        code, _ = _get(f"{web.url}/api/replays/{game['game_id']}")
                        if code == 409:
                            withheld.add(game["game_id"])
            time.sleep(0.25)
    finally:
        context.close()
    raise AssertionError(f"tournament {key} still running after 150 s")


@pytest.fixture(scope="session")
def tournament(loop_thread: LoopThread, browser: Browser) -> Iterator[Tournament]:
    """A real duplicate round-robin of three launched bots (short games), created through
    ArenaService on a server started as ``rookery serve`` starts it, and that server's own
    dashboard (no run directories given)."""
    with tempfile.TemporaryDirectory(prefix="rookery-web-") as tmp:
        store = Path(tmp) / "store"
        server, web = loop_thread.run(_start_serve(store), 60.0)
        spec = api.TournamentSpec(
            name="webtest",
            bots=[
                _bot("random", "RandomBot"),
                _bot("greedy", "GreedyBot"),
                _bot("first", "FirstBot"),
            ],
            ruleset=ruleset_to_proto(SHORT),
            games=2,
            duplicate=True,
            concurrency=2,
            seed=11,
            time_control=table_pb2.TimeControl(action_ms=2000, strike_limit=3, grace_ms=500),
        )
        with grpc.insecure_channel(server.target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            created = stub.CreateTournament(api.CreateTournamentRequest(spec=spec), timeout=10)
            key = created.tournament.tournament_id
            playing, withheld = _watch(stub, web, key, browser)
        run_dir = store / key
        yield Tournament(run_dir, load_run(run_dir), web, key, server, playing, withheld)

        async def stop() -> None:
            await web.stop()
            await server.stop(grace_s=0.5)

        loop_thread.run(stop(), 30.0)


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
