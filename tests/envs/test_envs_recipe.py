"""docs/ai.md's train-then-arena recipe runs as printed, from an empty folder, with the sandbox on:
the policy trained from the shell plays its games as a sandboxed bot process, every move its own."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from rookery.arena.launch import probe
from rookery.arena.records import load_run

DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"
BIN = Path(sys.executable).parent


def _recipe() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    chosen = [block for block in blocks if "rookery envs train" in block]
    assert len(chosen) == 1, "docs/ai.md prints one train-then-arena recipe"
    return str(chosen[0])


def test_the_train_then_arena_recipe_runs_as_printed_with_the_sandbox_on(tmp_path: Path) -> None:
    recipe = _recipe()
    assert 'sandbox = "on"' in recipe
    support = probe(cgroups=False)
    assert support.available, support.describe()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(
        ["bash", "-e", "-c", recipe],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, output
    assert (tmp_path / "policy.npz").is_file()
    run = tmp_path / "runs" / "bridge"
    with sqlite3.connect(run / "arena.sqlite") as db:
        games = [t for (t,) in db.execute("SELECT termination FROM games")]
        incidents = db.execute("SELECT bot, kind FROM incidents").fetchall()
    assert len(games) == 2 and set(games) <= {"TARGET_REACHED", "MAX_HANDS"}, (games, output)
    assert incidents == [], incidents
    standing = {s.name: s for s in load_run(run).summary.standings}["trained"]
    assert standing.games == 2
    assert (standing.illegal_replies, standing.timeouts, standing.auto_plays) == (0, 0, 0)
    assert (run / "report.html").is_file()
