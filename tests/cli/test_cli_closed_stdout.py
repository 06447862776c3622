"""Every `rookery` command exits quietly when its stdout's reader has gone away.

The commands are enumerated from the argument parser, so a new command is covered without
editing this file: each runs as a real process whose stdout is a pipe closed before it starts
(`rookery rules | true`, deterministically), with real arguments where the table below has them
and ``--help`` otherwise. Quiet means: no traceback, nothing on stderr but the command's own
messages, and the exit code of a command the reader left (141) or the command's own.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rookery.cli.main import EXIT_READER_GONE, build_parser, main
from rookery.engine import PRESETS
from rookery.wire.replay import write_replay
from rookery.wire.selfplay import play_random_game

_SCRIPT = Path(sys.executable).with_name("rookery")
_TIMEOUT = 60


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every command path of the parser: each command, each sub-command, and the bare script."""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))


COMMANDS = sorted(set(commands(build_parser())))


@dataclass(frozen=True)
class Files:
    """What the real invocations read: a replay, a bot registry, an arena run directory."""

    root: Path
    replay: Path
    registry: Path
    run_dir: Path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    root = tmp_path_factory.mktemp("closed-stdout")
    replay = root / "game.jsonl.gz"
    write_replay(replay, play_random_game(PRESETS["standard"].replace(target=150), 4))
    registry = root / "bots.db"
    subprocess.run(
        [_SCRIPT, "bots", "add", "alpha", "--db", registry],
        capture_output=True,
        check=True,
        timeout=_TIMEOUT,
    )
    run_dir = root / "run"
    subprocess.run(
        [*_ARENA_RUN, "--out", run_dir], capture_output=True, check=True, timeout=_TIMEOUT
    )
    return Files(root, replay, registry, run_dir)


_ARENA_RUN = [
    str(_SCRIPT), "arena", "run", "--bot", "random", "--bot", "heuristic",
    "--games", "2", "--target", "50", "--concurrency", "1",
]  # fmt: skip

#: Real arguments for the commands that have them: (arguments, the exit code expected).
INVOCATIONS: dict[tuple[str, ...], Callable[[Files], tuple[list[str | Path], int]]] = {
    (): lambda f: ([], 2),  # the help on stdout (argparse ignores a failed write), exit 2
    ("rules",): lambda f: (["rules"], EXIT_READER_GONE),
    ("selfplay",): lambda f: (
        ["selfplay", "--games", "2", "--out", f.root / "selfplay"],
        EXIT_READER_GONE,
    ),
    ("replay",): lambda f: (["replay"], 2),  # the usage goes to stderr
    ("replay", "verify"): lambda f: (["replay", "verify", f.replay], EXIT_READER_GONE),
    ("replay", "show"): lambda f: (["replay", "show", f.replay], EXIT_READER_GONE),
    ("replay", "export"): lambda f: (["replay", "export", f.replay], EXIT_READER_GONE),
    ("replay", "analyze"): lambda f: (
        ["replay", "analyze", "--hand", "0", "--node-limit", "1000", f.replay],
        EXIT_READER_GONE,
    ),
    ("benchmark",): lambda f: (["benchmark", "heuristic", "--first", "2"], EXIT_READER_GONE),
    ("bots", "add"): lambda f: (["bots", "add", "beta", "--db", f.registry], EXIT_READER_GONE),
    ("bots", "list"): lambda f: (["bots", "list", "--db", f.registry], EXIT_READER_GONE),
    ("bots", "remove"): lambda f: (["bots", "remove", "alpha", "--db", f.registry], 0),
    ("arena", "run"): lambda f: ([*_ARENA_RUN[1:], "--out", f.root / "arena"], EXIT_READER_GONE),
    ("arena", "report"): lambda f: (["arena", "report", f.run_dir], EXIT_READER_GONE),
    ("demo",): lambda f: (["demo", "--games", "1", "--out", f.root / "demo"], EXIT_READER_GONE),
    ("play",): lambda f: (["play", "--no-browser"], EXIT_READER_GONE),
    # Writes only to stderr: with the server unreachable it says so and exits 4.
    ("bot", "run"): lambda f: (
        [
            "bot",
            "run",
            "rookery.client.bots:RandomBot",
            "--server",
            "127.0.0.1:9",
            "--connect-timeout",
            "0.5",
        ],
        4,
    ),
}


def _closed_pipe() -> int:
    """The write end of a pipe whose read end is already closed."""
    read, write = os.pipe()
    os.close(read)
    return write


def _run_closed(args: list[str | Path]) -> subprocess.CompletedProcess[str]:
    write = _closed_pipe()
    try:
        return subprocess.run(
            [str(_SCRIPT), *map(str, args)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=_TIMEOUT,
            check=False,
        )
    finally:
        os.close(write)


def _assert_quiet(process: subprocess.CompletedProcess[str], code: int) -> None:
    assert "Traceback" not in process.stderr, process.stderr
    assert "BrokenPipeError" not in process.stderr, process.stderr
    assert "Exception ignored" not in process.stderr, process.stderr
    assert process.returncode == code, process.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "rookery")
def test_every_command_exits_quietly_when_stdout_is_closed(
    files: Files, command: tuple[str, ...]
) -> None:
    if command == ("serve",):
        _serve_with_stdout_closed(files)
        return
    invocation = INVOCATIONS.get(command)
    args: list[str | Path]
    if invocation is None:  # a command without real arguments here: its help, on stdout
        args, code = [*command, "--help"], 0
    else:
        args, code = invocation(files)
    _assert_quiet(_run_closed(args), code)


def _serve_with_stdout_closed(files: Files) -> None:
    """`rookery serve` writes nothing on stdout: it serves, then stops on SIGTERM, quietly."""
    port_file = files.root / "port"
    write = _closed_pipe()
    try:
        process = subprocess.Popen(
            [str(_SCRIPT), "serve", "--address", "127.0.0.1:0", "--web-address", "127.0.0.1:0",
             "--port-file", str(port_file)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
    finally:
        os.close(write)
    try:
        deadline = time.monotonic() + _TIMEOUT
        while not port_file.exists():
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "rookery serve did not start"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    _assert_quiet(subprocess.CompletedProcess(process.args, process.returncode, "", err), 0)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "rookery")
def test_every_commands_help_exits_quietly_in_process_when_stdout_is_closed(
    command: tuple[str, ...],
) -> None:
    write = _closed_pipe()
    stdout = io.TextIOWrapper(io.FileIO(write, "w", closefd=True))
    err = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        try:
            code = main([*command, "--help"])
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        with contextlib.suppress(OSError):
            stdout.close()
    assert err.getvalue() == ""
    assert code in (0, EXIT_READER_GONE)


def test_a_broken_pipe_that_is_not_stdout_is_not_swallowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only stdout's reader leaving ends a command quietly: a bot's pipe breaking is an error."""

    def broken(args: argparse.Namespace) -> int:
        raise BrokenPipeError(32, "a bot's stdin")

    parser = build_parser()
    monkeypatch.setattr("rookery.cli.main.build_parser", lambda: parser)
    parser.set_defaults(func=broken)
    with pytest.raises(BrokenPipeError):
        main([])


def test_every_command_is_known_to_the_table_or_has_help() -> None:
    """The table names only commands that exist (a renamed command must not go unchecked)."""
    assert set(INVOCATIONS) <= set(COMMANDS) | {("serve",)}
    assert ("rules",) in COMMANDS and ("replay", "verify") in COMMANDS
