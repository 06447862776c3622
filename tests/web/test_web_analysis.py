"""The replay viewer's double-dummy analysis and par, as an attack: no analysis or par of a hand
is served, by the API or in the page, while its game or the twin game on the same deals is being
played; once both are over, the followed seat's costly cards are marked as the API values them,
and the hand's par is the one worked out from the replay file.

Two tables of a real server play the same seed; each one's bots wait at a gate the test opens,
so the test knows which game is still being played when it asks.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page
from rookery.client import arun_bot
from rookery.client.par import format_par, hand_par, par_to_json
from rookery.engine import Action, Observation, Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TimeControl
from rookery.web import WebServer
from rookery.web.testing import LoopThread
from rookery.wire.replay import decode_replay, replay_to_record
from web_bots import GreedyBot

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)

#: 8 tricks a seat (no 1 to 5s): each hand is solved from its first card in well under a second.
RULES = Ruleset.preset("standard").replace(lowest_rank=6, max_hands=2)
SEED = 44


@dataclass
class Twins:
    """Two tables on the same deals, each one's bots held at a gate until the test opens it."""

    server: RookeryServer
    web: WebServer
    gates: dict[str, threading.Event]
    stop: asyncio.Event
    bots: list[asyncio.Task[Any]]

    def finished(self, table_id: str) -> bool:
        return bool(self.server.get_table(table_id).is_finished)


class _GatedGreedy(GreedyBot):
    """The web tests' greedy bot (it bids once, then plays its highest-point card: it loses
    points a double-dummy analysis sees), waiting for its ``gate`` before each action."""

    gate = threading.Event()

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(44)  # its bury draws: the same games on every run

    async def act(self, observation: Observation) -> Action:  # type: ignore[override]
        await asyncio.to_thread(self.gate.wait, 120.0)
        return GreedyBot.act(self, observation)


def _gated(gate: threading.Event) -> type[_GatedGreedy]:
    return type("Gated", (_GatedGreedy,), {"gate": gate})


async def _start(gates: dict[str, threading.Event]) -> Twins:
    server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="warning"))
    await server.start()
    web = WebServer("127.0.0.1:0", server=server)
    await web.start()
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(
            arun_bot(_gated(gates[twin]), server.target, name=name, sessions=2, stop=stop)
        )
        for twin in ("a", "b")
        for name in (f"{twin}-north", f"{twin}-east")
    ]
    for twin in ("a", "b"):
        for name in (f"{twin}-north", f"{twin}-east"):
            await server.wait_for_bot(name, sessions=2, timeout=20.0)
    for twin in ("a", "b"):
        north, east = f"{twin}-north", f"{twin}-east"
        await server.create_table(
            TableSpec(
                ruleset=RULES,
                seat_bots=(north, east, north, east),
                seed=SEED,
                time_control=TimeControl(action_ms=60_000),
                table_id=f"twin-{twin}",
            )
        )
    return Twins(server, web, gates, stop, tasks)


