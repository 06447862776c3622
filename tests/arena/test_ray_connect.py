"""Joining a Ray cluster: the documented two-step recipe works, and a silent address fails fast.

These run ``rookery arena run --backend ray`` as a subprocess, as a user would. The cluster of
the recipe is a real ``ray start --head`` on this machine's loopback, in a scratch directory; the
test ends exactly the processes it started (found by that directory).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rookery.arena.records import GameRow, RunStore
from rookery.arena.run import LOOPBACK_ONLY

RAY = Path(sys.executable).parent / "ray"
RANDOM = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run rookery.client.bots:RandomBot"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def arena_command(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "rookery.cli.main", "arena", "run",
        "--bot", "random", "--bot", f"random2={RANDOM}", "--bot", "heuristic",
        "--games", "2", "--target", "100", "--concurrency", "2", "--seed", "3",
        "--no-report", "--out", str(out), *extra,
    ]  # fmt: skip


def without_ray_variables() -> dict[str, str]:
    """This process's environment without the variables the arena must not need."""
    return {k: v for k, v in os.environ.items() if k not in (LOOPBACK_ONLY, "RAY_AUTH_MODE")}


#: Set in the environment of ``ray start``: every process of that cluster inherits it.
MARKER = "ROOKERY_TEST_RAY_HEAD"


def own_processes(marker: str) -> list[int]:
    """Processes of the cluster started with ``MARKER=marker`` (Ray renames its processes)."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def ray_head() -> Iterator[str]:
    """Step one of the recipe: ``ray start --head`` on loopback. Yields its GCS address."""
    # Ray's socket paths under its temp dir must fit AF_UNIX's 107 bytes: a short folder of its
    # own, not the (worker-nested) pytest tmp_path.
    scratch = Path(tempfile.mkdtemp(prefix="rk-ray-"))
    port = free_port()
    env = without_ray_variables() | {LOOPBACK_ONLY: "0", MARKER: str(scratch)}
    # Every port of its own, so that the cluster meets no other one on this machine.
    ports = [f"--{name}={free_port()}" for name in (
        "ray-client-server-port", "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
        "runtime-env-agent-port", "metrics-export-port", "node-manager-port",
        "object-manager-port")]  # fmt: skip
    started = subprocess.run(
        [str(RAY), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", *ports,
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
         f"--temp-dir={scratch}"],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield f"127.0.0.1:{port}"
    finally:
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for pid in own_processes(str(scratch)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signum)
            deadline = time.monotonic() + 5
            while own_processes(str(scratch)) and time.monotonic() < deadline:
                time.sleep(0.2)
        shutil.rmtree(scratch, ignore_errors=True)


def rows(run: Path) -> list[GameRow]:
    with RunStore(run) as store:
        return sorted(store.games("arena"), key=lambda r: r.index)


def test_the_two_step_recipe_plays_the_same_games_as_the_local_backend(
    tmp_path: Path, ray_head: str, replay_content: Callable[[Path], bytes]
) -> None:
    env = without_ray_variables()
    on_ray = subprocess.run(
        arena_command(tmp_path / "ray", "--backend", "ray", "--ray-address", ray_head,
                      "--ray-cpus-per-task", "2"),
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    local = subprocess.run(arena_command(tmp_path / "local"), capture_output=True, text=True,
                           timeout=300)  # fmt: skip
    assert local.returncode == 0, local.stdout + local.stderr
    ray_rows, local_rows = rows(tmp_path / "ray"), rows(tmp_path / "local")
    assert len(ray_rows) == len(local_rows) == 6
    for there, here in zip(ray_rows, local_rows, strict=True):
        assert (there.seed, there.seat_bots, there.winners, there.scores, there.hands_played) == (
            here.seed, here.seat_bots, here.winners, here.scores, here.hands_played
        )  # fmt: skip
        assert replay_content(tmp_path / "ray" / there.replay_path) == replay_content(
            tmp_path / "local" / here.replay_path
        )


def test_an_address_where_nothing_answers_fails_with_a_clear_message(tmp_path: Path) -> None:
    started = time.monotonic()
    failed = subprocess.run(
        arena_command(tmp_path / "run", "--backend", "ray", "--ray-address",
                      f"127.0.0.1:{free_port()}", "--ray-connect-timeout", "5"),
        env=without_ray_variables(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert failed.returncode != 0
    assert "did not answer within 5 s" in failed.stderr or "cannot reach 127.0.0.1" in failed.stderr
    assert "ray start --head" in failed.stderr or "Failed to connect" in failed.stderr
    assert time.monotonic() - started < 90


def test_sigterm_while_connecting_stops_the_run(tmp_path: Path) -> None:
    process = subprocess.Popen(
        arena_command(tmp_path / "run", "--backend", "ray", "--ray-address",
                      f"127.0.0.1:{free_port()}", "--ray-connect-timeout", "600"),
        env=without_ray_variables(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(15)  # importing Ray and starting to connect
    assert process.poll() is None, "the run ended before it was signalled"
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert time.monotonic() - signalled < 30
    assert process.returncode != 0
    assert "stopped while connecting" in stderr
