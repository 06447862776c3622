"""docs/bots/reference.md's "As processes against a server" block as printed, from a fresh
folder outside the clone: its three ``rookery bot run`` lines (pimc, heuristic with two sessions,
random) fill a table on a ``rookery serve`` of 127.0.0.1:50051, which ``rookery table create
--wait`` (docs/bots/python.md's command) starts and follows to its end.

The block gives the bots, not the server nor the table: the test adds those two commands. Its
arena block is ``test_reference_doc_arena.py``'s. The test waits for the port to be free (other
tests take it too).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from doc_commands import shell_env, wait_until_free
from processes import Background, background_group


@pytest.mark.timeout(600)
def test_the_reference_bots_as_processes_play_a_table_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    doc = (root / "docs" / "bots" / "reference.md").read_text(encoding="utf-8")
    marker = "As processes against a server"
    assert marker in doc, f"docs/bots/reference.md no longer says {marker!r}"
    block = re.search(r"```sh\n(.*?)```", doc.split(marker, 1)[1], re.DOTALL)
    assert block, "no sh block of processes"
    lines = block.group(1).strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("rookery bot run ") for line in lines), lines
    env = shell_env(venv_bin)
    wait_until_free(50051, timeout=300)
    with background_group() as started:
        serve = "rookery serve --address 127.0.0.1:50051"
        server = Background(["bash", "-c", f"exec {serve}"], tmp_path / "serve.out", tmp_path, env)
        started.append(server)
        server.wait_for(
            lambda text: "server started" in text and "50051" in text, 60, "the server's start"
        )
        for index, line in enumerate(lines):
            log = tmp_path / f"bot{index}.out"
            started.append(Background(["bash", "-c", f"exec {line}"], log, tmp_path, env))
        for index in range(len(lines)):
            started[1 + index].wait_for(
                lambda text: "waiting for a table" in text, 60, f"bot {index}'s wait"
            )
        seats = "--seat pimc --seat heuristic --seat random --seat heuristic"
        created = subprocess.run(
            ["bash", "-c", f"rookery table create --server 127.0.0.1:50051 {seats} --wait"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    output = created.stdout + created.stderr
    assert created.returncode == 0, output
    (result,) = [line for line in created.stdout.splitlines() if line.startswith("finished (")]
    assert result.startswith(("finished (target_reached)", "finished (max_hands)")), result
