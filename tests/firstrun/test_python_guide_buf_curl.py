"""docs/bots/python.md's ``npx … buf curl`` block as printed, from a fresh folder outside the
clone: on the guide's ``rookery serve`` (127.0.0.1:50051, replay files kept) with the guide's bot
on four sessions waiting, the block creates a table through the server's reflection, and the
game is played to its end (its replay verifies).

As printed it was ``npx buf curl``, which outside the clone (no ``@bufbuild/buf`` installed
beside it) fails: npm's package ``buf`` is another project, with no program (``could not
determine executable to run``). The block names the package and its version now; ``npx`` fetches
it from npm's registry the first time (then from its cache). The block's version is the one
``package.json`` pins, so the guide's buf is the one ``make lint`` uses.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from doc_commands import fenced_blocks, shell, shell_env, wait_until_free
from processes import Background, background_group
from test_readme_session import example_bot

SERVE = "rookery serve --address 127.0.0.1:50051 --replay-dir replays"
BOT = "rookery bot run my_bot.py:Greedy --name greedy --sessions 4 --max-tables 8"


def _buf_block(guide: Path) -> str:
    (block,) = [b for b in fenced_blocks(guide.read_text(encoding="utf-8")) if "buf" in b.text]
    return block.text


def test_the_guide_names_the_buf_that_package_json_pins(root: Path) -> None:
    pinned = json.loads((root / "package.json").read_text())["devDependencies"]["@bufbuild/buf"]
    block = _buf_block(root / "docs" / "bots" / "python.md")
    assert block.startswith(f"npx --yes @bufbuild/buf@{pinned} curl "), block


@pytest.mark.timeout(600)
def test_the_buf_curl_block_creates_a_table_that_is_played_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    guide = root / "docs" / "bots" / "python.md"
    text = guide.read_text(encoding="utf-8")
    assert SERVE in text and BOT in text, "the guide's server or bot line changed"
    block = _buf_block(guide)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_bot.py").write_text(example_bot(guide))
    env = shell_env(venv_bin)
    wait_until_free(50051)
    with background_group() as started:
        server = Background(["bash", "-c", f"exec {SERVE}"], folder / "serve.out", folder, env)
        started.append(server)
        server.wait_for(
            lambda out: "server started" in out and "50051" in out, 60, "the server's start"
        )
        player = Background(["bash", "-c", f"exec {BOT}"], folder / "bot.out", folder, env)
        started.append(player)
        player.wait_for(lambda out: "waiting for a table" in out, 60, "the bot's wait")
        created = shell(block, folder, env, timeout=300)
        assert created.returncode == 0, created.stdout + created.stderr
        table = json.loads(created.stdout)["table"]
        assert [seat["botName"] for seat in table["seats"]] == ["greedy"] * 4, table
        deadline = time.monotonic() + 300
        while not list((folder / "replays").glob("*.jsonl.gz")):
            assert time.monotonic() < deadline, f"no replay within 300 s:\n{player.output()}"
            time.sleep(0.5)
    (replay,) = (folder / "replays").glob("*.jsonl.gz")
    assert table["tableId"] in replay.name, replay.name
    verified = shell("rookery replay verify replays/*.jsonl.gz", folder, env, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
