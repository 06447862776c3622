"""Warm lanes: sandboxed processes reused across games, never across two deals of one seed.

A real sandboxed round-robin of three bots, duplicate, two rounds: every pairing of a round plays
the round's seed in both rotations, so each bot is dealt each seed four times. ``lane_bot.py``
names its process at every table it joins; from the run's logs and games the test rebuilds which
process sat at which game and requires that no process, and no set of processes linked by the
tables they shared, was dealt one seed twice, and that processes were reused.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import short_config
from rookery.arena.config import BotSpec
from rookery.arena.launch._lanes import WarmLanes
from rookery.arena.launch._launcher import BotLauncher, plan_launch
from rookery.arena.launch._sandbox import SandboxLimits, SandboxMode, SandboxRuntime, probe
from rookery.arena.records._storage import RunStore
from rookery.arena.run._runner import TournamentRunner
from rookery.server.testing import running_server

HERE = Path(__file__).parent
BOT = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run"
WITNESS = f"{BOT} {shlex.quote(str(HERE / 'lane_bot.py'))}:LaneWitness"

pytestmark = pytest.mark.skipif(
    not probe(cgroups=False).available, reason=probe(cgroups=False).describe()
)


def _sittings(run_dir: Path, names: list[str]) -> dict[str, list[str]]:
    """Process -> the table ids it joined, from the bots' logs."""
    tables: dict[str, list[str]] = defaultdict(list)
    for name in names:
        for line in (run_dir / "logs" / f"{name}.log").read_text().splitlines():
            if line.startswith("LANE "):
                _, process, table_id = line.split()
                if table_id not in tables[process]:  # two seats of one table: one sitting
                    tables[process].append(table_id)
    return tables


def test_no_process_nor_linked_processes_is_dealt_a_seed_twice(tmp_path: Path) -> None:
    names = ["a", "b", "c"]
    config = short_config(
        tuple(BotSpec(n, WITNESS) for n in names),
        games=4,
        duplicate=True,
        sandbox=SandboxMode.ON,
        concurrency=3,
    )
    runner = TournamentRunner(config, tmp_path / "run")
    result = asyncio.run(runner.run())
    assert result.recorded == 12  # 3 pairings x 2 rounds x 2 rotations
    with RunStore(tmp_path / "run") as store:
        games = store.games("test")
        incidents = store.incidents("test")
    assert incidents == []
    seed_of = {g.game_id: g.seed for g in games}
    assert len(set(seed_of.values())) == 2  # a seed a round, for every pairing
    sittings = _sittings(tmp_path / "run", names)
    game_of = {t: t.split("-")[1] for tables in sittings.values() for t in tables}
    assert set(game_of.values()) == set(seed_of)  # every game's seats were witnessed
    for process, tables in sittings.items():
        seeds = [seed_of[game_of[t]] for t in tables]
        assert len(seeds) == len(set(seeds)), f"process {process} was dealt a seed twice"
    # Processes that shared a table could talk: no such group was dealt a seed twice either.
    group = {p: p for p in sittings}

    def root(p: str) -> str:
        while group[p] != p:
            p = group[p]
        return p

    by_table: dict[str, list[str]] = defaultdict(list)
    for process, tables in sittings.items():
        for t in tables:
            by_table[t].append(process)
    for seated in by_table.values():
        for other in seated[1:]:
            group[root(other)] = root(seated[0])
    seeds_of_group: dict[str, list[int]] = defaultdict(list)
    for t, seated in by_table.items():
        seeds_of_group[root(seated[0])].append(seed_of[game_of[t]])
    for seeds in seeds_of_group.values():
        assert len(seeds) == len(set(seeds))
    # Reused: 24 sittings of a bot at a game, played by the 12 warm processes of six lanes.
    assert sum(len(t) for t in sittings.values()) == 24
    assert len(sittings) == 12
    assert all(len(t) == 2 for t in sittings.values())


async def test_a_lane_asked_for_a_seed_again_starts_afresh(tmp_path: Path) -> None:
    """The lanes' own guard, whatever the caller's lanes: a seed its processes were dealt
    already stops them all and starts new ones (new keys, new processes) before that game."""
    socket = tmp_path / "server.sock"
    runtime = SandboxRuntime(probe(), SandboxLimits(), socket)
    spec = BotSpec("w", WITNESS)
    plan = plan_launch(spec, 1, 2, 1)
    launched: list[BotLauncher] = []
    try:
        async with running_server(log_level="warning", unix_socket=str(socket)) as server:

            def make(name: str, lane: int) -> tuple[BotLauncher, str]:
                key = server.issue_launch_key(name, 2 * plan.sessions)
                launcher = BotLauncher(
                    spec, plan, server.target, key, tmp_path / "w.log",
                    lambda *_: None, runtime=runtime, label=f"lane {lane}",
                )  # fmt: skip
                launched.append(launcher)
                return launcher, key

            def sessions(name: str, key: str) -> int:
                return sum(1 for s in server.sessions.get(name, ()) if s.launch_key == key)

            lanes = WarmLanes(
                make,
                sessions,
                connect_timeout_s=60,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )
            first = await lanes.enter(0, 7, {"w": 2})
            lanes.leave(0, ["w"])
            again = await lanes.enter(0, 8, {"w": 2})  # another seed: the same processes
            lanes.leave(0, ["w"])
            assert again == first and len(launched) == 1
            assert lanes.seeds_played(0) == {7, 8}
            renewed = await lanes.enter(0, 7, {"w": 2})  # seed 7 again: new processes
            lanes.leave(0, ["w"])
            assert renewed != first and len(launched) == 2
            assert launched[0].running == 0 and launched[1].running == 1
            assert lanes.seeds_played(0) == {7}
            assert not server.roster.is_launch_key("w", first["w"])  # the old key ended
            await lanes.retire(0)  # its last game played: its processes stop, its seeds stay
            assert launched[1].running == 0 and lanes.processes == 0
            assert lanes.seeds_played(0) == {7}
            await lanes.stop()
    finally:
        runtime.close()
