"""What a sandboxed bot sees of its project: every language guide's arena line, run as printed.

``test_sandbox_view`` runs the README's and the Python guide's first tournaments with a bot that
looks around. Here the same looking bot stands at the program path of the Go, Rust, C++, Java and
TypeScript guides' ``rookery arena run --bot mine=... --bot heuristic --games 4`` lines, taken
verbatim from ``docs/bots/<language>.md``, in a fresh folder laid out as the guide's project (its
project file and sources, the build folder inside it), which is also the organiser's ``$HOME``
(with dotfiles) and holds an older run of its own. The native programs are executable Python
scripts (``#!/usr/bin/env python3``); the TypeScript program is a small ``.js`` that starts
``python3`` on the looking bot with inherited stdio, the Java program a small jar (built here with
``javac`` and ``jar``) whose main does the same. The looking bot reads the first bytes of every
file of the project and of a few it asks for by name (the run's SQLite file, logs, the older run,
the dotfiles), writes what it could read to its log, then plays as the guide's example bot.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rookery.arena.launch import probe
from test_sandbox_view import LOOK, ROOKERY, _example_bot, _looked, _quick_start_command

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots"
#: The line of ``LOOK`` that names the folder it looks at: here, the project folder.
_HERE = "here = _os.path.dirname(_os.path.abspath(__file__))"


@dataclass(frozen=True)
class Layout:
    """A guide's project: its files (relative path: text), and how its program starts the bot."""

    sources: dict[str, str]
    program: str  # the path the guide's arena line names, relative to the project
    build: Callable[[Path, Path, Path], None]  # (project, looking bot, scratch) -> program


def _script(project: Path, looker: Path, _scratch: Path, program: str) -> None:
    path = project / program
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(looker.read_text(encoding="utf-8"), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _native(program: str) -> Callable[[Path, Path, Path], None]:
    return lambda project, looker, scratch: _script(project, looker, scratch, program)


def _node(project: Path, looker: Path, _scratch: Path) -> None:
    (project / "dist").mkdir()
    (project / "dist" / "myBot.js").write_text(
        "const { spawnSync } = require('child_process');\n"
        f"const done = spawnSync('python3', [{str(looker)!r}, ...process.argv.slice(2)],"
        " { stdio: 'inherit' });\n"
        "process.exit(done.status === null ? 1 : done.status);\n",
        encoding="utf-8",
    )


_JAVA = """package mybot;

public final class FirstBot {
    public static void main(String[] args) throws Exception {
        java.util.List<String> argv = new java.util.ArrayList<>();
        argv.add("python3");
        argv.add("%s");
        argv.addAll(java.util.Arrays.asList(args));
        Process process = new ProcessBuilder(argv).inheritIO().start();
        System.exit(process.waitFor());
    }
}
"""


def _java(project: Path, looker: Path, scratch: Path) -> None:
    source = project / "src" / "main" / "java" / "mybot" / "FirstBot.java"
    source.write_text(_JAVA % looker, encoding="utf-8")
    classes = scratch / "classes"
    classes.mkdir()
    subprocess.run(["javac", "-d", str(classes), str(source)], check=True, timeout=120)
    (project / "target").mkdir()
    jar = project / "target" / "mybot.jar"
    subprocess.run(
        ["jar", "--create", "--file", str(jar), "--main-class", "mybot.FirstBot",
         "-C", str(classes), "."],
        check=True, timeout=60,
    )  # fmt: skip


LAYOUTS = {
    "go": Layout({"go.mod": "module mybot\n", "main.go": "package main\n"}, "mybot",
                 _native("mybot")),
    "rust": Layout({"Cargo.toml": "[package]\nname = \"mybot\"\n", "src/main.rs": "fn main() {}\n"},
                   "target/debug/mybot", _native("target/debug/mybot")),
    "cpp": Layout({"CMakeLists.txt": "project(mybot)\n", "main.cpp": "int main() {}\n"},
                  "build/mybot", _native("build/mybot")),
    "java": Layout({"pom.xml": "<project/>\n", "src/main/java/mybot/FirstBot.java": ""},
                   "target/mybot.jar", _java),
    "typescript": Layout({"package.json": "{\"name\": \"mybot\"}\n", "tsconfig.json": "{}\n",
                          "src/myBot.ts": "export {};\n"}, "dist/myBot.js", _node),
}  # fmt: skip


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("language", sorted(LAYOUTS))
def test_each_guide_arena_line_gives_the_bot_no_view_of_runs_logs_or_home_dotfiles(
    tmp_path: Path, language: str
) -> None:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    layout = LAYOUTS[language]
    project = tmp_path / "mybot"
    for name, text in layout.sources.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    (project / "notes.txt").write_text("the bot's own file: it sees this")
    looker = project / "look" / "bot.py"  # what the jar and the .js start: in the project too
    looker.parent.mkdir()
    assert LOOK.count(_HERE) == 1
    looker.write_text(
        "#!/usr/bin/env python3\n"
        + LOOK.replace(_HERE, f"here = {str(project)!r}")
        + _example_bot(),
        encoding="utf-8",
    )
    layout.build(project, looker, tmp_path)
    assert (project / layout.program).is_file()
    own = _files(project)  # the project as the guide lays it out, before anything runs

    (project / ".netrc").write_text("machine example.org login organiser password hunter2\n")
    (project / ".config").mkdir()
    (project / ".config" / "token").write_text("organiser-token\n")
    older = project / "older" / "run"
    older.mkdir(parents=True)
    with sqlite3.connect(older / "arena.sqlite") as db:
        db.execute("CREATE TABLE runs (seed INTEGER)")
        db.execute("INSERT INTO runs VALUES (424242)")
    env = {
        "PATH": f"{ROOKERY.parent}:/usr/bin:/bin",
        "HOME": str(project),  # the organiser runs the guide's line in their home folder
        "LANG": "C.UTF-8",
    }
    command = _quick_start_command(DOCS / f"{language}.md")
    spec = next(word for word in command if word.startswith("mine="))
    assert layout.program in [os.path.normpath(w) for w in shlex.split(spec[5:])], command
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "sandbox: bubblewrap" in done.stdout + done.stderr

    (run_dir,) = {p.parent.resolve() for p in (project / "runs").glob("*/arena.sqlite")}
    looks = _looked((run_dir / "logs" / "mine.log").read_text(errors="replace"))
    assert looks, "the bot never looked"
    for readable in looks:
        assert "notes.txt" in readable and layout.program in readable  # the control: its own
        assert readable == own, f"{len(looks)} looks, one read {readable}, its own are {own}"
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        kinds = [row[0] for row in db.execute("SELECT kind FROM incidents")]
        recorded = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert kinds == [] and recorded == 4, (kinds, recorded)
    shutil.rmtree(project, ignore_errors=True)
