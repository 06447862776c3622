"""Documented commands with relative paths work in the sandbox, from a folder outside the clone.

- ``rookery arena run --bot mine=target/debug/mybot`` (the Rust guide): a program in a build
  folder of its project, named relative to the current folder;
- the contest recipe of docs/arena.md: a tournament file whose bots' ``command`` and ``folder``
  are relative to the file's folder, run from that folder and from elsewhere;
- a TypeScript bot built to ``dist/`` (``node dist/myBot.js``) whose ``rookery-bot-kit`` is a
  link in its ``node_modules`` to the kit's folder (``npm install $ROOKERY/clients/typescript``).

Each plays its games to the end against the heuristic with the sandbox on.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from rookery.arena.launch import probe

REPO = Path(__file__).resolve().parents[2]
ROOKERY = Path(sys.executable).with_name("rookery")
GREEDY = REPO / "docs" / "bots" / "python.md"
KIT = REPO / "clients" / "typescript"


def _example_bot() -> str:
    import re

    text = GREEDY.read_text(encoding="utf-8")
    match = re.search(r"<!-- example-bot.*?-->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match
    return match.group(1)


def _arena(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env["PATH"] = f"{ROOKERY.parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    return subprocess.run(
        [str(ROOKERY), "arena", "run", *args, "--sandbox", "on"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _check_played(done: subprocess.CompletedProcess[str], run_dir: Path, games: int) -> None:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        recorded = db.execute("SELECT termination FROM games").fetchall()
        incidents = db.execute("SELECT bot, kind, detail FROM incidents").fetchall()
    assert len(recorded) == games and incidents == [], (recorded, incidents, done.stdout[-2000:])
    assert {t for (t,) in recorded} <= {"TARGET_REACHED", "MAX_HANDS"}, recorded


def _executable_bot(path: Path, bot_file: Path) -> None:
    """``path``: a program (as a compiled bot would be) that runs the Python example bot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nexec {sys.executable} "{bot_file}" "$@"\n')
    path.chmod(0o755)


def test_a_program_in_its_projects_build_folder_named_relative_to_the_current_folder(
    tmp_path: Path,
) -> None:
    project = tmp_path / "mybot"
    project.mkdir()
    (project / "Cargo.toml").write_text('[package]\nname = "mybot"\n')
    (project / "src").mkdir()
    (project / "src" / "greedy.py").write_text(_example_bot())
    _executable_bot(project / "target" / "debug" / "mybot", project / "src" / "greedy.py")

    done = _arena(project, "--bot", "mine=target/debug/mybot", "--bot", "heuristic",
                  "--games", "2", "--out", "runs/relative", "--preset", "standard")  # fmt: skip

    _check_played(done, project / "runs" / "relative", 2)


@pytest.mark.parametrize("where", ["in its folder", "from elsewhere"])
def test_the_contest_recipes_relative_commands_and_folders(tmp_path: Path, where: str) -> None:
    contest = tmp_path / "contest"
    team = contest / "submissions" / "team-alpha"
    (team / "src").mkdir(parents=True)
    (team / "Cargo.toml").write_text('[package]\nname = "bot"\n')
    (team / "src" / "greedy.py").write_text(_example_bot())
    _executable_bot(team / "target" / "release" / "bot", team / "src" / "greedy.py")
    os.chmod(tmp_path, 0o755)
    (contest / "spring-contest.toml").write_text(
        'name = "spring-contest"\nformat = "round-robin"\ngames = 2\nsandbox = "on"\n'
        "[[bots]]\n"
        'name = "team-alpha"\n'
        'command = "submissions/team-alpha/target/release/bot"\n'
        'folder = "submissions/team-alpha"\n'
        "[[bots]]\n"
        'name = "heuristic"\n'
        'command = "rookery bot run rookery.client.bots:HeuristicBot"\n'
    )
    cwd = contest if where == "in its folder" else tmp_path
    config = "spring-contest.toml" if cwd == contest else "contest/spring-contest.toml"

    done = _arena(cwd, config, "--out", str(tmp_path / "run"))

    _check_played(done, tmp_path / "run", 2)


def _built_typescript_kit() -> None:
    """The kit's own build.sh (cached by the script), under the lock the kit tests hold."""
    with (KIT / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        done = subprocess.run(
            ["nice", "-n", "10", str(KIT / "build.sh")],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (KIT / "dist" / "src" / "index.js").is_file()


@pytest.mark.timeout(900)  # on a fresh machine the kit's build.sh runs npm ci and tsc first
def test_a_typescript_bot_in_dist_finds_its_linked_kit(tmp_path: Path) -> None:
    _built_typescript_kit()
    project = tmp_path / "mybot"
    (project / "dist").mkdir(parents=True)
    (project / "node_modules").mkdir()
    (project / "package.json").write_text('{"name": "mybot", "version": "1.0.0"}\n')
    (project / "node_modules" / "rookery-bot-kit").symlink_to(KIT, target_is_directory=True)
    (project / "dist" / "myBot.js").write_text(
        'const { firstLegal, runMain } = require("rookery-bot-kit");\n'
        "runMain(() => ({ act: (request) => firstLegal(request.legalActions) }),\n"
        '  process.argv.slice(2), { version: "1.0.0" }).then((code) => process.exit(code));\n'
    )

    done = _arena(project, "--bot", "mine=node dist/myBot.js", "--bot", "heuristic",
                  "--games", "2", "--out", "runs/ts")  # fmt: skip

    _check_played(done, project / "runs" / "ts", 2)
