"""The build environment of docs/league.md, in the sandbox: a Go program and a Node script built
from their submitted folders with the toolchains on ``PATH``, their caches and temporary files in
the version's own folder (the sandbox's 64 MiB ``/tmp`` stays free) and removed after the build,
no network."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rookery.arena.launch import probe
from rookery.arena.league import LeagueOptions, LeagueServer
from rookery.arena.league.submissions import BUILD_CACHE
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl

RANDOM = "rookery bot run rookery.client.bots.random_bot:RandomBot"
GO_MAIN = 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("built by go") }\n'


@pytest.fixture
async def league(tmp_path: Path) -> AsyncIterator[LeagueServer]:
    """A league in open mode, its builds in the sandbox."""
    if not probe().available:
        pytest.fail(f"builds run in the sandbox here: {probe().describe()}")
    options = LeagueOptions(
        ruleset=dataclasses.replace(Ruleset.preset("standard"), target=100, max_hands=1),
        sandbox="on",
        time_control=TimeControl(grace_ms=500),
        build_timeout_s=240,
        join_timeout_s=90,
        open_mode=True,
    )
    config = ServerConfig(address="127.0.0.1:0", log_level="warning")
    running = await LeagueServer.start(tmp_path / "league" / "league.sqlite", config, options)
    running.league.create_season("spring", time.time() + 3600)
    try:
        yield running
    finally:
        await running.stop()


async def _built(running: LeagueServer, version_id: str) -> str:
    """The version's build log once its build has ended (it qualifies afterwards)."""
    deadline = time.monotonic() + 300
    while running.league.store.version(version_id).status == "building":
        assert time.monotonic() < deadline, f"{version_id} still building"
        await asyncio.sleep(0.2)
    version = running.league.store.version(version_id)
    log = running.league.store.build_log(version_id)
    assert version.status != "build_failed", f"{version.detail}\n{log}"
    return log


async def test_a_go_program_builds_in_the_sandbox_with_its_caches_in_its_own_folder(
    league: LeagueServer, tmp_path: Path
) -> None:
    folder = tmp_path / "go-bot"
    folder.mkdir()
    (folder / "go.mod").write_text("module bot\n\ngo 1.22\n")
    (folder / "main.go").write_text(GO_MAIN)
    build = "go env GOCACHE GOTMPDIR GOFLAGS > goenv.txt && go build -o bot . && ./bot > out.txt"
    version = await league.league.submit(
        "gopher", None, RANDOM, archive=_archive(folder), build=build
    )
    log = await _built(league, version.version_id)
    stored = league.league.version_folder(version.version_id)
    assert (stored / "out.txt").read_text() == "built by go\n", log
    cache, tmp, flags = (stored / "goenv.txt").read_text().split()
    assert cache == str(stored / BUILD_CACHE / "go-build") and flags == "-mod=vendor"
    assert tmp == str(stored / BUILD_CACHE / "tmp")
    assert not (stored / BUILD_CACHE).exists(), "the caches are removed after the build"


async def test_a_node_script_builds_offline_in_the_sandbox(
    league: LeagueServer, tmp_path: Path
) -> None:
    folder = tmp_path / "node-bot"
    folder.mkdir()
    (folder / "make.js").write_text(
        "require('fs').writeFileSync('built.js', 'module.exports = ' + (6 * 7) + ';\\n');\n"
    )
    build = "node make.js && npm config get offline > npm.txt"
    version = await league.league.submit(
        "noder", None, RANDOM, archive=_archive(folder), build=build
    )
    log = await _built(league, version.version_id)
    stored = league.league.version_folder(version.version_id)
    assert (stored / "built.js").read_text() == "module.exports = 42;\n", log
    assert (stored / "npm.txt").read_text().strip() == "true"


def _archive(folder: Path) -> bytes:
    from rookery.arena.league.submissions import pack_folder

    return pack_folder(folder)


async def test_go_is_on_a_sandboxed_builds_path_with_its_cache_in_the_folder(
    league: LeagueServer, tmp_path: Path
) -> None:
    folder = tmp_path / "go-env"
    folder.mkdir()
    (folder / "README").write_text("go's environment in the sandbox\n")
    build = (
        "go version > version.txt && go env GOCACHE GOTMPDIR > goenv.txt && df -k /tmp > tmp.txt"
    )
    version = await league.league.submit(
        "gopher", None, RANDOM, archive=_archive(folder), build=build
    )
    log = await _built(league, version.version_id)
    stored = league.league.version_folder(version.version_id)
    assert (stored / "version.txt").read_text().startswith("go version go"), log
    cache, tmp = (stored / "goenv.txt").read_text().split()
    assert cache == str(stored / BUILD_CACHE / "go-build")
    assert tmp == str(stored / BUILD_CACHE / "tmp")
    assert int((stored / "tmp.txt").read_text().split()[-5]) <= 64 * 1024, "the small /tmp"
