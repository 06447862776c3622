"""A sandboxed league's warm lanes: a version's processes are reused from pair to pair, and none
of them, nor any group of processes linked by the tables they shared, plays both games of a pair.

Three versions of a bot that names its process at every table it joins (``tests/arena/
lane_bot.py``) play rated pairs in the sandbox; from their runtime logs the test rebuilds which
process sat at which game (``<pair tag>-<0|1>``).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections import defaultdict
from pathlib import Path

import pytest
from rookery.arena.launch import probe
from rookery.arena.league import LeagueOptions, LeagueServer, VersionState
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl

WITNESS = Path(__file__).parents[1] / "arena" / "lane_bot.py"
COMMAND = "rookery bot run lane_bot.py:LaneWitness"
VERSIONS = 3
PAIRS = 6


def _groups(tables_of: dict[str, list[str]]) -> list[list[str]]:
    """The tables of each group of processes linked by a table they shared."""
    parent = {p: p for p in tables_of}

    def root(p: str) -> str:
        while parent[p] != p:
            p = parent[p]
        return p

    seated: dict[str, list[str]] = defaultdict(list)
    for process, tables in tables_of.items():
        for table in tables:
            seated[table].append(process)
    for processes in seated.values():
        for other in processes[1:]:
            parent[root(other)] = root(processes[0])
    groups: dict[str, list[str]] = defaultdict(list)
    for table, processes in seated.items():
        groups[root(processes[0])].append(table)
    return list(groups.values())


async def test_versions_reuse_their_lanes_and_never_see_both_games_of_a_pair(
    tmp_path: Path,
) -> None:
    if not probe().available:
        pytest.fail(f"the versions run in the sandbox: {probe().describe()}")
    options = LeagueOptions(
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        concurrency=4,
        min_pairs=1,
        bootstrap=0,
        time_control=TimeControl(action_ms=2000, grace_ms=5000),
        sandbox="on",
        local_root=tmp_path,
        open_mode=True,
        submissions_per_day=0,
    )
    config = ServerConfig(address="127.0.0.1:0", log_level="error")
    running = await LeagueServer.start(tmp_path / "league" / "league.sqlite", config, options)
    league = running.league
    try:
        league.create_season("lanes", time.time() + 3600)
        for i in range(VERSIONS):
            folder = tmp_path / "sources" / f"w{i}"
            folder.mkdir(parents=True)
            shutil.copy(WITNESS, folder / "lane_bot.py")
            (folder / "name.txt").write_text(f"w{i}\n")  # versions are unique by content
            await league.submit(f"w{i}", None, COMMAND, local_folder=str(folder))
        season = league.store.season().season_id
        deadline = time.monotonic() + 240
        # Enough rated pairs, and every version through its qualifying (under load a version
        # can still be qualifying when the others have played the rated pairs).
        while league.store.count_pairs(season, ("rated",)) < PAIRS or any(
            v.status == VersionState.QUALIFYING for v in league.store.versions()
        ):
            assert time.monotonic() < deadline, league.store.versions()
            await asyncio.sleep(0.1)
        versions = [v for v in league.store.versions() if not v.house]
    finally:
        await running.stop()
    assert all(v.status == VersionState.ACTIVE for v in versions), versions
    tables_of: dict[str, list[str]] = defaultdict(list)
    for version in versions:
        path = tmp_path / "league" / "logs" / f"{version.version_id}.log"
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("LANE "):
                _, process, table = line.split()
                if table not in tables_of[process]:  # its two seats: one sitting
                    tables_of[process].append(table)
    sittings = sum(len(tables) for tables in tables_of.values())
    # Each version's qualification pair and its rated pairs: two sittings a pair and version.
    assert sittings >= 2 * (VERSIONS + 2 * PAIRS // VERSIONS)
    # Reused: two lanes a version, one process each (none crashed), for every game it played.
    assert len(tables_of) == 2 * len(versions), sorted(tables_of)
    for process, tables in tables_of.items():
        lanes = {table.rsplit("-", 1)[1] for table in tables}
        assert len(lanes) == 1, (process, tables)  # the first games of pairs, or the second
        pairs = [table.rsplit("-", 1)[0] for table in tables]
        assert len(pairs) == len(set(pairs)), (process, tables)
    for tables in _groups(tables_of):
        pairs = [table.rsplit("-", 1)[0] for table in tables]
        assert len(pairs) == len(set(pairs)), tables
