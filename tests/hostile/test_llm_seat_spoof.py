"""An entrant cannot pass his own program off as the house's language-model seat to run outside
the sandbox. Only a seat built from ``--bot NAME=llm:MODEL@URL`` or a ``kind = "llm"`` entry (the
house's command, a model and a URL, nothing else) runs unconfined; a bot with a command of its own
that sets ``ROOKERY_CHAT_URL`` — even the house's exact command — is refused while the sandbox is
on, with the fix named, and nothing is launched; a house seat given anything of its own (a
command, an env that could change which code runs, a folder) is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from rookery.arena._config_seats import is_house_seat
from rookery.arena.config import BotSpec, TournamentConfig, parse_bot_flag
from rookery.arena.errors import ArenaConfigError
from rookery.engine import Ruleset

HOUSE = "rookery bot run rookery.envs.seat:TextSeatBot"


def _scripted_model() -> ModuleType:
    """tests/envs/chat_server.py: the scripted OpenAI-compatible model on loopback."""
    path = Path(__file__).parents[1] / "envs" / "chat_server.py"
    spec = importlib.util.spec_from_file_location("llm_seat_chat_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _arena(cwd: Path, *args: str) -> tuple[int, str]:
    # The installed `rookery` command, as an organiser runs it: its folder, not the current
    # one, is first on its own path.
    process = await asyncio.create_subprocess_exec(
        Path(sys.executable).parent / "rookery", "arena", "run", *args, cwd=cwd,
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
        with pytest.raises(
            ArenaConfigError, match="a house language-model seat is its kind, model"
        ):
            TournamentConfig("t", Ruleset(), (spoof, other)).with_overrides()


async def test_files_in_the_arena_folder_do_not_run_in_the_house_seat(tmp_path: Path) -> None:
    """The house seat runs unconfined, so no file an entrant can place in the organiser's folder
    (the quick-start's bot folder is the current one) may be imported by it: a ``json.py`` there,
    which ``python -m`` would put first on the path, never runs."""
    chat_server = _scripted_model().chat_server
    ran = tmp_path / "ran-unconfined"
    (tmp_path / "json.py").write_text(
        "import sys\n"
        f"open({str(ran)!r}, 'a').write('ran\\n')\n"
        "del sys.modules['json']\n"
        "sys.path[:] = [p for p in sys.path if p not in ('', " + repr(str(tmp_path)) + ")]\n"
        "import json as _json\n"
        "sys.modules['json'] = _json\n"
    )
    with chat_server("legal") as (url, script):
        code, out = await _arena(
            tmp_path, "--bot", f"gpt=llm:scripted@{url}", "--bot", "heuristic",
            "--games", "2", "--target", "50", "--out", str(tmp_path / "run"),
        )  # fmt: skip
    assert code == 0, out
    assert script.requests, out
    assert not ran.exists(), ran.read_text()
