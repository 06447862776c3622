"""A launched bot tries to remember game 1 of a duplicate pair and predict its twin's hidden cards.

The twin of a duplicate pair deals the same cards to the same seats: a bot that kept who played
what in game 1 knows where almost every hidden card of game 2 lies (docs/security.md, *Duplicate
twins*). The defence for launched bots is the sandbox with its warm lanes
(``rookery.arena.launch._lanes``): a process plays the games of one lane only, its seats bound
to the lane's launch key, and a lane never plays one seed twice; a private ``/tmp`` and
network, no lasting storage outside its sandbox. ``twin_memory_bot.py`` stores
its record in every place it can (files in ``/tmp``, ``$HOME``, its folder, the working directory,
``/dev/shm``, ``/var/tmp``; a lingering daemon on an abstract Unix socket and a loopback port; the
environment; its ``Hello.version`` in the server's registry, read back with ``ListBots``; the
finished tables' public events, watched as a spectator) and, before its first action at each
table, predicts every hidden card.

A real arena runs the same tournament twice: sandboxed (the default: warm lanes, so the bot's
processes are reused and do remember the earlier games of their lane, of other seeds), where the
bot must predict no more than chance allows, and unconfined (``sandbox = "off"``,
``process_per_game = false``), the control, where it remembers. The bot also tries to void its
games by reporting an incident: only an unconfined bot, whom the organiser trusts, gets the file
for that (``ROOKERY_INCIDENT_FILE``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import socket
import sys
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode, probe
from rookery.arena.records import GameRow, RunStore
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.arena.run._runner import RunResult
from rookery.engine import Ruleset, deal_for_hand
from rookery.server import TimeControl
from rookery.server.testing import RawBot, running_server
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)
from test_tournament_secrets import chance, places

HERE = Path(__file__).parent
#: The control needs its first games recorded before their twins ask: no neighbour on the cores.
pytestmark = pytest.mark.alone
ONE_HAND = Ruleset.preset("standard").replace(max_hands=1)
#: Two duplicate pairs: 4 games, the attacker's side has two seats, so 8 views of 44 hidden cards.
GAMES = 4
MEMORY_FILE = "twin-memory.txt"
HOST_FILES = tuple(Path(d) / MEMORY_FILE for d in ("/tmp", "/dev/shm", "/var/tmp"))


@dataclass
class View:
    """One seat's prediction before its first action, scored against the deal."""

    table_id: str
    seat: int
    right: int
    mean: float
    variance: float
    twin: bool


@dataclass
class Run:
    result: RunResult
    run_dir: Path
    games: list[GameRow]
    log: str
    wall_s: float
    views: list[View] = field(default_factory=list)

    def lines(self, prefix: str) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith(prefix)]

    def score(self, twins: bool) -> tuple[int, float, float, int]:
        """(right, chance mean, chance sd, views) over the first games or over the twins."""
        views = [v for v in self.views if v.twin is twins]
        variance = sum(v.variance for v in views)
        return sum(v.right for v in views), sum(v.mean for v in views), variance**0.5, len(views)


def _free_port() -> int:
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port: int = probe_socket.getsockname()[1]
        return port


def _views(run_dir: Path, games: list[GameRow], log: str) -> list[View]:
    by_prefix = {f"{g.tournament_id}-{g.game_id}-": g for g in games}
    first_of_seed: dict[int, int] = {}
    for game in sorted(games, key=lambda g: g.index):
        first_of_seed.setdefault(game.seed, game.index)
    views = []
    for line in log.splitlines():
        if not line.startswith("TWIN predict "):
            continue
        entry: dict[str, Any] = json.loads(line.removeprefix("TWIN predict "))
        game = next(g for p, g in by_prefix.items() if entry["table_id"].startswith(p))
        deal = deal_for_hand(ONE_HAND, game.seed, 0)
        seat = int(entry["seat"])
        assert deal.hands[seat] == entry["hand"]  # the bot's view is the deal's
        truth = places(deal, seat)
        predicted = {1 << int(card): place for card, place in entry["predicted"].items()}
        right = sum(1 for card, place in predicted.items() if truth.get(card) == place)
        mean, variance = chance(deal, seat)
        twin = first_of_seed[game.seed] != game.index
        views.append(View(entry["table_id"], seat, right, mean, variance, twin))
    return views


