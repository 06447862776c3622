"""docs/ai.md's language-model commands as printed, from a fresh folder outside the clone, each
ending in finished games: the text seat's session on a server of your own, the arena's
``--bot NAME=llm:MODEL@URL`` line, and the recipe of ``examples/tournaments/llm-gauntlet.toml``
(with the ``--games 2`` the doc gives for a first look, from a folder holding the example file at
the path the command names) and its ``rookery llm ledger``.

The model is the scripted OpenAI-compatible server of ``tests/envs/chat_server.py`` (it answers
the first legal move the prompt lists), listening where the doc says, 127.0.0.1:8000; the Rookery
server where the doc says, 127.0.0.1:50051. The test waits for each port to be free (other tests
take them too). The commands run in bash with this venv's ``rookery`` first on PATH and no
``ROOKERY_*`` variables, the sandbox at its default unless the printed line sets it.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from doc_commands import shell_env, wait_until_free
from processes import Background, background_group
from rookery.arena.records import RunStore

#: How a game may end on its own.
FINISHED = {"TARGET_REACHED", "MAX_HANDS"}
#: Where the doc's model listens.
CHAT_PORT = 8000


@pytest.fixture
def scripted_model(root: Path) -> Iterator[Any]:
    """The scripted chat server on 127.0.0.1:8000, answering legal moves; yields its script."""
    sys.path.insert(0, str(root / "tests" / "envs"))
    try:
        module = importlib.import_module("chat_server")
    finally:
        sys.path.remove(str(root / "tests" / "envs"))
    wait_until_free(CHAT_PORT, timeout=300)
    server: AbstractContextManager[tuple[str, Any]] = module.chat_server("legal", port=CHAT_PORT)
    with server as (url, script):
        assert url == f"http://127.0.0.1:{CHAT_PORT}/v1"
        yield script


def _block_after(doc: str, marker: str) -> str:
    """The ``sh`` block after ``marker``."""
    assert marker in doc, f"docs/ai.md no longer says {marker!r}"
    block = re.search(r"```sh\n(.*?)```", doc.split(marker, 1)[1], re.DOTALL)
    assert block, f"no sh block after {marker!r}"
    return block.group(1)


@pytest.mark.timeout(600)
def test_the_text_seat_plays_a_table_of_its_own_server_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path, scripted_model: Any
) -> None:
    doc = (root / "docs" / "ai.md").read_text(encoding="utf-8")
    block = _block_after(doc, "As a bot, behind any OpenAI-compatible chat endpoint")
    assert "ROOKERY_CHAT_URL=http://127.0.0.1:8000/v1" in block and "table create" in block
    wait_until_free(50051, timeout=300)
    with background_group() as started:
        session = Background(
            ["bash", "-c", block], tmp_path / "session.out", tmp_path, shell_env(venv_bin)
        )
        started.append(session)
        session.process.wait(timeout=400)
        output = session.output()
    assert session.process.returncode == 0, output
    (result,) = [line for line in output.splitlines() if line.startswith("finished (")]
    assert result.startswith(("finished (target_reached)", "finished (max_hands)")), result
    assert "TextSeatBot, HeuristicBot" in output, output
    # The model decided the text seat's moves: every request a chat completion, answered.
    assert len(scripted_model.requests) > 20, len(scripted_model.requests)
    assert {request["path"] for request in scripted_model.requests} == {"/v1/chat/completions"}
    assert {request["body"]["model"] for request in scripted_model.requests} == {"my-model"}


@pytest.mark.timeout(600)
def test_the_arena_llm_flag_line_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path, scripted_model: Any
) -> None:
    doc = (root / "docs" / "ai.md").read_text(encoding="utf-8")
    block = _block_after(doc, "From the command line alone, `--bot NAME=llm:MODEL@URL`")
    assert "llm:my-model@http://127.0.0.1:8000/v1" in block and "--sandbox" not in block, block
    done = subprocess.run(
        ["bash", "-c", block], cwd=tmp_path, env=shell_env(venv_bin), capture_output=True,
        text=True, timeout=400, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "gpt" in done.stdout and "heuristic" in done.stdout, output
    assert "sandbox: bubblewrap" in output, output  # the heuristic bot's; the model's seat outside
    run = (tmp_path / "runs" / "latest").resolve()
    with RunStore(run) as store:
        (tournament,) = store.tournaments()
        terminations = [game.termination for game in store.games(tournament.tournament_id)]
    assert len(terminations) == 2 and set(terminations) <= FINISHED, terminations
    assert len(scripted_model.requests) > 20, len(scripted_model.requests)
    assert {request["body"]["model"] for request in scripted_model.requests} == {"my-model"}


@pytest.mark.timeout(600)
def test_the_gauntlet_recipe_and_its_ledger_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path, scripted_model: Any
) -> None:
    doc = (root / "docs" / "ai.md").read_text(encoding="utf-8")
    block = _block_after(doc, "### Recipe: a hosted model against the reference pool")
    first_look = re.search(r"add `(--games \d+)` to the run line for a first look", doc)
    assert first_look, "docs/ai.md no longer says how to take a first look"
    lines = block.strip().splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["export", "ROOKERY_CHAT_KEY=...", "#"],
        ["rookery", "arena", "run"],
        ["rookery", "llm", "ledger"],
    ], lines
    file = lines[1].split()[-1]
    (tmp_path / file).parent.mkdir(parents=True)
    shutil.copy(root / file, tmp_path / file)
    lines[1] = f"{lines[1]} {first_look.group(1)}"
    done = subprocess.run(
        ["bash", "-c", "set -e\n" + "\n".join(lines)], cwd=tmp_path, env=shell_env(venv_bin),
        capture_output=True, text=True, timeout=400, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    run = (tmp_path / "runs" / "latest").resolve()
    with RunStore(run) as store:
        (tournament,) = store.tournaments()
        terminations = [game.termination for game in store.games(tournament.tournament_id)]
    assert len(terminations) == 6 and set(terminations) <= FINISHED, terminations  # 3 pairings
    requests = scripted_model.requests
    assert len(requests) > 20 and {r["body"]["model"] for r in requests} == {"my-model"}
    assert {r["auth"] for r in requests} == {"Bearer ..."}  # the exported key, sent
    # The ledger (its --json form): the model's row, its attempts the scripted server's requests.
    listed = subprocess.run(
        ["bash", "-c", lines[2] + " --json"], cwd=tmp_path, env=shell_env(venv_bin),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stdout + listed.stderr
    (row,) = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    assert row["bot"] == "model" and row["games"] == 6, row
    assert row["attempts"] == len(requests) and row["cost_usd"] > 0, row
