"""Anyone, with no token, asks the league's server for the replay of every finished league game
the moment it ends (``ListTables``, then ``GetReplay``), to read a duplicate pair's deal before
the pair is committed. The rule is the web's (409 until then): ``GetReplay`` answers
FAILED_PRECONDITION until the pair is committed, and serves it after.

The league's disk is made slow (each pair's commit waits a second) so that the window between a
pair's last game ending and its commit is wide open, on every pair, on every run.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import grpc
from league_support import bot_folder, league_under_attack
from rookery.arena.league.store import PairRecord
from rookery.v1 import arena_service_pb2, league_pb2, table_pb2


async def test_get_replay_refuses_a_league_game_until_its_pair_is_committed(
    tmp_path: Path,
) -> None:
    async with league_under_attack(tmp_path) as league:
        store = league.running.league.store
        record_pair = store.record_pair

        def slow_commit(pair: PairRecord) -> int:
            time.sleep(1.0)
            return record_pair(pair)

        store.record_pair = slow_commit  # type: ignore[method-assign]
        served_early: set[str] = set()
        served_after: set[str] = set()
        refused: set[str] = set()
        done = asyncio.Event()

        async def attacker() -> None:
            finished = table_pb2.TABLE_STATUS_FINISHED
            while not done.is_set():
                tables: Any = await league.call(
                    "ListTables", arena_service_pb2.ListTablesRequest(status=finished)
                )
                for table in tables.tables:
                    if not table.table_id.startswith("league-") or table.table_id in served_after:
                        continue
                    committed = store.game(table.table_id) is not None
                    try:
                        await league.call(
                            "GetReplay", arena_service_pb2.GetReplayRequest(table_id=table.table_id)
                        )
                    except grpc.aio.AioRpcError as error:
                        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                        refused.add(table.table_id)
                        continue
                    if committed:
                        served_after.add(table.table_id)
                    elif store.game(table.table_id) is None:  # still not committed
                        served_early.add(table.table_id)
                await asyncio.sleep(0.05)

        attack = asyncio.create_task(attacker())
        try:
            for author in ("alice", "bob"):
                await league.submit(author, bot_folder(tmp_path, author))
            for version in ("alice@1", "bob@1"):
                settled = await league.settled(version, timeout_s=90)
                assert settled.status == league_pb2.VERSION_STATUS_ACTIVE, settled.detail
            deadline = time.monotonic() + 90
            while store.count_pairs(1) < 4 or len(served_after) < 8:
                assert time.monotonic() < deadline, (store.count_pairs(1), served_after)
                await asyncio.sleep(0.1)
        finally:
            done.set()
            await attack
        assert not served_early, f"served before their pair was committed: {sorted(served_early)}"
        assert len(refused) >= 8, "the attacker asked while each pair waited for its commit"