def _run(base: Path, *, sandboxed: bool) -> Run:
    if sandboxed:
        support = probe(cgroups=False)
        assert support.available, support.describe()
    run_dir, home, work = base / "run", base / "home", base / "cwd"
    home.mkdir()
    work.mkdir()
    port = _free_port()
    bots = []
    for name, source, attr in (
        ("mallory", "twin_memory_bot.py", "Rememberer"),
        ("honest", "sandbox_bots.py", "Hostile"),
    ):
        folder = base / "bots" / name
        folder.mkdir(parents=True)
        shutil.copy(HERE / source, folder / "bot.py")
        env = {"TWIN_PORT": str(port), "TWIN_VOID": "1", "TWIN_RUN": str(run_dir)}
        if sandboxed:
            env["TWIN_ABORT"] = "1"  # unconfined it would end the control's games at once
        else:
            env["HOME"] = str(home)  # the sandbox gives HOME=/tmp, its own
        command = (
            f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run "
            f"{shlex.quote(str(folder / 'bot.py'))}:{attr}"
        )
        bots.append(BotSpec(name, command, env=env, folder=str(folder)))
    config = TournamentConfig(
        name="twins",
        ruleset=ONE_HAND,
        bots=tuple(bots),
        games=GAMES,
        duplicate=True,
        concurrency=1,  # a pair's twin starts after its first game
        time_control=TimeControl(action_ms=2000, strike_limit=3, grace_ms=500),
        bootstrap=0,
        sandbox=SandboxMode.ON if sandboxed else SandboxMode.OFF,
        process_per_game=None if sandboxed else False,  # None: the default, lanes when sandboxed
    )
    old_cwd = Path.cwd()
    os.chdir(work)  # an unconfined bot writes to the arena's working directory
    started = time.monotonic()
    try:
        # One game at a time, never more: fast unconfined bots would otherwise get more games at
        # once (TournamentOptions.concurrency_scale), and a twin could start before its first game
        # ended.
        runner = TournamentRunner(config, run_dir, options=TournamentOptions(concurrency_scale=1))
        result = asyncio.run(runner.run())
        assert runner.games_at_once == 1
    finally:
        os.chdir(old_cwd)
        if not sandboxed:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", port), 1) as s,
            ):
                s.sendall(b"QUIT\n")  # the unconfined daemon
            for path in HOST_FILES:
                path.unlink(missing_ok=True)
    wall_s = time.monotonic() - started
    store = RunStore(run_dir)
    try:
        games = store.games("twins")
    finally:
        store.close()
    log = (run_dir / "logs" / "mallory.log").read_text(errors="replace")
    return Run(result, run_dir, games, log, wall_s, _views(run_dir, games, log))


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(tmp_path_factory.mktemp("sandboxed"), sandboxed=True)


