"""One sandboxed bot cannot take the server's sessions from the others.

Every sandboxed bot reaches the server through the same Unix socket, so the server once saw them
all as one peer (``unix:``) with one budget: a bot that opened 508 sessions left the honest bots
``RESOURCE_EXHAUSTED`` and their game aborted. Now a session on the Unix socket must present its
launch key (``ROOKERY_TOKEN``), and a launch key opens only the sessions it was launched for
(a warm lane's: twice its processes' own, for a restart). The crowd bot (``crowd_bot.py``)
tries 200 sessions under its own name and 308 under names of its own making, in every game it
plays, while two honest bots play each other and it.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import shutil
import sqlite3
import sys
from pathlib import Path

import grpc
import pytest
from rookery.arena.config import BotSpec, Format, TournamentConfig
from rookery.arena.launch import SandboxMode, probe
from rookery.arena.records import RunStore
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl
from rookery.server.testing import RawBot, running_server

HERE = Path(__file__).parent
OWN, OTHERS = 200, 308


def _bot(base: Path, name: str, source: str, entry: str, env: dict[str, str]) -> BotSpec:
    folder = base / name
    folder.mkdir(parents=True)
    shutil.copy(HERE / source, folder / "bot.py")
    command = (
        f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run "
        f"{shlex.quote(str(folder / 'bot.py'))}:{entry}"
    )
    return BotSpec(name, command, env=env, folder=str(folder))


def test_a_bot_opening_508_sessions_gets_its_own_few_and_the_honest_games_play(
    tmp_path: Path,
) -> None:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    crowd_env = {"CROWD_OWN": str(OWN), "CROWD_OTHERS": str(OTHERS)}
    bots = (
        _bot(tmp_path / "bots", "crowd", "crowd_bot.py", "Crowd", crowd_env),
        _bot(tmp_path / "bots", "honest-a", "sandbox_bots.py", "Hostile", {}),
        _bot(tmp_path / "bots", "honest-b", "sandbox_bots.py", "Hostile", {}),
    )
    config = TournamentConfig(
        name="crowd",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=bots,
        format=Format.ROUND_ROBIN,
        games=2,
        concurrency=3,
        time_control=TimeControl(action_ms=3000, strike_limit=3, grace_ms=500),
        bootstrap=0,
        sandbox=SandboxMode.ON,
    )
    run_dir = tmp_path / "run"
    result = asyncio.run(TournamentRunner(config, run_dir).run())

    log = (run_dir / "logs" / "crowd.log").read_text(errors="replace")
    crowds = re.findall(r"CROWD own (\d+)/\d+ others (\d+)/\d+ first refusal: (.*)", log)
    # One line per game it played, once every attempt was answered (a game its extra sessions
    # lost may end first: they hold its key, so the table may seat one that never answers).
    assert len(crowds) >= 2, log[-3000:]
    for own, others, refusal in crowds:
        # Its lane's key: twice its 2 seats' sessions (a restarted process opens its own while
        # its predecessor's still await their resume), never another bot's.
        assert int(own) <= 4 and int(others) == 0, (own, others, refusal)
        assert "launch" in refusal, refusal
    assert not result.cancelled and result.recorded == result.total == 6
    store = RunStore(run_dir)
    try:
        games = store.games("crowd")
    finally:
        store.close()
    for game in games:
        if "crowd" not in game.seat_bots:
            assert game.termination == "MAX_HANDS", (game.seat_bots, game.termination)
        for bot, stats in game.bot_stats.items():
            if bot.startswith("honest"):
                assert stats.timeouts == stats.auto_plays == stats.disconnects == 0, (bot, stats)
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        honest = db.execute("SELECT bot, kind, detail FROM incidents WHERE bot LIKE 'honest%'")
        assert list(honest) == []


async def test_the_unix_socket_admits_launch_keys_only_each_to_its_own_sessions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "server.sock"
    async with running_server(log_level="warning", unix_socket=str(path)) as server:
        target = f"unix:{path}"
        keyless = RawBot(target, "mallory")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await keyless.connect()
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "launch key" in str(refused.value.details())
        await keyless.channel.close()

        key = server.issue_launch_key("alice", 2)
        admitted = [RawBot(target, "alice", token=key) for _ in range(2)]
        for bot in admitted:
            await bot.connect()
        third = RawBot(target, "alice", token=key)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await third.connect()
        assert "may open the 2 it was started for" in str(refused.value.details())
        await third.channel.close()
        other = RawBot(target, "bob", token=server.issue_launch_key("bob", 1))
        await other.connect()  # another launch is a peer of its own
        over_tcp = RawBot(server.target, "carol")
        await over_tcp.connect()  # TCP: the address's budget, as before
        for bot in (*admitted, other, over_tcp):
            await bot.close()
