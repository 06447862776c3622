"""A language-model seat and launched bots in one contest, the sandbox at its default: the house's
seat (``--bot NAME=llm:MODEL@URL``, or ``kind = "llm"`` in a tournament file) runs outside the
sandbox and reaches its model on loopback, while an entrant's launched bot, in the same run, is in
bubblewrap: it can neither see a host file beside its folder nor reach that same model server."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from chat_server import chat_server
from rookery.arena.config import BotSpec, load_config
from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch import probe
from rookery.arena.records import RunStore, run_ledger

#: Exit code of the probe bot that finds itself unconfined (a crash incident of the run).
UNCONFINED = 7


def _probe_bot(folder: Path, secret: Path, url: str) -> Path:
    """A launched bot that refuses to play unless it is confined: the host's ``secret`` (outside
    its folder) must be invisible and the model's server unreachable."""
    parts = urlsplit(url)
    folder.mkdir()
    program = folder / "probe_bot.py"
    program.write_text(
        textwrap.dedent(
            f"""\
            import os, socket, sys
            from rookery.client import Bot, run_bot


            def confined() -> str:
                if os.path.exists({str(secret)!r}):
                    return "sees the host file"
                try:
                    socket.create_connection(({parts.hostname!r}, {parts.port!r}), 2).close()
                except OSError:
                    return ""
                return "reaches the model's server"


            class Probe(Bot):
                def act(self, observation):
                    return observation.legal_actions()[0]


            if __name__ == "__main__":
                why = confined()
                if why:
                    print("UNCONFINED:", why, flush=True)
                    sys.exit({UNCONFINED})
                run_bot(Probe)
            """
        )
    )
    return program


async def _arena(cwd: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "arena", "run", *args, cwd=cwd,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    return int(process.returncode or 0), out.decode()


async def test_the_probe_bot_tells_an_unconfined_run(tmp_path: Path) -> None:
    """The probe is honest: run on the host, it sees the file and exits."""
    secret = tmp_path / "host-secret.txt"
    secret.write_text("the organiser's\n")
    with chat_server("legal") as (url, _):
        program = _probe_bot(tmp_path / "bot", secret, url)
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(program), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await process.communicate()
    assert process.returncode == UNCONFINED and b"sees the host file" in out


async def test_a_model_and_sandboxed_bots_play_one_contest(tmp_path: Path) -> None:
    if not probe().available:
        pytest.fail(f"the launched bot runs in the sandbox: {probe().describe()}")
    secret = tmp_path / "host-secret.txt"
    secret.write_text("the organiser's\n")
    run = tmp_path / "run"
    with chat_server("legal") as (url, script):
        _probe_bot(tmp_path / "bot", secret, url)
        code, out = await _arena(
            tmp_path,
            "--bot", f"gpt=llm:scripted@{url}", "--bot", "heuristic",
            "--bot", "mine=python bot/probe_bot.py",
            "--games", "2", "--target", "50", "--out", str(run),
        )  # fmt: skip
    assert code == 0, out
    assert "sandbox:" in out and "unconfined" not in out, out
    with RunStore(run) as store:
        for bot in ("gpt", "heuristic", "mine"):
            assert store.incidents(bot) == [], (bot, out)
    assert "6/6 recorded" in out, out  # 3 pairings, 2 games each
    ledger = run_ledger(run)["gpt"]
    assert ledger.games == 4 and ledger.attempts == len(script.requests) > 0
    assert script.requests[0]["body"]["model"] == "scripted"


def test_the_tournament_file_form_is_the_house_seat(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        textwrap.dedent(
            """\
            name = "models"
            [[bots]]
            name = "gpt"
            kind = "llm-tools"
            model = "gpt-4o-mini"
            url = "https://api.openai.com/v1"
            [[bots]]
            name = "heuristic"
            command = "rookery bot run heuristic"
            """
        )
    )
    gpt = load_config(path).bot("gpt")
    assert gpt == BotSpec(
        "gpt",
        "rookery bot run rookery.envs.seat:ToolSeatBot",
        env={"ROOKERY_CHAT_URL": "https://api.openai.com/v1", "ROOKERY_CHAT_MODEL": "gpt-4o-mini"},
        seat="llm-tools",
    )
    for extra, message in (
        ('command = "python evil.py"', "remove command"),
        ('env = {PYTHONPATH = "."}', "remove env"),
        ('folder = "."', "remove folder"),
    ):
        path.write_text(
            f'name = "m"\n[[bots]]\nname = "gpt"\nkind = "llm"\nmodel = "m"\n'
            f'url = "http://127.0.0.1:1/v1"\n{extra}\n[[bots]]\nname = "b"\ncommand = "x"\n'
        )
        with pytest.raises(ArenaConfigError, match=message):
            load_config(path)
    path.write_text('name = "m"\n[[bots]]\nname = "g"\nkind = "shell"\n[[bots]]\nname = "b"\n')
    with pytest.raises(ArenaConfigError, match="'shell': one of 'llm', 'llm-tools'"):
        load_config(path)


async def test_the_tournament_file_form_partners_a_model_and_a_sandboxed_bot(
    tmp_path: Path,
) -> None:
    """``kind = "llm-tools"`` in a tournament file: the tool-calling seat, outside the sandbox,
    partnered with the heuristic against random, both in it; priced by ``[llm.prices]``; both
    games finished, no incident."""
    run = tmp_path / "run"
    with chat_server("legal") as (url, script):
        (tmp_path / "t.toml").write_text(
            textwrap.dedent(
                f"""\
                name = "tools"
                games = 2
                [ruleset]
                target = 50
                [llm.prices]
                "scripted" = [1.0, 2.0]
                [[bots]]
                name = "gpt"
                kind = "llm-tools"
                model = "scripted"
                url = "{url}"
                [[bots]]
                name = "heuristic"
                command = "rookery bot run rookery.client.bots:HeuristicBot"
                [[bots]]
                name = "random"
                command = "rookery bot run rookery.client.bots:RandomBot"
                [[teams]]
                name = "duo"
                members = ["gpt", "heuristic"]
                """
            )
        )
        code, out = await _arena(tmp_path, "t.toml", "--out", str(run))
    assert code == 0, out
    assert "sandbox:" in out and "2/2 recorded" in out, out
    with RunStore(run) as store:
        for bot in ("gpt", "heuristic", "random"):
            assert store.incidents(bot) == [], (bot, out)
    assert script.requests and all("tools" in r["body"] for r in script.requests)
    ledger = run_ledger(run)["gpt"]
    assert ledger.games == 2 and ledger.cost_usd > 0
