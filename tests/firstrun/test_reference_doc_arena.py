"""docs/bots/reference.md's arena block as printed, from a fresh folder outside the clone holding
the Python guide's example bot as ``my_bot.py`` (as the doc says), with the sandbox at its
default: pimc, heuristic and the guide's bot in a round-robin of 2 games a pairing, each game
played to its end, with no crash.

The block had no ``--games`` (10 a pairing, 30 games, 20 of them with PIMC: minutes on a loaded
machine); it gives ``--games 2`` now, and says that 10 is the default.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from doc_commands import fenced_blocks, shell, shell_env
from test_readme_session import example_bot


@pytest.mark.timeout(600)
def test_the_reference_bots_arena_block_plays_its_games_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    doc = (root / "docs" / "bots" / "reference.md").read_text(encoding="utf-8")
    (block,) = [b for b in fenced_blocks(doc) if b.first_line.startswith("rookery arena run")]
    assert "--games 2" in block.text and 'mine="python my_bot.py"' in block.text, block.text
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)  # others may read it: the sandbox's user
    (folder / "my_bot.py").write_text(example_bot(root / "docs" / "bots" / "python.md"))
    done = shell(block.text, folder, shell_env(venv_bin), timeout=500)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sandbox: bubblewrap" in output, output
    assert "6/6 recorded in runs/arena-" in done.stdout, done.stdout  # 3 pairings, 2 games each
    with (folder / "runs" / "latest" / "games.csv").open(newline="") as handle:
        games = list(csv.DictReader(handle))
    assert len(games) == 6 and {g["termination"] for g in games} <= {"TARGET_REACHED", "MAX_HANDS"}
    assert all(g["forfeit_seat"] == "-1" for g in games), games
    assert {name for g in games for name in g["seats"].split()} == {"pimc", "heuristic", "mine"}
