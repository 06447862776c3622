"""docs/ai.md's recipe for a hosted model against the reference pool, run with scripted models:
examples/tournaments/llm-gauntlet.toml as shipped, its model pointed at a scripted server on
loopback, beside a second, tool-calling model, in a duplicate tournament with the heuristic bot;
`rookery llm ledger` then gives each model's tokens, cost, invalid-reply rate and durability."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path

from chat_server import chat_server
from rookery.arena.config import BotSpec, Format, load_config
from rookery.arena.records import load_run
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.server import TimeControl

RECIPE = Path(__file__).resolve().parents[2] / "examples" / "tournaments" / "llm-gauntlet.toml"


async def test_the_recipe_with_two_scripted_models_and_the_heuristic_bot(tmp_path: Path) -> None:
    shipped = load_config(RECIPE)
    model = shipped.bots[0]
    assert model.name == "model" and "rookery.envs.seat:TextSeatBot" in model.command
    assert shipped.format is Format.GAUNTLET and shipped.duplicate
    heuristic = next(b for b in shipped.bots if b.name == "heuristic")
    with chat_server("legal", {3: "garbage", 7: "500"}) as (url, script):
        env = dict(model.env) | {"ROOKERY_CHAT_URL": url}
        tools = BotSpec(
            "tool-model",
            model.command.replace("TextSeatBot", "ToolSeatBot"),
            env=env | {"ROOKERY_CHAT_PRICE": "1,2"},
        )
        config = dataclasses.replace(
            shipped,
            ruleset=shipped.ruleset.replace(target=100, max_hands=1),
            bots=(dataclasses.replace(model, env=env), tools, heuristic),
            format=Format.ROUND_ROBIN,
            games=2,
            time_control=TimeControl(action_ms=4000, strike_limit=3, grace_ms=500),
            bootstrap=20,
        )
        options = TournamentOptions(
            connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0
        )
        result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    assert result.recorded == result.total == 6  # 3 pairings, one duplicate pair each
    standings = {s.name: s for s in load_run(tmp_path / "run").summary.standings}
    assert set(standings) == {"model", "tool-model", "heuristic"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "llm", "ledger", str(tmp_path / "run"), "--json",
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode == 0
    ledgers = {row["bot"]: row for row in map(json.loads, out.decode().splitlines())}
    assert set(ledgers) == {"model", "tool-model"}  # the heuristic bot spends no tokens
    assert sum(row["attempts"] for row in ledgers.values()) == len(script.requests)
    assert sum(row["invalid_replies"] for row in ledgers.values()) == 1
    assert sum(row["provider_errors"] for row in ledgers.values()) == 1
    for row in ledgers.values():
        assert row["games"] == 4 and row["decisions"] > 0
        assert row["cost_usd"] > 0 and row["prompt_tokens"] > row["completion_tokens"] > 0
        assert 0 <= row["invalid_reply_rate"] < 1 and row["durability"] > 0
    tokens = sum(r["prompt_tokens"] + r["completion_tokens"] for r in ledgers.values())
    assert tokens == script.sent["prompt_tokens"] + script.sent["completion_tokens"]
