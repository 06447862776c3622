"""The Python guide's arena command as printed, in a fresh folder outside the clone, with the
sandbox at its default: the guide's own bot plays its games against the heuristic to the end.

(The other languages' guides are run the same way by ``tests/kits/test_outside_projects.py``,
after building each guide's project as it says.)
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from rookery.arena.records import RunStore
from test_readme_session import example_bot


def _blocks_after(text: str, marker: str) -> list[str]:
    """The lines of the first plain code block after ``marker``."""
    rest = text.split(marker, 1)[1]
    match = re.search(r"```\n(.*?)```", rest, re.DOTALL)
    assert match, f"no code block after {marker!r}"
    return [line for line in match.group(1).splitlines() if line.strip()]


@pytest.mark.timeout(400)
def test_the_python_guide_plays_in_the_arena_as_printed(
    root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    guide = root / "docs" / "bots" / "python.md"
    folder = tmp_path / "mine"  # a user's folder: others may read it (the sandbox's user)
    folder.mkdir(mode=0o755)
    (folder / "my_bot.py").write_text(example_bot(guide))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROOKERY_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv_bin}{os.pathsep}{env['PATH']}"
    (line,) = _blocks_after(guide.read_text(encoding="utf-8"), "Save it as `my_bot.py`")
    assert line.startswith("rookery arena run ") and "--games 4" in line
    for command in (line, "rookery arena report runs/latest"):
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{command!r}:\n{done.stdout}{done.stderr}"
        assert "mine" in done.stdout
        if command == line:  # the sandbox at its default: on, where this machine can make it
            assert "sandbox: bubblewrap" in done.stdout + done.stderr, done.stdout + done.stderr
    with RunStore(folder / "runs" / "latest") as store:
        games = store.games("arena")
        incidents = [i for i in store.incidents("arena") if i[0] == "mine"]
    assert len(games) == 4 and incidents == [], (games, incidents)
    assert {g.termination for g in games} <= {"TARGET_REACHED", "MAX_HANDS"}
