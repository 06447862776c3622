"""docs/league.md's recipe for a league on a cluster, run as printed: its ``ray start --head``
line and its ``rookery league serve --backend ray`` line (on a free port instead of 6379, the
cluster's other ports and folder of its own), then two versions qualify and play a rated pair on
Ray."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import ADMIN, MIX_COMMAND, REPO, LeagueProcess, mix_folder
from ray_cluster import MARKER, RAY, free_port, node_processes, ray_environment
from rookery.arena.league.ray import CACHE_ENV
from rookery.arena.league.submissions import pack_folder
from rookery.v1 import league_pb2


def recipe() -> tuple[str, str]:
    """The two command lines of docs/league.md's section 'A league on a cluster'."""
    text = (REPO / "docs" / "league.md").read_text()
    section = text.split("## A league on a cluster", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    assert len(lines) == 2, lines
    return lines[0], lines[1]


@pytest.fixture
def head_port() -> Iterator[tuple[int, Path]]:
    """The recipe's first line, as printed but for its port; the cluster's processes ended.
    Yields the port and the workers' cache of versions."""
    line, _ = recipe()
    port = free_port()
    words = shlex.split(line.replace("6379", str(port)))
    env = ray_environment()
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[:3] == ["ray", "start", "--head"], words
    scratch = Path(tempfile.mkdtemp(prefix="rk-ray-"))
    env[MARKER] = str(scratch)
    env[CACHE_ENV] = str(scratch / "cache")
    # Its other ports and its folder of its own, so that it meets no other cluster here.
    isolation = [f"--{name}={free_port()}" for name in (
        "ray-client-server-port", "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
        "runtime-env-agent-port", "metrics-export-port", "node-manager-port",
        "object-manager-port")]  # fmt: skip
    started = subprocess.run(
        [str(RAY), *words[1:], *isolation, "--include-dashboard=false",
         "--disable-usage-stats", f"--temp-dir={scratch}"],
        env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield port, scratch / "cache"
    finally:
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for pid in node_processes(str(scratch)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signum)
            deadline = time.monotonic() + 5
            while node_processes(str(scratch)) and time.monotonic() < deadline:
                time.sleep(0.2)
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.alone
@pytest.mark.timeout(400)
def test_the_documented_cluster_recipe_plays_a_rated_pair_on_ray(
    head_port: tuple[int, Path], league_process: LeagueProcess, tmp_path: Path
) -> None:
    port, cache = head_port
    _, line = recipe()
    words = shlex.split(line.replace("6379", str(port)))
    assert words[:3] == ["rookery", "league", "serve"], words
    league = league_process
    league.league_path = words[words.index("--league") + 1]
    league.args = [*words[3:], "--target", "100", "--max-hands", "3", "--min-pairs", "1"]
    league.env = ray_environment()
    league.start()
    tokens = {name: league.add_bot(name) for name in ("alice", "bob")}
    deadline = Timestamp()
    deadline.FromSeconds(int(time.time()) + 3600)
    league.call("CreateSeason", league_pb2.CreateSeasonRequest(name="s", deadline=deadline), ADMIN)
    for bot, strength in (("alice", 1.0), ("bob", 0.0)):
        folder = mix_folder(tmp_path / "sources", bot, strength)
        league.call(
            "SubmitVersion",
            league_pb2.SubmitVersionRequest(
                bot_name=bot, command=MIX_COMMAND, archive=pack_folder(folder)
            ),
            tokens[bot],
        )
    db = tmp_path / league.league_path

    def rated() -> int:
        with sqlite3.connect(db) as connection:
            row = connection.execute("SELECT COUNT(*) FROM pairs WHERE kind = 'rated'").fetchone()
        return int(row[0])

    limit = time.monotonic() + 240
    while rated() < 1:
        assert time.monotonic() < limit, (tmp_path / "server.log").read_text()[-3000:]
        time.sleep(0.3)
    # Played on the cluster's worker: both versions' files are in its cache, by identity.
    assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) == 2
