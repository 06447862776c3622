"""`rookery arena run --bot NAME=llm:MODEL@URL`: a language-model seat next to launched bots, from
the command line alone; with the sandbox off, as the organiser's own process like every bot."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from chat_server import chat_server
from rookery.arena.config import parse_bot_flag
from rookery.arena.errors import ArenaConfigError
from rookery.arena.records import run_ledger


def test_the_flag_names_the_seat_the_model_and_its_api() -> None:
    text = parse_bot_flag("gpt=llm:gpt-4o-mini@https://api.openai.com/v1")
    assert text.command == "rookery bot run rookery.envs.seat:TextSeatBot"
    assert dict(text.env) == {
        "ROOKERY_CHAT_URL": "https://api.openai.com/v1",
        "ROOKERY_CHAT_MODEL": "gpt-4o-mini",
    }
    tools = parse_bot_flag("t=llm-tools:m@http://127.0.0.1:8000/v1")
    assert tools.command.endswith("rookery.envs.seat:ToolSeatBot")
    for bad in ("gpt=llm:gpt-4o-mini", "gpt=llm:@http://x/v1", "gpt=llm:m@ftp://x"):
        with pytest.raises(ArenaConfigError, match="expected NAME=llm:MODEL@URL"):
            parse_bot_flag(bad)
    assert parse_bot_flag("b=rookery bot run x:Y").command == "rookery bot run x:Y"


async def _arena(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "arena", "run", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    return int(process.returncode or 0), out.decode()


async def test_a_model_plays_from_the_command_line_unconfined(tmp_path: Path) -> None:
    # With the sandbox at its default the seat runs outside it (tests/envs/test_llm_sandbox.py).
    with chat_server("legal") as (url, script):
        flags = ["--bot", f"gpt=llm:scripted@{url}", "--bot", "heuristic"]
        run = tmp_path / "run"
        code, out = await _arena(
            *flags, "--sandbox", "off", "--games", "2", "--target", "50", "--out", str(run)
        )
    assert code == 0, out
    assert "2/2 recorded" in out
    ledger = run_ledger(run)["gpt"]
    assert ledger.games == 2 and ledger.attempts == len(script.requests) > 0
    assert script.requests[0]["body"]["model"] == "scripted"
