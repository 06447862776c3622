"""An entrant cannot pass his own program off as the house's language-model seat to run outside
the sandbox. Only a seat built from ``--bot NAME=llm:MODEL@URL`` or a ``kind = "llm"`` entry (the
house's command, a model and a URL, nothing else) runs unconfined; a bot with a command of its own
that sets ``ROOKERY_CHAT_URL`` — even the house's exact command — is refused while the sandbox is
on, with the fix named, and nothing is launched; a house seat given anything of its own (a
command, an env that could change which code runs, a folder) is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig, is_house_seat, parse_bot_flag
from rookery.arena.errors import ConfigError
from rookery.engine import Ruleset

HOUSE = "rookery bot run rookery.envs.seat:TextSeatBot"


async def _arena(cwd: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "arena", "run", *args, cwd=cwd,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    return int(process.returncode or 0), out.decode()


@pytest.mark.parametrize("command", ["python spoof.py", HOUSE])
async def test_a_command_of_its_own_with_a_chat_url_is_refused(
    tmp_path: Path, command: str
) -> None:
    launched = tmp_path / "launched"
    (tmp_path / "spoof.py").write_text(f"open({str(launched)!r}, 'w').close()\n")
    (tmp_path / "t.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "spoof"
            games = 2
            [[bots]]
            name = "gpt"
            command = {command!r}
            env = {{ROOKERY_CHAT_URL = "http://127.0.0.1:9/v1", ROOKERY_CHAT_MODEL = "m"}}
            [[bots]]
            name = "heuristic"
            command = "rookery bot run heuristic"
            """
        )
    )
    code, out = await _arena(tmp_path, "t.toml", "--out", str(tmp_path / "run"))
    assert code == 3, out  # a configuration the arena refuses
    assert "gpt: a command of its own that reaches a model's API" in out, out
    assert "--bot NAME=llm:MODEL@URL" in out and 'kind = "llm"' in out, out
    assert not launched.exists()


def test_a_house_seat_with_anything_of_its_own_is_no_house_seat() -> None:
    seat = parse_bot_flag("gpt=llm:m@http://127.0.0.1:9/v1")
    assert is_house_seat(seat)
    env = dict(seat.env)
    spoofs = {
        "command": dataclasses.replace(seat, command="python spoof.py"),
        "PYTHONPATH": dataclasses.replace(seat, env={**env, "PYTHONPATH": "."}),
        "LD_PRELOAD": dataclasses.replace(seat, env={**env, "LD_PRELOAD": "./x.so"}),
        "PATH": dataclasses.replace(seat, env={**env, "PATH": "."}),
        "folder": dataclasses.replace(seat, folder="/"),
        "workdir": dataclasses.replace(seat, workdir="/tmp"),
        "kind": dataclasses.replace(seat, seat="shell"),
        "no kind": dataclasses.replace(seat, seat=""),
    }
    for what, spoof in spoofs.items():
        assert not is_house_seat(spoof), what
        if not spoof.seat:
            continue  # an ordinary bot: refused while sandboxed by its ROOKERY_CHAT_URL
        other = BotSpec("b", "rookery bot run heuristic")
        with pytest.raises(ConfigError, match="a house language-model seat is its kind, model"):
            TournamentConfig("t", Ruleset(), (spoof, other)).with_overrides()
