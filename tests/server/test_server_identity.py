"""A bot can refuse a server that is not the one it expects (`--expect-server NAME`).

On a shared machine another organiser's `rookery serve` may hold the default port; a bot started
with `--expect-server NAME` reads the server's name from the Welcome (`rookery serve --name`) and
exits 4 (the kit contract's "server unreachable") naming both, before any game. With the right
name it plays as before. Real processes: the server, the bot, an ArenaService table.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2

_SCRIPT = Path(sys.executable).with_name("rookery")
_BOT = """
from rookery.client import Bot


class First(Bot):
    def act(self, observation):
        return next(iter(observation.legal_actions()))
"""


def _serve(tmp_path: Path, *flags: str) -> Iterator[str]:
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [str(_SCRIPT), "serve", "--address", "127.0.0.1:0", "--web-address", "off",
         "--log-level", "warning", "--port-file", str(port_file), *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
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
def named(tmp_path: Path) -> Iterator[str]:
    """A `rookery serve --name alpha`: its address."""
    yield from _serve(tmp_path, "--name", "alpha")


@pytest.fixture
def unnamed(tmp_path: Path) -> Iterator[str]:
    """A `rookery serve` without a name: its address."""
    yield from _serve(tmp_path)


def _bot(
    tmp_path: Path, target: str, *flags: str, environment: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    (tmp_path / "first.py").write_text(_BOT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env.update(environment or {})
    return subprocess.Popen(
        [str(_SCRIPT), "bot", "run", str(tmp_path / "first.py") + ":First", "--server", target,
         "--log-level", "error", "--connect-timeout", "20", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )  # fmt: skip


def test_a_bot_leaves_a_server_of_another_name_with_exit_4(named: str, tmp_path: Path) -> None:
    bot = _bot(tmp_path, named, "--expect-server", "beta")
    _, err = bot.communicate(timeout=60)
    assert bot.returncode == 4, err
    assert err.splitlines() == [
        f"rookery bot run: cannot reach the Rookery server at {named}: the server there is named "
        "'alpha', not 'beta' (--expect-server): another server holds that address; connect to "
        "the right one with --server HOST:PORT"
    ]


def test_a_bot_leaves_an_unnamed_server(unnamed: str, tmp_path: Path) -> None:
    bot = _bot(tmp_path, unnamed, "--expect-server", "alpha")
    _, err = bot.communicate(timeout=60)
    assert bot.returncode == 4, err
    assert "the server there has no name, not 'alpha' (--expect-server)" in err


def test_a_bot_plays_on_the_server_it_expects(named: str, tmp_path: Path) -> None:
    # The variable works as the flag does.
    expect = {"ROOKERY_EXPECT_SERVER": "alpha"}
    bot = _bot(tmp_path, named, "--sessions", "4", "--games", "1", environment=expect)
    with grpc.insecure_channel(named) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        request = api.CreateTableRequest(
            preset="standard",
            seat_bots=["First"] * 4,
            time_control=table_pb2.TimeControl(action_ms=2000),
        )
        deadline = time.monotonic() + 30
        while True:  # the table waits for the bot's sessions (join timeout): create it at once
            try:
                stub.CreateTable(request, timeout=10)
                break
            except grpc.RpcError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
    _, err = bot.communicate(timeout=120)
    assert bot.returncode == 0, err
    assert "games=1" in err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_arena_server_is_named_after_its_tournament(tmp_path: Path) -> None:
    """`arena run --name club-night --listen …`: a remote bot expecting another server leaves
    with exit 4 naming 'club-night'; one expecting 'club-night' plays its game."""
    target = f"127.0.0.1:{_free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    arena = subprocess.Popen(
        [str(_SCRIPT), "arena", "run", "--name", "club-night", "--listen", target,
         "--bot", "mine=remote", "--bot", "random", "--games", "1", "--remote-wait", "60",
         "--out", str(tmp_path / "run"), "--no-report"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )  # fmt: skip
    bots: list[subprocess.Popen[str]] = []
    try:
        wrong = _bot(tmp_path, target, "--name", "mine", "--expect-server", "other")
        bots.append(wrong)
        _, err = wrong.communicate(timeout=60)
        assert wrong.returncode == 4, err
        assert "the server there is named 'club-night', not 'other'" in err
        right = _bot(tmp_path, target, "--name", "mine", "--sessions", "2",
                     "--expect-server", "club-night")  # fmt: skip
        bots.append(right)
        out, err = arena.communicate(timeout=180)
        assert arena.returncode == 0, out + err
        assert right.poll() is None, "the expected server's bot left it"
    finally:
        for process in (*bots, arena):
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)
