"""What a sandboxed bot sees of its own folder: the quick-start, run as printed, by a bot looking.

The README's and the Python guide's first tournaments (``rookery arena run --bot mine="python
my_bot.py" ...``) runs in the bot's own folder, so the run directory (``runs/…``: the
SQLite file with the tournament's seed, every bot's log) lies inside the folder the sandbox
mounts for the bot. The bot here is the guide's example bot with a look around first: it walks
its folder and reads the first bytes of every file it finds, also the ones it knows to ask for by
name, and writes what it could read to its log. The folder is also the organiser's ``$HOME``
(with a dotfile), and it holds an older run of its own.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from rookery.arena.launch import probe

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "bots" / "python.md"
ROOKERY = Path(sys.executable).with_name("rookery")

#: Runs first in the bot's process: every file under its folder it can read, and a few it names.
LOOK = """
import json as _json, os as _os, sys as _sys

def _look():
    here = _os.path.dirname(_os.path.abspath(__file__))
    asked = ["runs/arena/arena.sqlite", "runs/latest/arena.sqlite", "runs/latest/spec.json",
             "runs/latest/logs/heuristic.log", "older/run/arena.sqlite", ".netrc", ".config/token"]
    found = set()
    for root, _dirs, files in _os.walk(here):
        for name in files:
            found.add(_os.path.relpath(_os.path.join(root, name), here))
    readable = []
    for name in sorted(found | set(asked)):
        try:
            with open(_os.path.join(here, name), "rb") as handle:
                handle.read(64)
        except OSError:
            continue
        readable.append(name)
    _sys.stderr.write("LOOKED " + _json.dumps(readable) + "\\n")
    _sys.stderr.flush()

_look()
"""


def _example_bot() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    match = re.search(r"<!-- example-bot.*?-->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match, f"no example bot block in {GUIDE}"
    return match.group(1)


def _quick_start_command(doc: Path) -> list[str]:
    """``doc``'s arena line, as printed, with its ``rookery`` (``.venv/bin/rookery``) this
    venv's."""
    line = next(
        line
        for line in doc.read_text(encoding="utf-8").splitlines()
        if "arena run --bot mine=" in line
    )
    words = shlex.split(line.split("#")[0])
    assert words[0].endswith("rookery"), line
    return [str(ROOKERY), *words[1:]]


def _looked(log: str) -> list[list[str]]:
    return [json.loads(line[len("LOOKED ") :]) for line in log.splitlines()
            if line.startswith("LOOKED ")]  # fmt: skip


@pytest.mark.parametrize(("doc", "games"), [(README, 12), (GUIDE, 4)], ids=["README", "guide"])
def test_the_quick_start_gives_the_bot_no_view_of_runs_logs_or_home_dotfiles(
    tmp_path: Path, doc: Path, games: int
) -> None:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_bot.py").write_text(LOOK + _example_bot(), encoding="utf-8")
    (folder / "notes.txt").write_text("the bot's own file: it sees this")
    (folder / ".netrc").write_text("machine example.org login organiser password hunter2\n")
    (folder / ".config").mkdir()
    (folder / ".config" / "token").write_text("organiser-token\n")
    older = folder / "older" / "run"
    older.mkdir(parents=True)
    with sqlite3.connect(older / "arena.sqlite") as db:
        db.execute("CREATE TABLE runs (seed INTEGER)")
        db.execute("INSERT INTO runs VALUES (424242)")
    env = {
        "PATH": f"{ROOKERY.parent}:/usr/bin:/bin",
        "HOME": str(folder),  # the organiser runs the quick-start in their home folder
        "LANG": "C.UTF-8",
    }
    command = _quick_start_command(doc)
    done = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "sandbox: bubblewrap" in done.stdout + done.stderr

    (run_dir,) = {p.parent.resolve() for p in (folder / "runs").glob("*/arena.sqlite")}
    looks = _looked((run_dir / "logs" / "mine.log").read_text(errors="replace"))
    assert looks, "the bot never looked"
    for readable in looks:
        assert "my_bot.py" in readable and "notes.txt" in readable  # the control: its own files
        assert readable == ["my_bot.py", "notes.txt"], f"{len(looks)} looks, one read {readable}"
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        kinds = [row[0] for row in db.execute("SELECT kind FROM incidents")]
        recorded = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert kinds == [] and recorded == games, (kinds, recorded)
    shutil.rmtree(folder, ignore_errors=True)
    assert not os.path.exists(folder)
