"""The tool-calling seat: a model looks (legal_actions, history, rules) before it plays, a refused
play or a reply without a tool call is an invalid reply re-prompted with why, looking is bounded,
and whole arena games of standard and called-partner are played through the tools against a
scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from chat_server import chat_server
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, run_ledger
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.engine import Bid, Game, Observation, Ruleset
from rookery.envs.chat import ChatEndpoint
from rookery.envs.text import Completion, ToolCall
from rookery.envs.tools import TOOLS, SeatTools, ToolSeat
from rookery.server import TimeControl
from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay

PYTHON = shlex.quote(sys.executable)


def _opening_bid() -> Observation:
    return Game(Ruleset.preset("standard"), 1).observation_for(1)


def _endpoint(url: str) -> ChatEndpoint:
    return ChatEndpoint(url, "tool-model")


async def test_a_model_looks_then_plays_through_the_tools() -> None:
    obs = _opening_bid()
    with chat_server("legal") as (url, script):
        decision = await ToolSeat(_endpoint(url)).decide(obs)
    assert decision.outcome == "answered" and decision.action == obs.legal_actions()[0]
    assert (decision.attempts, decision.invalid_replies) == (3, 0)
    assert [script.sent[f"tool:{n}"] for n in ("history", "legal_actions", "play")] == [1, 1, 1]
    offered = [t["function"]["name"] for t in script.requests[0]["body"]["tools"]]
    assert offered == ["legal_actions", "rules", "history", "play"]
    last = script.requests[-1]["body"]["messages"]
    assert last[-1]["role"] == "tool" and last[-1]["content"].startswith("Your legal moves: ")
    assert decision.reason == "the first listed move"


async def test_a_refused_play_is_an_invalid_reply_answered_with_why() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "bad_play"}) as (url, script):
        decision = await ToolSeat(_endpoint(url)).decide(obs)
    assert decision.outcome == "answered" and decision.invalid_replies == 1
    refused = script.requests[1]["body"]["messages"][-1]
    assert refused["role"] == "tool"
    assert refused["content"].startswith("refused: 'bid 3' is not legal now. Legal moves: pass")


async def test_a_reply_without_a_tool_call_is_an_invalid_reply() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "garbage", 1: "garbage", 2: "garbage"}) as (url, script):
        decision = await ToolSeat(_endpoint(url), retries=2).decide(obs)
    assert decision.outcome == "gave_up" and decision.action is None
    assert decision.invalid_replies == 3 == len(script.requests)
    assert script.requests[1]["body"]["messages"][-1]["content"].startswith(
        "your reply called no tool"
    )


async def test_looking_is_bounded_and_no_move_is_invented() -> None:
    asked = 0

    async def only_looks(
        messages: list[dict[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> Completion:
        nonlocal asked
        asked += 1
        return Completion("", tool_calls=(ToolCall(f"c{asked}", "rules"),))

    decision = await ToolSeat(only_looks, max_requests=5).decide(_opening_bid())
    assert decision.outcome == "gave_up" and decision.action is None and asked == 5
    assert decision.errors[-1] == "no move after 5 requests (at most 5)"


def test_the_tools_answer_and_refuse_precisely() -> None:
    obs = _opening_bid()
    tools = SeatTools.for_observation(obs)
    assert tools.call("play", '{"move": "bid 70", "reason": "cheap"}').action == Bid(70)
    assert tools.call("play", {"move": "MOVE: bid 70"}).invalid
    assert tools.call("play", "{not json").text == "refused: the arguments of play are not JSON"
    assert tools.call("peek", "{}").text.startswith("refused: no tool 'peek'")
    assert tools.call("rules", "{}").text.startswith("You play Rook (rules 'standard')")
    assert "Your hand: " in tools.call("history", "").text
    assert tools.call("legal_actions", "{}").text.startswith("Your legal moves: pass, bid 70")
    assert {t["function"]["name"] for t in TOOLS} == {"legal_actions", "rules", "history", "play"}


@pytest.mark.parametrize("preset", ["standard", "called-partner"])
async def test_whole_games_through_the_tools(tmp_path: Path, preset: str) -> None:
    with chat_server("legal") as (url, script):
        tool_bot = BotSpec(
            "tools",
            f"{PYTHON} -m rookery.cli.main bot run rookery.envs.seat:ToolSeatBot",
            env={"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": "scripted"},
        )
        heuristic = BotSpec(
            "heuristic",
            f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots.heuristic:HeuristicBot",
        )
        config = TournamentConfig(
            name="tools",
            ruleset=Ruleset.preset(preset).replace(target=100, max_hands=2),
            bots=(tool_bot, heuristic),
            games=2,
            concurrency=2,
            time_control=TimeControl(action_ms=4000, strike_limit=3, grace_ms=500),
            bootstrap=20,
            sandbox=SandboxMode.OFF,
        )
        options = TournamentOptions(
            connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0
        )
        result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    assert result.recorded == result.total >= 2  # called-partner seats each bot in turn
    with RunStore(tmp_path / "run") as store:
        rows = store.games("tools")
    assert all(r.termination in ("TARGET_REACHED", "MAX_HANDS") for r in rows), rows
    outcomes = []
    for row in rows:
        replay = read_replay(tmp_path / "run" / row.replay_path)
        seats = {i for i, s in enumerate(replay.header.seats) if s.bot_name == "tools"}
        outcomes += [a.outcome for h in replay.hands for a in h.actions if a.seat in seats]
    assert outcomes and set(outcomes) == {replay_pb2.ACTION_OUTCOME_ACCEPTED}
    ledger = run_ledger(tmp_path / "run")["tools"]
    assert ledger.decisions == len(outcomes) == script.sent["tool:play"]
    assert ledger.attempts == len(script.requests) and ledger.invalid_replies == 0