@pytest.fixture(scope="module")
def unconfined(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(tmp_path_factory.mktemp("unconfined"), sandboxed=False)


def _report(run: Run, what: str) -> None:
    for twins in (False, True):
        right, mean, sd, views = run.score(twins)
        kind = "twins" if twins else "first games"
        print(
            f"{what}, {kind}: {right} of {views * 44} hidden cards predicted "
            f"(chance {mean:.0f} ± {sd:.1f})"
        )
    found = sorted({line.split(":")[0] for line in run.lines("TWIN found ")})
    print(f"{what}: memory came through {found or 'nothing'}")


#: Places inside a sandbox, which its processes share from game to game of their lane.
SANDBOX_PLACES = {
    "tmp",
    "home",
    "dev-shm",
    "environment",
    "abstract-socket",
    "daemon-tcp",
    "process",
}


def test_a_sandboxed_bot_remembers_nothing_of_the_twins_first_game(sandboxed: Run) -> None:
    _report(sandboxed, "sandboxed")
    assert not sandboxed.result.cancelled
    assert sandboxed.result.recorded == GAMES
    assert len(sandboxed.views) == 2 * GAMES  # two seats a game, each predicted once
    # Two warm processes, one a lane (the pairs' first games, their twins), each reused.
    starts = [line for line in sandboxed.log.splitlines() if line.startswith("--- ")]
    assert len(starts) == 2 and all(" start lane " in line for line in starts), starts
    # What came through came through its own sandbox, from its lane's earlier games: every place
    # was tried, in each of the 8 views, and the server and the host's files held nothing.
    found = {
        line.split(":")[0].removeprefix("TWIN found ") for line in sandboxed.lines("TWIN found ")
    }
    assert "process" in found and found <= SANDBOX_PLACES, found
    assert (
        len(sandboxed.lines("TWIN found ")) + len(sandboxed.lines("TWIN none ")) == 2 * GAMES * 12
    )
    # ... and none of what it remembered was dealt the seed of the table it predicted.
    seed_of = {f"{g.tournament_id}-{g.game_id}-": g.seed for g in sandboxed.games}

    def seed(table_id: str) -> int:
        return next(s for prefix, s in seed_of.items() if table_id.startswith(prefix))

    remembered = [
        json.loads(line.removeprefix("TWIN remembers "))
        for line in sandboxed.lines("TWIN remembers ")
    ]
    assert len(remembered) == 2 * GAMES
    assert sum(len(entry["tables"]) for entry in remembered) >= GAMES  # the later game of a lane
    for entry in remembered:
        assert all(seed(t) != seed(entry["table_id"]) for t in entry["tables"]), entry
    # The server is reached through its Unix socket, which serves a sandboxed bot BotService only.
    refused = sandboxed.lines("TWIN refused ")
    assert {line.split(":")[0] for line in refused} == {
        "TWIN refused server-registry",
        "TWIN refused spectator",
        "TWIN refused abort",
    }
    assert all(line.endswith(": PERMISSION_DENIED") for line in refused), refused
    for twins in (False, True):
        right, mean, sd, views = sandboxed.score(twins)
        assert views == GAMES
        assert right <= mean + 4 * sd


def test_an_unconfined_bot_remembers_the_twins_deal(unconfined: Run) -> None:
    """The control: without the defence the same bot knows its twins' hidden cards."""
    _report(unconfined, "unconfined")
    assert unconfined.result.recorded == GAMES
    right, mean, sd, views = unconfined.score(twins=True)
    assert views == GAMES
    # Ten standard deviations above chance (about 107 of 176; it knows 146–150, the cards played
    # in the first game): the attack has teeth. Not a fixed count: the deal decides how many
    # hidden cards were played.
    assert right > mean + 10 * sd
    first_right, first_mean, first_sd, _ = unconfined.score(twins=False)
    assert first_right <= first_mean + 4 * first_sd  # a deal not seen is not known


def test_a_sandboxed_bot_cannot_void_its_games(sandboxed: Run) -> None:
    """Neither by reporting an incident (no ``ROOKERY_INCIDENT_FILE``, and the run directory is
    not in its sandbox) nor by aborting its table through the server (``AbortTable``)."""
    assert sandboxed.lines("TWIN incident file given: none")
    assert all(": refused" in line for line in sandboxed.lines("TWIN void "))
    assert sandboxed.lines("TWIN void ")
    assert sandboxed.lines("TWIN refused abort: PERMISSION_DENIED")
    assert "TWIN abort: ok" not in sandboxed.log
    assert [g.termination for g in sandboxed.games] == ["MAX_HANDS"] * GAMES
    assert not any("void" in g.detail for g in sandboxed.games)


def test_an_unconfined_bot_can_void_its_games(unconfined: Run) -> None:
    """The control: an unconfined bot, trusted by the organiser, gets the incident file."""
    assert not unconfined.lines("TWIN incident file given: none")
    assert [g.termination for g in unconfined.games] == ["ABORTED"] * GAMES
    assert all(g.detail.startswith("void (reported incidents)") for g in unconfined.games)


async def test_the_unix_socket_serves_bot_service_only(tmp_path: Path) -> None:
    """The sandbox's way to the server: BotService there; ArenaService and SpectatorService
    (the registry's versions, finished tables' events, aborting a table) only over TCP."""
    path = tmp_path / "server.sock"
    async with running_server(log_level="warning", unix_socket=str(path)) as server:
        bot = RawBot(f"unix:{path}", "mallory", token=server.issue_launch_key("mallory", 1))
        welcome = await bot.connect()
        assert welcome.session_id
        await bot.close()
        async with grpc.aio.insecure_channel(f"unix:{path}") as channel:
            arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
            spectator = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
            calls: dict[str, Awaitable[object]] = {
                "ListBots": arena.ListBots(arena_service_pb2.ListBotsRequest()),
                "ListTables": arena.ListTables(arena_service_pb2.ListTablesRequest()),
                "AbortTable": arena.AbortTable(arena_service_pb2.AbortTableRequest(table_id="t")),
                "ListLiveTables": spectator.ListLiveTables(
                    spectator_service_pb2.ListLiveTablesRequest()
                ),
            }
            for name, call in calls.items():
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, name
                assert "BotService only" in str(refused.value.details())
            watch = spectator.WatchTable(spectator_service_pb2.WatchTableRequest(table_id="t"))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await watch.read()
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        async with grpc.aio.insecure_channel(server.target) as channel:  # TCP: as before
            arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
            bots = await arena.ListBots(arena_service_pb2.ListBotsRequest())
            assert [b.name for b in bots.bots] == ["mallory"]
