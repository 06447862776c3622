"""docs/bots/python.md's "Against a standing server" commands as printed, from a fresh folder
outside the clone holding the guide's bot as ``my_bot.py``: ``rookery serve`` keeping replay
files, the bot with four sessions, ``rookery table create --wait`` playing its game to the end,
and ``rookery replay verify`` on the replay it wrote. And the guide's earlier block for a server
of your own: each of its lines (``ROOKERY_SESSIONS=4 python my_bot.py``, ``rookery bot run
my_bot.py:Greedy ... --sessions 4``) takes every seat of a table that ``rookery table create
--seat Greedy --wait`` plays to its end. And its "A few games against a reference bot" arena
line, 20 games with the sandbox at its default.

The ``npx … buf curl`` block between them is ``test_python_guide_buf_curl.py``'s.
The server listens where the guide says, 127.0.0.1:50051: the test waits for that port to be free
(other tests take it too). The commands run with this venv's ``rookery`` and ``python`` first on
PATH and no ``ROOKERY_*`` variables.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from doc_commands import shell_env, wait_until_free
from processes import Background, background_group
from rookery.arena.records import RunStore
from test_readme_session import example_bot


def _command_after(section: str, marker: str) -> str:
    """The one command of the plain block after ``marker`` (continuation lines joined)."""
    assert marker in section, f"docs/bots/python.md no longer says {marker!r}"
    match = re.search(r"```\n(.*?)```", section.split(marker, 1)[1], re.DOTALL)
    assert match, f"no code block after {marker!r}"
    return match.group(1).replace("\\\n", " ").strip()


@pytest.mark.timeout(600)
def test_the_python_guide_against_a_standing_server_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    guide = root / "docs" / "bots" / "python.md"
    doc = guide.read_text(encoding="utf-8")
    section = doc.split("**Against a standing server**", 1)[1].split("**In a test suite**", 1)[0]
    serve = _command_after(section, "keeping replay files:")
    bot = _command_after(section, "(four, to partner itself):")
    table = _command_after(section, "prints the result):")
    verify = _command_after(section, "check its replay:")
    assert serve.startswith("rookery serve ") and "--replay-dir replays" in serve, serve
    assert bot.startswith("rookery bot run my_bot.py:Greedy "), bot
    assert table.startswith("rookery table create ") and "--wait" in table, table
    assert verify == "rookery replay verify replays/*.jsonl.gz", verify
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_bot.py").write_text(example_bot(guide))
    env = shell_env(venv_bin)
    wait_until_free(50051, timeout=300)
    with background_group() as started:
        server = Background(["bash", "-c", f"exec {serve}"], folder / "serve.out", folder, env)
        started.append(server)
        server.wait_for(
            lambda text: "server started" in text and "50051" in text, 60, "the server's start"
        )
        player = Background(["bash", "-c", f"exec {bot}"], folder / "bot.out", folder, env)
        started.append(player)
        player.wait_for(lambda text: "waiting for a table" in text, 60, "the bot's wait")
        created = subprocess.run(
            ["bash", "-c", table], cwd=folder, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert created.returncode == 0, created.stdout + created.stderr
        (result,) = [line for line in created.stdout.splitlines() if line.startswith("finished (")]
        assert result.startswith(("finished (target_reached)", "finished (max_hands)")), result
        deadline = time.monotonic() + 30
        while not list((folder / "replays").glob("*.jsonl.gz")):
            assert time.monotonic() < deadline, "no replay file written within 30 s"
            time.sleep(0.2)
    replays = list((folder / "replays").glob("*.jsonl.gz"))
    assert len(replays) == 1, replays  # the one table's game
    verified = subprocess.run(
        ["bash", "-c", verify], cwd=folder, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert replays[0].name in verified.stdout + verified.stderr, verified.stdout + verified.stderr


@pytest.mark.timeout(600)
def test_each_line_of_the_guides_own_server_block_takes_a_whole_table(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    guide = root / "docs" / "bots" / "python.md"
    doc = guide.read_text(encoding="utf-8")
    marker = "four sessions let it take every seat:"
    assert marker in doc, f"docs/bots/python.md no longer says {marker!r}"
    block = re.search(r"```\n(.*?)```", doc.split(marker, 1)[1], re.DOTALL)
    assert block, f"no code block after {marker!r}"
    lines = block.group(1).strip().splitlines()
    assert lines[0] == "ROOKERY_SESSIONS=4 python my_bot.py", lines
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_bot.py").write_text(example_bot(guide))
    env = shell_env(venv_bin)
    for index, line in enumerate(lines):
        wait_until_free(50051, timeout=300)
        with background_group() as started:
            server = Background(
                ["bash", "-c", "exec rookery serve --address 127.0.0.1:50051"],
                folder / f"serve{index}.out", folder, env,
            )  # fmt: skip
            started.append(server)
            server.wait_for(
                lambda text: "server started" in text and "50051" in text, 60, "the server's start"
            )
            player = Background(["bash", "-c", line], folder / f"bot{index}.out", folder, env)
            started.append(player)
            player.wait_for(lambda text: "waiting for a table" in text, 60, f"{line!r} waiting")
            created = subprocess.run(
                ["bash", "-c", "rookery table create --seat Greedy --wait"], cwd=folder, env=env,
                capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
        assert created.returncode == 0, f"{line!r}:\n{created.stdout}{created.stderr}"
        finished = [row for row in created.stdout.splitlines() if row.startswith("finished (")]
        assert len(finished) == 1, created.stdout
        assert finished[0].startswith(("finished (target_reached)", "finished (max_hands)"))


@pytest.mark.timeout(600)
def test_the_guides_few_games_against_a_reference_bot_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    guide = root / "docs" / "bots" / "python.md"
    command = _command_after(
        guide.read_text(encoding="utf-8"), "**A few games against a reference bot**"
    )
    assert command.startswith("rookery arena run ") and "--games 20" in command, command
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)  # others may read it: the sandbox's user
    (folder / "my_bot.py").write_text(example_bot(guide))
    done = subprocess.run(
        ["bash", "-c", command], cwd=folder, env=shell_env(venv_bin), capture_output=True,
        text=True, timeout=400, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sandbox: bubblewrap" in output and "greedy" in done.stdout, output
    with RunStore((folder / "runs" / "latest").resolve()) as store:
        (tournament,) = store.tournaments()
        terminations = [game.termination for game in store.games(tournament.tournament_id)]
    assert len(terminations) == 20, terminations  # one pairing, 20 games
    assert set(terminations) <= {"TARGET_REACHED", "MAX_HANDS"}, terminations
