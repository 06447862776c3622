"""docs/arena.md's commands given in its prose rather than in a code block, as printed: the
reference round-robin from its example file (with the ``--games 2`` the doc gives for a first
look), killed with SIGKILL after its first recorded game and resumed with ``--resume runs/latest``
as "Crash safety and resume" says, then ``rookery arena incidents RUN_DIR`` on it.

The doc says "in a clone": the folder is a fresh one outside the clone holding the example file at
the path the command names (``examples/tournaments/round-robin.toml``), so the run directories go
there and not into the checkout. The commands run in bash with this venv's ``rookery`` first on
PATH, no ``ROOKERY_*`` variables and the sandbox at its default (on, where this machine can make
it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from doc_commands import shell_env
from processes import Background, background_group
from rookery.arena.records import RunStore

#: How a game may end on its own.
FINISHED = {"TARGET_REACHED", "MAX_HANDS"}


def _shell(command: str, folder: Path, venv_bin: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=shell_env(venv_bin), capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip


def _terminations(run_dir: Path) -> list[str]:
    """The recorded games' terminations of the run's one tournament (none yet: empty)."""
    if not (run_dir / "arena.sqlite").is_file():
        return []
    with RunStore(run_dir) as store:
        tournaments = store.tournaments()
        if not tournaments:
            return []
        return [game.termination for game in store.games(tournaments[0].tournament_id)]


def _inline(doc: str, pattern: str) -> str:
    match = re.search(pattern, doc)
    assert match, f"docs/arena.md no longer matches {pattern!r}"
    return match.group(1)


@pytest.mark.timeout(600)
def test_the_round_robin_killed_resumed_and_its_incidents_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    doc = " ".join((root / "docs" / "arena.md").read_text(encoding="utf-8").split())
    example = _inline(doc, r"In a clone, `(rookery arena run examples/tournaments/[\w.-]+\.toml)`")
    first_look = _inline(doc, r"add `(--games \d+)` for a first look")
    resume = _inline(doc, r"\(`(--resume runs/latest)` for the last run\)")
    incidents = _inline(doc, r"`(rookery arena incidents RUN_DIR)")
    folder = tmp_path / "mine"
    (folder / "examples" / "tournaments").mkdir(parents=True)
    folder.chmod(0o755)  # others may read it: the sandbox's user
    file = example.split()[-1]
    shutil.copy(root / file, folder / file)
    command = f"{example} {first_look}"
    latest = folder / "runs" / "latest"

    with background_group() as started:
        arena = Background(
            ["bash", "-c", f"exec {command}"], folder / "arena.out", folder, shell_env(venv_bin)
        )
        started.append(arena)
        deadline = time.monotonic() + 300
        while not _terminations(latest):
            assert arena.process.poll() is None, arena.output()
            assert time.monotonic() < deadline, f"no game recorded in 300 s:\n{arena.output()}"
            time.sleep(0.2)
        os.kill(arena.process.pid, signal.SIGKILL)  # the arena alone, as a crash would
        arena.process.wait(timeout=30)
    before = _terminations(latest)
    assert 1 <= len(before) < 6, before

    done = _shell(f"{command} {resume}", folder, venv_bin)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sandbox: bubblewrap" in output, output
    played = re.search(r"resumed and played (\d+) game\(s\)", done.stdout)
    assert played and int(played.group(1)) == 6 - len(before), output
    after = _terminations(latest)
    assert len(after) == 6 and set(after) <= FINISHED, after  # 3 pairings, 2 games each

    listed = _shell(incidents.replace("RUN_DIR", "runs/latest"), folder, venv_bin)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    as_json = _shell(incidents.replace("RUN_DIR", "runs/latest") + " --json", folder, venv_bin)
    assert as_json.returncode == 0, as_json.stdout + as_json.stderr
    rows = [json.loads(line) for line in as_json.stdout.splitlines() if line.strip()]
    with RunStore(latest) as store:
        (tournament,) = store.tournaments()
        stored = store.incidents(tournament.tournament_id)
    # The reference bots make no fallback, late or rejected move: the list is the store's, empty.
    assert len(rows) == len(stored) == 0, (rows, stored)
    assert "0 incident(s)" in listed.stderr, listed.stdout + listed.stderr
