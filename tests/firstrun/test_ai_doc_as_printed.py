"""docs/ai.md's bots against a server of your own, as printed, from a fresh folder outside the
clone: each block serves, connects the bot and the heuristic and seats them at a table, which
plays to its end. The trained policy's block runs after ``rookery envs train`` as the doc gives
it; the MCTS bot's needs nothing before it.

(The train-then-arena recipe, with the sandbox on, is ``tests/envs/test_envs_recipe.py``; the
doc's Python examples are ``tests/envs/test_envs_docs.py``.) The server listens where the doc
says, 127.0.0.1:50051: the test waits for that port to be free (the README session's test takes
it too).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from doc_commands import shell_env, wait_until_free
from processes import Background, background_group


def _session_after(doc: str, marker: str) -> str:
    """The ``sh`` block after ``marker``: a server session that ends in a table's result."""
    assert marker in doc, f"docs/ai.md no longer says {marker!r}"
    block = re.search(r"```sh\n(.*?)```", doc.split(marker, 1)[1], re.DOTALL)
    assert block and "rookery table create" in block.group(1), f"no session block after {marker!r}"
    return block.group(1)


def _play_session(block: str, folder: Path, venv_bin: Path, bot: str) -> None:
    """Run ``block`` as a bash script in ``folder``; its table ends on its own, ``bot`` seated."""
    wait_until_free(50051, timeout=300)
    with background_group() as started:
        session = Background(
            ["bash", "-c", block], folder / "session.out", folder, shell_env(venv_bin)
        )
        started.append(session)
        session.process.wait(timeout=400)
        output = session.output()
    assert session.process.returncode == 0, output
    (result,) = [line for line in output.splitlines() if line.startswith("finished (")]
    assert result.startswith(("finished (target_reached)", "finished (max_hands)")), result
    assert "table t-" in output and f"{bot}, HeuristicBot" in output, output


@pytest.mark.timeout(600)
def test_the_trained_policy_plays_a_table_of_its_own_server_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    doc = (root / "docs" / "ai.md").read_text(encoding="utf-8")
    train = re.search(r"From the shell, `(rookery envs train [^`]+)`", doc)
    assert train, "docs/ai.md no longer gives the training command"
    block = _session_after(doc, "runs as a Rookery bot, unchanged.")
    trained = subprocess.run(
        ["bash", "-c", train.group(1)], cwd=tmp_path, env=shell_env(venv_bin),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stdout + trained.stderr
    assert (tmp_path / "policy.npz").is_file()
    _play_session(block, tmp_path, venv_bin, "LinearBot")


@pytest.mark.timeout(600)
def test_the_mcts_bot_plays_a_table_of_its_own_server_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    doc = (root / "docs" / "ai.md").read_text(encoding="utf-8")
    block = _session_after(doc, "a bury is searched card by card and returned whole.")
    assert "ROOKERY_MCTS_SIMULATIONS=20 " in block
    _play_session(block, tmp_path, venv_bin, "MctsBot")
