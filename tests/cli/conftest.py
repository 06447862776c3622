"""Fixtures for the CLI tests: the installed `rookery` script run as a real process."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rookery.cli.main import main
from rookery.engine import PRESETS

#: ``rookery(*args)`` runs the console script and returns the finished process.
Rookery = Callable[..., "subprocess.CompletedProcess[str]"]

_SCRIPT = Path(sys.executable).with_name("rookery")
_TIMEOUT = 60


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(_SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
        check=False,
    )


@pytest.fixture(scope="session")
def rookery() -> Rookery:
    """Run ``rookery ARGS...`` (the console script next to this Python) with a timeout."""
    assert _SCRIPT.exists(), f"no console script at {_SCRIPT}: run make setup"
    return _run


@pytest.fixture(scope="session")
def selfplay_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two self-play games of every preset (seed 11), played by concurrent `rookery` processes."""
    root = tmp_path_factory.mktemp("selfplay")
    processes = {
        name: subprocess.Popen(
            [
                str(_SCRIPT),
                "selfplay",
                "--preset",
                name,
                "--games",
                "2",
                "--seed",
                "11",
                "--out",
                str(root / name),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in PRESETS
    }
    for name, process in processes.items():
        out, err = process.communicate(timeout=_TIMEOUT)
        assert process.returncode == 0, f"selfplay {name} failed: {err}"
        assert f"2 games of {name}" in out
    return {name: root / name for name in PRESETS}


@dataclass(frozen=True)
class CliRun:
    """The exit code and output of one in-process ``rookery`` command."""

    returncode: int
    stdout: str
    stderr: str


#: ``cli(*args)`` runs ``rookery ARGS...`` in this process (``rookery.cli.main.main``).
Cli = Callable[..., CliRun]


def _run_in_process(*args: str | Path) -> CliRun:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as exit_:  # argparse's --help and usage errors
            code = exit_.code if isinstance(exit_.code, int) else 1
    return CliRun(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def cli() -> Cli:
    """Run a ``rookery`` command in-process: as the script does, without a process start."""
    return _run_in_process
