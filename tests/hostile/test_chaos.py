"""Chaos: bots killed mid-tournament, and replies just before and just after their deadline.

The arena's own crash recovery is tested in ``tests/arena``: ``test_cli.py`` SIGKILLs a running
``rookery arena run`` (which embeds its server) and reruns it (it resumes without losing or
doubling a game), ``test_runner.py`` has bots that exit, hang or cheat. Here a bot process is
killed from outside with SIGKILL in the middle of its games.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.engine import Ruleset
from rookery.server import LatePolicy, ServerConfig, TableSpec, TableStatus, TimeControl
from rookery.server.testing import RawBot, reply_to, running_server
from rookery.v1 import bot_service_pb2, replay_pb2

pb = bot_service_pb2
ARENA_BOTS = Path(__file__).parents[1] / "arena" / "sdk_bots.py"
PYTHON = shlex.quote(sys.executable)


def sdk_bot(name: str, cls: str, pid_file: Path | None = None) -> BotSpec:
    run = f"{PYTHON} -m rookery.cli.main bot run {shlex.quote(str(ARENA_BOTS))}:{cls}"
    if pid_file is None:
        return BotSpec(name, run)
    script = f"echo $$ >> {shlex.quote(str(pid_file))}; exec {run}"
    return BotSpec(name, f"sh -c {shlex.quote(script)}")


async def test_a_bot_killed_mid_game_meets_its_policy_and_the_tournament_goes_on(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "victim.pids"
    config = TournamentConfig(
        name="chaos",
        # Long games: on the native core a game to 300 can end within one look below.
        ruleset=Ruleset.preset("standard").replace(target=2000),
        bots=(sdk_bot("steady", "GreedyBot"), sdk_bot("victim", "GreedyBot", pids)),
        games=2,
        concurrency=2,
        time_control=TimeControl(action_ms=1000, strike_limit=3, grace_ms=300),
        bootstrap=50,
        sandbox=SandboxMode.OFF,  # the test kills the bot by the host pids it writes to a file
    )
    options = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
    runner = TournamentRunner(config, tmp_path / "run", options=options)
    run = asyncio.create_task(runner.run())
    for _ in range(3000):  # wait until a game has been played for a while (at most 30 s)
        await asyncio.sleep(0.01)
        assert not run.done(), "the run ended before a bot could be killed"
        server = runner.server
        if server is not None and any(
            table.game.hand_number >= 1 for table in server.list_tables(TableStatus.PLAYING)
        ):
            break
    assert runner.live.done == 0, "the games ended before a bot could be killed"
    for pid in {int(pid) for pid in pids.read_text().split()}:  # every process of the bot
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    result = await asyncio.wait_for(run, 240)
    assert result.recorded == 2
    with RunStore(tmp_path / "run") as store:
        incidents = [kind for bot, kind, _, _ in store.incidents("chaos") if bot == "victim"]
        games = store.games("chaos")
    assert "crash" in incidents  # counted; restarted when games remain (tests/arena)
    hit = [
        g for g in games if g.bot_stats["victim"].disconnects or g.termination.startswith("FORFEIT")
    ]
    assert hit, [(g.termination, g.bot_stats["victim"]) for g in games]


async def _answer_first_request_after(delay_s: float) -> tuple[list[object], replay_pb2.Replay]:
    """Seat 1 answers its first request ``delay_s`` after receiving it (deadline 400 ms)."""
    clock = TimeControl(action_ms=400, bank_ms=0, late_policy=LatePolicy.AUTO_PLAY, strike_limit=0)
    ruleset = Ruleset.preset("standard").replace(max_hands=1)
    names = ("edge0", "edge1", "edge2", "edge3")
    async with running_server(ServerConfig(log_level="warning"), stop_grace_s=0.1) as server:
        bots = [RawBot(server.target, name) for name in names]
        for bot in bots:
            await bot.connect()
        table = await server.create_table(TableSpec(ruleset, names, seed=12, time_control=clock))
        request = await bots[1].read_kind("action_request")
        await asyncio.sleep(delay_s)
        await bots[1].send(reply_to(request))
        answers: list[object] = []
        if delay_s > 0.4:
            rejected = await bots[1].read_kind("action_rejected")
            answers.append(rejected.reason)
        await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), 60)
        outcome = await table.wait_finished()
        for bot in bots:
            await bot.close()
    return answers, outcome.replay


async def test_a_reply_just_before_the_deadline_is_accepted() -> None:
    answers, replay = await _answer_first_request_after(0.25)
    first = replay.hands[0].actions[0]
    assert answers == []
    assert first.seat == 1 and first.outcome == replay_pb2.ACTION_OUTCOME_ACCEPTED
    assert 250 <= first.think_ms <= 400


async def test_a_reply_just_after_the_deadline_is_late_and_the_seat_is_auto_played() -> None:
    answers, replay = await _answer_first_request_after(0.55)
    first = replay.hands[0].actions[0]
    assert answers == [pb.REJECTION_REASON_LATE]
    assert first.seat == 1 and first.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
