"""A Python bot's own program ends as the kit contract says (docs/dev/kit-contract.md).

The Python guide's bot ends its file with ``run_bot(Greedy)`` and the arena launches it as
``python my_bot.py``. When the server is not there it exited 1 with a traceback; the contract
says 4, with one line naming the address, as every kit's main does. Real processes: the guide's
bot copied verbatim, and a real ``rookery serve`` in token mode for the rejected token (3).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_readme_session import example_bot

_ROOKERY = Path(sys.executable).with_name("rookery")


def _bot_env(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env.update(variables)
    return env


def _run_guide_bot(
    root: Path, folder: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    (folder / "my_bot.py").write_text(example_bot(root / "docs" / "bots" / "python.md"))
    return subprocess.run(
        [sys.executable, "my_bot.py"], cwd=folder, env=env, capture_output=True, text=True,
        timeout=90, check=False,
    )  # fmt: skip


def _error_lines(stderr: str) -> list[str]:
    """stderr without the SDK's log lines (structlog's console lines carry a level)."""
    return [line for line in stderr.splitlines() if line.strip() and "[info" not in line]


@pytest.mark.timeout(120)
def test_the_guides_bot_exits_4_naming_the_address_when_no_server_listens(
    root: Path, tmp_path: Path
) -> None:
    with socket.socket() as probe:  # a port nobody listens on: bound here, never listened to
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
        done = _run_guide_bot(root, tmp_path, _bot_env(ROOKERY_SERVER=address))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = _error_lines(done.stderr)
    assert line.startswith("my_bot.py: cannot reach the Rookery server at " + address), line


def _serve(folder: Path, *flags: str) -> Iterator[str]:
    """A real ``rookery serve`` on a free loopback port: its address."""
    port_file = folder / "port"
    process = subprocess.Popen(
        [str(_ROOKERY), "serve", "--address", "127.0.0.1:0", "--web-address", "off",
         "--log-level", "warning", "--port-file", str(port_file), *flags],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert process.poll() is None, "rookery serve ended before it served"
            assert time.monotonic() < deadline, "rookery serve did not start within 60 s"
            time.sleep(0.05)
        yield f"127.0.0.1:{port_file.read_text().strip()}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def token_server(tmp_path: Path) -> Iterator[str]:
    """A ``rookery serve`` in token mode with one registered bot, Greedy: its address."""
    registry = tmp_path / "bots.sqlite"
    subprocess.run([str(_ROOKERY), "bots", "add", "Greedy", "--db", str(registry)],
                   capture_output=True, check=True, timeout=60)  # fmt: skip
    yield from _serve(tmp_path, "--db", str(registry))


@pytest.fixture
def open_server(tmp_path: Path) -> Iterator[str]:
    """A ``rookery serve`` in open mode: its address."""
    yield from _serve(tmp_path)


@pytest.mark.timeout(120)
def test_the_guides_bot_exits_3_when_the_server_rejects_its_token(
    root: Path, tmp_path: Path, token_server: str
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    env = _bot_env(ROOKERY_SERVER=token_server, ROOKERY_TOKEN="rk_not-a-token")
    done = _run_guide_bot(root, folder, env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = _error_lines(done.stderr)
    assert line.startswith("my_bot.py: token rejected for bot Greedy"), line


def test_the_guides_bot_exits_2_when_its_sessions_are_not_a_count(
    root: Path, tmp_path: Path
) -> None:
    done = _run_guide_bot(root, tmp_path, _bot_env(ROOKERY_SESSIONS="two"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = _error_lines(done.stderr)
    assert line == "my_bot.py: ROOKERY_SESSIONS must be a whole number, got 'two'", line


@pytest.mark.timeout(180)
def test_the_guides_bot_stopped_after_a_game_exits_0_with_the_summary_line(
    root: Path, tmp_path: Path, open_server: str
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "my_bot.py").write_text(example_bot(root / "docs" / "bots" / "python.md"))
    env = _bot_env(ROOKERY_SERVER=open_server, ROOKERY_SESSIONS="4")  # every seat of the table
    bot = subprocess.Popen(
        [sys.executable, "my_bot.py"], cwd=folder, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        table = subprocess.run(
            [str(_ROOKERY), "table", "create", "--seat", "Greedy", "--server", open_server,
             "--wait", "--timeout", "120"],
            capture_output=True, text=True, timeout=150, check=False,
        )  # fmt: skip
        assert table.returncode == 0, table.stdout + table.stderr
        bot.send_signal(signal.SIGTERM)
        _, stderr = bot.communicate(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, stderr
    (line,) = _error_lines(stderr)
    assert re.fullmatch(
        r"\[rookery\] done: games=1 actions=\d+ fallbacks=0 rejections=0 reconnects=0 resumes=0"
        r" batches_received=\d+ batches_sent=\d+",
        line,
    ), line