@pytest.fixture(scope="module")
def twins(loop_thread: LoopThread) -> Iterator[Twins]:
    gates = {"a": threading.Event(), "b": threading.Event()}
    with tempfile.TemporaryDirectory(prefix="rookery-analysis-"):
        started = loop_thread.run(_start(gates), 60.0)
        yield started
        for gate in gates.values():
            gate.set()

        async def stop() -> None:
            started.stop.set()
            await started.web.stop()
            await started.server.stop(grace_s=0.5)

        loop_thread.run(stop(), 30.0)


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _wait(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _page_fetch_status(page: Page, path: str) -> int:
    """The status the page itself gets for ``path`` (what any script on it could read)."""
    return int(page.evaluate("p => fetch(p, {cache: 'no-store'}).then(r => r.status)", path))


def _no_analysis_anywhere(twins: Twins, page: Page, what: str) -> None:
    url = twins.web.url
    for hand in range(RULES.max_hands):
        for game in ("twin-a", "twin-b"):
            status, body = _get(f"{url}/api/replays/{game}/analysis?hand={hand}")
            assert status == 409, f"{what}: {game} hand {hand}: {status} {body}"
            assert "plays" not in body and "dd_value" not in body
            status, body = _get(f"{url}/api/replays/{game}/par?hand={hand}")
            assert status == 409, f"{what}: {game} hand {hand} par: {status} {body}"
            assert "par" not in body and "lines" not in body
    page.goto("about:blank")
    page.goto(f"{url}/replays/twin-a#hand=0&seat=0")
    page.wait_for_selector(".error", timeout=60_000)
    assert page.locator("#dd-panel, .dd-mark").count() == 0
    assert _page_fetch_status(page, "/api/replays/twin-a/analysis?hand=0") == 409
    assert _page_fetch_status(page, "/api/replays/twin-a/par?hand=0") == 409


def test_no_analysis_is_served_until_the_game_and_its_twin_are_over(
    twins: Twins, page: Page
) -> None:
    # Both games on their first hand: neither replay nor analysis.
    _no_analysis_anywhere(twins, page, "both games being played")
    # Game a over, its twin b still on the same deals: still nothing, in the API or the page.
    twins.gates["a"].set()
    _wait(lambda: twins.finished("twin-a"), "game a to end")
    assert not twins.finished("twin-b")
    status, body = _get(f"{twins.web.url}/api/replays/twin-a/analysis?hand=0")
    assert status == 409 and "same seed" in body["error"], body
    _no_analysis_anywhere(twins, page, "game a over, b being played")
    # Both over: the analysis is served, and the viewer marks the followed seat's costly cards.
    twins.gates["b"].set()
    _wait(lambda: twins.finished("twin-b"), "game b to end")
    status, analysis = _get(f"{twins.web.url}/api/replays/twin-a/analysis?hand=0")
    assert status == 200, analysis
    assert analysis["dd_value"] is not None
    bidding, defending = analysis["bidding_side_cost"], analysis["defenders_cost"]
    assert bidding - defending == analysis["dd_value"] - analysis["taken"]
    costs: dict[int, list[int]] = {}
    for play in analysis["plays"]:
        costs.setdefault(play["seat"], []).append(play["cost"])
    seat = max(costs, key=lambda s: sum(costs[s]))  # the seat that lost the most
    assert sum(costs[seat]) > 0
    page.goto("about:blank")  # a new load, not the refused page's hash changing
    page.goto(f"{twins.web.url}/replays/twin-a#hand=0&seat={seat}")
    page.wait_for_selector("#dd-summary", timeout=60_000)
    page.keyboard.press("n")  # the last step of hand 0 lists its every move
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#dd-summary", timeout=60_000)
    shown = page.locator("#move-list .dd-mark").evaluate_all(
        "ms => ms.map(m => m.dataset.cost === '' ? null : Number(m.dataset.cost))"
    )
    assert shown == costs[seat], (shown, costs[seat])
    marked = page.locator(".dd-blunder, .dd-mistake, .dd-inaccuracy").count()
    assert marked == sum(1 for cost in costs[seat] if cost >= 5)
    summary = page.locator("#dd-summary").inner_text()
    assert f"Seat {seat}'s cards cost {sum(costs[seat])} points" in summary
    makeable = "makeable against" if analysis["makeable"] else "not makeable against"
    assert f"Double-dummy: {analysis['dd_value']} ({makeable}" in summary


def test_the_par_served_is_the_replays_and_the_viewer_shows_it(twins: Twins, page: Page) -> None:
    for gate in twins.gates.values():
        gate.set()
    _wait(lambda: twins.finished("twin-a") and twins.finished("twin-b"), "both games to end")
    url = twins.web.url
    with urllib.request.urlopen(f"{url}/api/replays/twin-a/file", timeout=60) as response:
        replay = decode_replay(response.read())
    results = replay_to_record(replay).replay(events=False).hand_results
    status, served = _get(f"{url}/api/replays/twin-a/par?hand=0")
    assert status == 200, served
    # The hand's par worked out from the file the dashboard serves, at the dashboard's limit.
    par = hand_par(RULES, results[0], node_limit=served["node_limit"])
    assert served["par"] == par_to_json(par)
    assert served["lines"] == [line.strip() for line in format_par(par, RULES)]
    played = served["par"]["played"]
    trump = results[0].trump
    assert trump is not None
    assert (played["seat"], played["trump"]) == (results[0].bidder, trump.name.lower())
    low, high = served["par"]["auction_regret"]
    par_net, contract_net = served["par"]["par_net"], served["par"]["contract_net"]
    assert (low, high) == (par_net[0] - contract_net[1], par_net[1] - contract_net[0])
    # A hand the game does not have, and no hand named: refused, nothing solved.
    status, body = _get(f"{url}/api/replays/twin-a/par?hand={len(replay.hands)}")
    assert status == 404 and "has no hand" in body["error"], body
    status, body = _get(f"{url}/api/replays/twin-a/par?hand=first")
    assert status == 400 and "?hand=N" in body["error"], body
    # The viewer, following a seat, shows the par's lines under the analysis.
    page.goto("about:blank")
    page.goto(f"{url}/replays/twin-a#hand=0&seat=1")
    page.wait_for_selector("#dd-par", timeout=120_000)
    shown = page.locator("#dd-par .dd-par-line").all_inner_texts()
    assert shown == served["lines"], shown
    assert any("regret against par" in line for line in shown)
