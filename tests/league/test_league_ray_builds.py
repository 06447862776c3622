"""A league on Ray builds a version on a worker, once: the league's machine never runs the build
step (its copy of the version stays the submitted sources), the worker builds in its machine's
cache, where every pair of that version then plays, and the built folder comes back to the league
as an archive keyed by the version's identity (what other machines get). A version retired stops
its warm processes on the worker."""

from __future__ import annotations

import asyncio
import io
import os
import tarfile
import time
from pathlib import Path

import pytest
from league_helpers import MIX_COMMAND, mix_folder
from rookery.arena.launch import probe
from rookery.arena.league import LeagueOptions, LeagueServer, RayPairsOptions, VersionState
from rookery.arena.league.ray_files import CACHE_ENV
from rookery.arena.league.submissions import identity_sha256
from rookery.arena.run import LOOPBACK_ONLY
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl

#: The build step: one line more in ``built.txt`` each time it runs in a folder.
BUILD = "echo built >> built.txt"


def _processes_in(folder: Path) -> list[int]:
    """The processes started in ``folder`` or naming it (a sandboxed bot's guard mounts it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            named = str(folder).encode() in (entry / "cmdline").read_bytes()
            inside = Path(os.readlink(entry / "cwd")) == folder
        except OSError:
            continue
        if named or inside:
            found.append(int(entry.name))
    return found


@pytest.mark.alone
@pytest.mark.timeout(240)
async def test_a_version_builds_once_on_a_worker_and_a_retired_one_stops_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not probe().available:
        pytest.fail(f"a league's builds run in the sandbox: {probe().describe()}")
    monkeypatch.setenv(LOOPBACK_ONLY, os.environ.get(LOOPBACK_ONLY, "0"))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "worker-cache"))
    options = LeagueOptions(
        ruleset=Ruleset.preset("standard").replace(target=100, max_hands=3),
        concurrency=2,  # one pair at a time: one worker plays every pair
        min_pairs=1,
        bootstrap=10,
        sandbox="on",
        time_control=TimeControl(grace_ms=1000),
        join_timeout_s=90,
        open_mode=True,
        local_root=tmp_path,
        submissions_per_day=0,
    )
    config = ServerConfig(address="127.0.0.1:0", log_level="warning")
    running = await LeagueServer.start(
        tmp_path / "league" / "league.sqlite", config, options, ray=RayPairsOptions()
    )
    league = running.league
    try:
        league.create_season("spring", time.time() + 3600)
        built = await league.submit(
            "builder", None, MIX_COMMAND, build=BUILD,
            local_folder=str(mix_folder(tmp_path / "sources", "builder", 1.0)),
        )  # fmt: skip
        plain = await league.submit(
            "plain", None, MIX_COMMAND,
            local_folder=str(mix_folder(tmp_path / "sources", "plain", 0.0)),
        )  # fmt: skip
        deadline = time.monotonic() + 180
        while league.store.count_pairs(league.store.season().season_id, ("rated",)) < 2:
            version = league.store.version(built.version_id)
            assert version.status not in (
                VersionState.BUILD_FAILED,
                VersionState.QUALIFICATION_FAILED,
            ), f"{version.detail}\n{league.store.build_log(built.version_id)}"
            assert time.monotonic() < deadline, [
                (v.version_id, v.status, v.detail) for v in league.store.versions()
            ]
            await asyncio.sleep(0.2)
        assert running.remote is not None
        assert running.remote.workers == 1
        season = league.store.season().season_id
        played = [p for p in league.store.pairs(season) if built.version_id in (p.a, p.b)]
        assert len(played) >= 3, played  # its qualification and two rated pairs, on one worker

        # Retired, a version's warm processes on the worker stop.
        plain_files = (
            tmp_path
            / "worker-cache"
            / identity_sha256(plain.content_sha256, plain.command, plain.build)
        )
        assert _processes_in(plain_files), "no warm process of the version found on the worker"
        league.retire(plain.version_id, None)
        deadline = time.monotonic() + 30
        while _processes_in(plain_files):
            assert time.monotonic() < deadline, "a retired version's processes still run"
            await asyncio.sleep(0.2)
    finally:
        await running.stop()

    # The league's machine kept the submitted sources: the build never ran in its folder.
    league_copy = tmp_path / "league" / "versions" / built.version_id
    assert (league_copy / "mix_bot.py").exists()
    assert not (league_copy / "built.txt").exists(), "the build ran on the league's machine"
    # The worker built it once, in its machine's cache, where all its pairs played.
    identity = identity_sha256(built.content_sha256, built.command, built.build)
    assert (tmp_path / "worker-cache" / identity / "built.txt").read_text() == "built\n"
    # The built folder came back to the league, keyed by the version's identity.
    archive = tmp_path / "league" / "builds" / f"{identity}.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(archive.read_bytes())) as packed:
        member = packed.extractfile("./built.txt")
        assert member is not None and member.read() == b"built\n"
