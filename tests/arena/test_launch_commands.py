"""How a launched bot's command is resolved, and what a failed start counts as.

Each test runs ``rookery arena run`` as a user does: the venv's script by its path, with a PATH
that does not hold the venv (no activated venv), from a folder other than the config's.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from rookery.arena.config import load_config
from rookery.arena.launch._commands import CommandNotFoundError, check_program, resolve_argv

ROOT = Path(__file__).resolve().parents[2]
ROOKERY = Path(sys.executable).with_name("rookery")
#: A PATH as a fresh shell has it: the system's folders, not the venv's.
CLEAN_PATH = "/usr/local/bin:/usr/bin:/bin"

#: A bot file as a user writes one: run by ``python``, configured by the arena's environment.
BOT_FILE = """\
from rookery.client import run_bot
from rookery.client.bots import HeuristicBot

run_bot(HeuristicBot)
"""

#: Exits at start with a traceback followed by noise, until a file ``fixed`` lies beside it.
FAILING_BOT = """\
import pathlib, sys
if not (pathlib.Path(__file__).parent / "fixed").exists():
    print("Traceback (most recent call last):", file=sys.stderr)
    print("RuntimeError: boom: my bot failed to load its model", file=sys.stderr)
    for i in range(30):
        print(f"shutting down worker {i}", file=sys.stderr)
    sys.exit(1)
from rookery.client import run_bot
from rookery.client.bots import HeuristicBot
run_bot(HeuristicBot)
"""

_SHORT = "--games 2 --target 100 --concurrency 1 --no-report"


@pytest.fixture(autouse=True)
def _open_folder(tmp_path: Path) -> None:
    """The bots' folders are open to other users, as a checkout is: a sandboxed bot runs under
    a user id of its own (pytest makes its folders 0700)."""
    tmp_path.chmod(0o755)


def _arena(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROOKERY_", "VIRTUAL_ENV"))}
    env["PATH"] = CLEAN_PATH
    return subprocess.run(
        [str(ROOKERY), "arena", "run", *map(str, args), *_SHORT.split()],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )


def _incidents(run_dir: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        return [(r[0], r[1]) for r in db.execute("SELECT bot, kind FROM incidents ORDER BY id")]


def _write_config(folder: Path, bots: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['name = "launch"']
    for name, command in bots.items():
        lines += ["[[bots]]", f"name = {name!r}", f"command = {command!r}"]
    config = folder / "contest.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def test_python_and_rookery_are_the_arenas_own() -> None:
    assert resolve_argv(["python", "bot.py"]) == [sys.executable, "bot.py"]
    assert resolve_argv(["python3", "bot.py"]) == [sys.executable, "bot.py"]
    assert resolve_argv(["rookery", "bot", "run", "x:Y"]) == [
        sys.executable,
        "-m",
        "rookery.cli.main",
        "bot",
        "run",
        "x:Y",
    ]
    assert resolve_argv(["node", "bot.js"]) == ["node", "bot.js"]


@pytest.mark.parametrize("example", sorted((ROOT / "examples" / "tournaments").glob("*.toml")))
def test_every_shipped_example_config_starts_its_bots_without_a_venv_on_path(
    example: Path,
) -> None:
    config = load_config(example)
    assert tomllib.loads(example.read_text())
    for bot in config.bots:
        if not bot.remote:
            check_program(bot.name, resolve_argv(bot.argv), bot.workdir, CLEAN_PATH)


def test_a_missing_program_is_named_not_found() -> None:
    with pytest.raises(CommandNotFoundError, match="command not found: 'no-such-bot-program'"):
        check_program("x", ["no-such-bot-program"], None, CLEAN_PATH)


def test_a_config_of_rookery_bot_run_commands_plays_without_an_activated_venv(
    tmp_path: Path,
) -> None:
    command = "rookery bot run rookery.client.bots:HeuristicBot"
    config = _write_config(tmp_path / "contest", {"a": command, "b": command})
    done = _arena(tmp_path, config, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2/2 recorded" in done.stdout


def test_python_in_a_bot_command_is_the_arenas_interpreter(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text(BOT_FILE)
    done = _arena(tmp_path, "--bot", "mine=python my_bot.py", "--bot", "other=python3 my_bot.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2/2 recorded" in done.stdout


def test_relative_paths_resolve_against_the_config_files_folder(tmp_path: Path) -> None:
    contest = tmp_path / "contest"
    (contest / "bots").mkdir(parents=True)
    (contest / "bots" / "mine.py").write_text(BOT_FILE)
    config = _write_config(
        contest,
        {
            "mine": "python bots/mine.py",
            "sdk": "rookery bot run ./bots/mine.py:HeuristicBot",
        },
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _arena(elsewhere, config, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2/2 recorded" in done.stdout


def test_a_program_that_does_not_exist_is_not_found_once_and_never_restarted(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    done = _arena(
        tmp_path,
        "--bot",
        "nocmd=./nope/bot --fast",
        "--bot",
        "random",
        "--out",
        tmp_path / "run",
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 3, done.stdout + done.stderr
    assert "command not found: './nope/bot'" in done.stderr
    assert elapsed < 20, f"took {elapsed:.1f} s to report a missing program"
    assert [i for i in _incidents(tmp_path / "run") if i[0] == "nocmd"] == [("nocmd", "not_found")]


def test_a_failed_start_names_its_cause_promptly_and_is_no_crash_after_a_resume(
    tmp_path: Path,
) -> None:
    contest = tmp_path / "contest"
    contest.mkdir()
    (contest / "bot.py").write_text(FAILING_BOT)
    config = _write_config(
        contest,
        {
            "flaky": "python bot.py",
            "steady": "rookery bot run rookery.client.bots:HeuristicBot",
        },
    )
    run_dir = tmp_path / "run"
    started = time.monotonic()
    failed = _arena(tmp_path, config, "--out", run_dir)
    elapsed = time.monotonic() - started
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert "RuntimeError: boom: my bot failed to load its model" in failed.stderr
    assert elapsed < 30, f"took {elapsed:.1f} s to report a bot that exits at start"

    (contest / "fixed").write_text("")
    resumed = _arena(tmp_path, config, "--out", run_dir)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "2/2 recorded" in resumed.stdout
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        crashes = db.execute("SELECT COUNT(*) FROM incidents WHERE kind='crash'").fetchone()[0]
    assert crashes == 0, _incidents(run_dir)


def test_a_program_missing_at_exec_is_not_found_once_for_all_its_processes(
    tmp_path: Path,
) -> None:
    done = _arena(
        tmp_path,
        "--bot",
        "inner=sh -c 'exec no-such-bot-program-inside'",
        "--bot",
        "random",
        "--out",
        tmp_path / "run",
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "could not start its program" in done.stderr
    assert "no-such-bot-program-inside" in done.stderr
    assert [i for i in _incidents(tmp_path / "run") if i[0] == "inner"] == [("inner", "not_found")]
