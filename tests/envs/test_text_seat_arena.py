"""The text seat as a bot process in the arena, its agent behind a scripted chat server: legal
play, the late policy when its retries run out (recorded), a provider that fails at chosen moments
retried within bounds with every decision's ledger in the replay, and a provider that keeps
failing charged to its own seat alone: the game is rated, never void."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import chat_server
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import GameRow, RunStore, load_run, run_ledger
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.arena.run._runner import RunResult
from rookery.engine import Ruleset
from rookery.server import TimeControl
from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay

PYTHON = shlex.quote(sys.executable)
SECRET = "sk-never-in-a-log"
OPTIONS = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)


async def _tournament(
    tmp_path: Path, url: str, *, action_ms: int = 3000, strike_limit: int = 3, price: str = ""
) -> tuple[RunResult, list[GameRow], list[dict[str, Any]]]:
    record = tmp_path / "decisions.jsonl"
    text = BotSpec(
        "text",
        f"{PYTHON} -m rookery.cli.main bot run rookery.envs.seat:TextSeatBot",
        env={
            "ROOKERY_CHAT_URL": url,
            "ROOKERY_CHAT_MODEL": "scripted",
            "ROOKERY_CHAT_KEY": SECRET,
            "ROOKERY_TEXT_RECORD": str(record),
            "ROOKERY_CHAT_PRICE": price,
        },
    )
    random_bot = BotSpec(
        "random", f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots.random_bot:RandomBot"
    )
    config = TournamentConfig(
        name="text",
        ruleset=Ruleset.preset("standard").replace(target=100, max_hands=2),
        bots=(text, random_bot),
        games=2,
        concurrency=2,
        time_control=TimeControl(action_ms=action_ms, strike_limit=strike_limit, grace_ms=500),
        bootstrap=20,
        sandbox=SandboxMode.OFF,
    )
    result = await TournamentRunner(config, tmp_path / "run", options=OPTIONS).run()
    with RunStore(tmp_path / "run") as store:
        rows = store.games("text")
    lines = record.read_text().splitlines() if record.exists() else []
    return result, rows, [json.loads(line) for line in lines]


def _outcomes_of_text_seats(run: Path, rows: list[GameRow]) -> list[int]:
    outcomes: list[int] = []
    for row in rows:
        replay = read_replay(run / row.replay_path)
        seats = {i for i, s in enumerate(replay.header.seats) if s.bot_name == "text"}
        for hand in replay.hands:
            outcomes += [int(a.outcome) for a in hand.actions if a.seat in seats]
    return outcomes


async def test_a_text_agent_that_answers_legally_plays_whole_games(tmp_path: Path) -> None:
    with chat_server("legal") as (url, script):
        result, rows, decisions = await _tournament(tmp_path, url)
    assert result.recorded == 2 and all(r.termination != "ABORTED" for r in rows)
    assert decisions and all(d["outcome"] == "answered" for d in decisions)
    outcomes = _outcomes_of_text_seats(tmp_path / "run", rows)
    assert len(outcomes) == len(decisions)
    assert set(outcomes) == {replay_pb2.ACTION_OUTCOME_ACCEPTED}
    assert all(r["auth"] == f"Bearer {SECRET}" for r in script.requests)
    assert SECRET not in (tmp_path / "run" / "logs" / "text.log").read_text()


async def test_garbage_until_the_retries_run_out_gets_the_late_policy_recorded(
    tmp_path: Path,
) -> None:
    with chat_server("garbage") as (url, _):
        result, rows, decisions = await _tournament(tmp_path, url, action_ms=1500, strike_limit=2)
    assert result.recorded == 2
    assert decisions and all(d["outcome"] == "gave_up" for d in decisions)
    assert all(d["late_policy_applies"] and d["attempts"] == 3 for d in decisions)
    outcomes = _outcomes_of_text_seats(tmp_path / "run", rows)
    assert outcomes and set(outcomes) == {replay_pb2.ACTION_OUTCOME_AUTO_PLAYED}
    assert all(r.termination == "FORFEIT_STRIKES" for r in rows)  # the agent's own failure
    text = {s.name: s for s in load_run(tmp_path / "run").summary.standings}["text"]
    assert text.auto_plays >= 2 and text.losses == 2


def _text_actions(run: Path, rows: list[GameRow]) -> list[replay_pb2.ReplayAction]:
    actions: list[replay_pb2.ReplayAction] = []
    for row in rows:
        replay = read_replay(run / row.replay_path)
        seats = {i for i, s in enumerate(replay.header.seats) if s.bot_name == "text"}
        for hand in replay.hands:
            actions += [a for a in hand.actions if a.seat in seats]
    return actions


async def test_provider_failures_at_chosen_moments_are_retried_and_every_move_is_ledgered(
    tmp_path: Path,
) -> None:
    plan = {1: "500", 4: "429", 5: "429", 8: "tool", 12: "500", 15: "garbage", 20: "tool"}
    with chat_server("legal", plan) as (url, script):
        result, rows, decisions = await _tournament(tmp_path, url)
    assert result.recorded == 2
    assert all(r.termination in ("TARGET_REACHED", "MAX_HANDS") for r in rows), rows
    assert decisions and all(d["outcome"] == "answered" for d in decisions)
    actions = _text_actions(tmp_path / "run", rows)
    assert {a.outcome for a in actions} == {replay_pb2.ACTION_OUTCOME_ACCEPTED}
    assert len(actions) == len(decisions)

    def total(name: str) -> int:
        return round(float(sum(a.note.values[name] for a in actions)))

    sent = script.sent
    assert total("provider_errors") == sent["500"] + sent["429"] == 4
    assert total("invalid_replies") == sent["tool"] + sent["garbage"] == 3
    assert total("attempts") == len(script.requests)
    assert total("prompt_tokens") == sent["prompt_tokens"]
    assert total("completion_tokens") == sent["completion_tokens"]
    assert all(a.note.values["latency_ms"] > 0 for a in actions)
    reasons = {a.note.text for a in actions}
    assert reasons == {"Looking at my hand, the safest choice is the first one."}
    with RunStore(tmp_path / "run") as store:
        assert store.incidents("text") == []


async def test_a_provider_that_keeps_failing_loses_its_own_games_and_they_are_rated(
    tmp_path: Path,
) -> None:
    with chat_server("error") as (url, script):
        result, rows, decisions = await _tournament(tmp_path, url, action_ms=1500, strike_limit=2)
    assert result.recorded == 2
    assert decisions and all(d["outcome"] == "provider_error" for d in decisions)
    assert all(d["provider_errors"] >= 2 and d["late_policy_applies"] for d in decisions)
    assert len(script.requests) == sum(d["attempts"] for d in decisions)
    assert all(r.termination == "FORFEIT_STRIKES" for r in rows), [r.detail for r in rows]
    for row in rows:
        assert row.seat_bots[row.forfeit_seat] == "text"  # the offender alone loses
    outcomes = _outcomes_of_text_seats(tmp_path / "run", rows)
    assert outcomes and set(outcomes) == {replay_pb2.ACTION_OUTCOME_AUTO_PLAYED}
    with RunStore(tmp_path / "run") as store:
        assert store.incidents("text") == []
    standings = {s.name: s for s in load_run(tmp_path / "run").summary.standings}
    assert (standings["text"].games, standings["text"].losses) == (2, 2)
    assert (standings["random"].wins, standings["random"].timeouts) == (2, 0)
    assert standings["text"].elo < standings["random"].elo


async def test_the_ledger_of_a_run_adds_up_to_the_servers_own_counts(tmp_path: Path) -> None:
    # Six garbage replies in a row: with at most two text seats asking at once, at least one
    # decision gets three and is given no move (its counts ride on that seat's next reply).
    plan = {1: "500", 4: "429", 15: "tool"} | dict.fromkeys(range(6, 12), "garbage")
    with chat_server("legal", plan) as (url, script):
        result, rows, decisions = await _tournament(tmp_path, url)
    assert result.recorded == 2
    missed = sum(1 for d in decisions if d["outcome"] != "answered")
    assert missed >= 1
    ledger = run_ledger(tmp_path / "run")
    assert set(ledger) == {"text"}  # the random bot notes nothing: no ledger
    text = ledger["text"]
    sent = script.sent
    assert (text.games, text.seat_games, text.decisions) == (2, 4, len(decisions))
    assert (
        text.missed
        == missed
        == _outcomes_of_text_seats(tmp_path / "run", rows).count(
            replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
        )
    )
    assert text.attempts == len(script.requests) == sum(d["attempts"] for d in decisions)
    assert text.invalid_replies == sent["garbage"] + sent["tool"] == 7
    assert text.provider_errors == sent["500"] + sent["429"] == 2
    assert text.prompt_tokens == sent["prompt_tokens"]
    assert text.completion_tokens == sent["completion_tokens"]
    assert text.invalid_reply_rate == pytest.approx(7 / len(script.requests))
    assert 0 <= text.durability < text.decisions / text.seat_games
    assert text.mean_latency_ms > 0
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "llm", "ledger", str(tmp_path / "run"),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode == 0
    listed = out.decode().splitlines()
    assert listed[0].split()[:3] == ["bot", "games", "decisions"]
    assert listed[1].split()[:4] == ["text", "2", str(text.decisions), str(missed)]


async def test_a_price_gives_each_decision_its_cost(tmp_path: Path) -> None:
    with chat_server("legal") as (url, script):
        _, _, decisions = await _tournament(tmp_path, url, price="2.5,10")
    ledger = run_ledger(tmp_path / "run")["text"]
    expected = (script.sent["prompt_tokens"] * 2.5 + script.sent["completion_tokens"] * 10) / 1e6
    assert ledger.cost_usd == pytest.approx(expected) and expected > 0
    assert sum(d["cost_usd"] for d in decisions) == pytest.approx(expected)
