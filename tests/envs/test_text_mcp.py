"""`rookery mcp`, driven by an MCP client of the official SDK: whole games over stdio (a table on
a real server, the MCP seat at two seats) and over streamable HTTP (an arena tournament of
standard and called-partner that launches `rookery mcp` as its bot), the rules as a resource, a
refused play counted in the move's note, and a turn left unplayed given the late policy."""

from __future__ import annotations

import asyncio
import re
import shlex
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, ledger_of
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.client import arun_bot
from rookery.client.bots.random_bot import RandomBot
from rookery.engine import Ruleset
from rookery.server import TableSpec, TimeControl
from rookery.server.testing import running_server
from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay

PYTHON = shlex.quote(sys.executable)
_EXAMPLE = re.compile(r"\(for example: (bury [^)]*)\)")


def _text(result: Any) -> str:
    return str(result.content[0].text)


@dataclass
class Agent:
    """A scripted MCP agent: looks once, plays the first legal move, once an illegal one."""

    plays: int = 0
    refused: list[str] = field(default_factory=list)
    rules_resource: str = ""
    looked: str = ""

    async def play(self, client: Client) -> None:
        while True:
            turn_text = _text(await client.call_tool("wait_for_turn", {"timeout_s": 1.0}))
            if turn_text.startswith("the games are over"):
                return
            if turn_text.startswith("no turn within"):
                continue
            turn = turn_text.split(":")[0].removeprefix("turn ")
            if not self.looked:
                self.looked = _text(await client.call_tool("history", {"turn": turn}))
                resource = await client.read_resource("rookery://rules/called-partner")
                self.rules_resource = str(resource.contents[0].text)  # type: ignore[union-attr]
            if not self.refused:
                answer = _text(await client.call_tool("play", {"turn": turn, "move": "bid 3"}))
                self.refused.append(answer)
            listed = _text(await client.call_tool("legal_actions", {"turn": turn}))
            listed = listed.removeprefix("Your legal moves: ").rstrip(".")
            example = _EXAMPLE.search(listed)
            move = example.group(1) if example else listed.split(", ")[0]
            played = await client.call_tool(
                "play", {"turn": turn, "move": move, "reason": "the first listed move"}
            )
            assert _text(played).startswith("played "), _text(played)
            self.plays += 1


async def test_whole_game_over_stdio_with_the_rules_as_a_resource() -> None:
    rules = Ruleset.preset("standard").replace(target=100, max_hands=2)
    async with running_server(idle_timeout_s=30) as server:
        randoms = asyncio.create_task(
            arun_bot(RandomBot, server.target, name="random", sessions=2, games=1)
        )
        table = await server.create_table(
            TableSpec(
                rules,
                ("mcp", "random", "mcp", "random"),
                seed=5,
                time_control=TimeControl(action_ms=5000, strike_limit=3),
            )
        )
        command = StdioServerParameters(
            command=sys.executable,
            args=["-m", "rookery.cli.main", "mcp", "--server", server.target,
                  "--name", "mcp", "--sessions", "2", "--games", "1"],
        )  # fmt: skip
        agent = Agent()
        async with Client(command) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {"wait_for_turn", "legal_actions", "history", "rules", "play"}
            await agent.play(client)
        await asyncio.wait_for(table.wait_finished(), 30)
        await asyncio.wait_for(randoms, 30)
        replay = server.replay(table.id)
    assert agent.refused[0].startswith("refused: 'bid 3' is not legal now")
    assert "Your hand: " in agent.looked
    assert "the bidder calls a card" in agent.rules_resource
    mcp_actions = [a for h in replay.hands for a in h.actions if a.seat in (0, 2)]
    assert {a.outcome for a in mcp_actions} == {replay_pb2.ACTION_OUTCOME_ACCEPTED}
    assert len(mcp_actions) == agent.plays
    assert all(a.note.text == "the first listed move" for a in mcp_actions)
    ledger = ledger_of([replay])["mcp"]
    assert (ledger.decisions, ledger.invalid_replies, ledger.attempts) == (
        agent.plays,
        1,
        agent.plays + 1,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _drive(url: str, agent: Agent) -> None:
    """Play as ``agent`` at the MCP server at ``url`` once it listens, until it goes away (the
    arena stops `rookery mcp` with its tournament)."""
    for _ in range(150):
        try:
            async with Client(url) as client:
                await agent.play(client)
                return
        except Exception:  # not listening yet, or gone with the tournament
            if agent.plays:
                return
            await asyncio.sleep(0.2)
    raise AssertionError(f"no MCP server at {url}")


@pytest.mark.parametrize("preset", ["standard", "called-partner"])
async def test_whole_arena_games_over_streamable_http(tmp_path: Path, preset: str) -> None:
    port = _free_port()
    mcp_bot = BotSpec(  # one process (one port) with a session for each of its seats
        "mcp",
        f"{PYTHON} -m rookery.cli.main mcp --transport streamable-http --port {port}",
        processes=1,
        sessions=4,
    )
    heuristic = BotSpec(
        "heuristic",
        f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots.heuristic:HeuristicBot",
    )
    config = TournamentConfig(
        name="mcp",
        ruleset=Ruleset.preset(preset).replace(target=100, max_hands=1),
        bots=(mcp_bot, heuristic),
        games=2,
        concurrency=1,
        time_control=TimeControl(action_ms=5000, strike_limit=3, grace_ms=500),
        bootstrap=20,
        sandbox=SandboxMode.OFF,
    )
    options = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=30.0, game_timeout_s=120.0)
    agent = Agent()
    driving = asyncio.create_task(_drive(f"http://127.0.0.1:{port}/mcp", agent))
    result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    await asyncio.wait_for(driving, 30)
    assert result.recorded == result.total >= 2
    with RunStore(tmp_path / "run") as store:
        rows = store.games("mcp")
    assert all(r.termination in ("TARGET_REACHED", "MAX_HANDS") for r in rows), rows
    replays = [read_replay(tmp_path / "run" / row.replay_path) for row in rows]
    outcomes = []
    for replay in replays:
        seats = {i for i, s in enumerate(replay.header.seats) if s.bot_name == "mcp"}
        outcomes += [a.outcome for h in replay.hands for a in h.actions if a.seat in seats]
    assert outcomes and set(outcomes) == {replay_pb2.ACTION_OUTCOME_ACCEPTED}
    assert len(outcomes) == agent.plays
    assert ledger_of(replays)["mcp"].invalid_replies == 1


async def test_a_turn_left_unplayed_gets_no_move_before_the_deadline() -> None:
    import time

    from rookery.client import NoAnswer
    from rookery.engine import Game
    from rookery.envs.mcp_seat import McpSeatBot, TurnBoard

    board = TurnBoard()
    bot = McpSeatBot(board)
    bot.table = type("T", (), {"table_id": "tb-1"})()
    bot.deadline = time.monotonic() + 1.0
    started = time.monotonic()
    with pytest.raises(NoAnswer, match="the agent did not play turn t1"):
        await bot.act(Game(Ruleset.preset("standard"), 1).observation_for(1))
    assert time.monotonic() - started < 0.85  # before the SDK's own cut-off (no fallback)
    assert board.find() is None
