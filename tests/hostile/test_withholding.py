"""Withheld replays stay withheld: after eviction from memory, and in the dashboard's cache.

A finished game's replay shows its deal; while another table plays the same seed (a duplicate
twin, another pairing of a round) it must not be served, by any path.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from pathlib import Path

import grpc
from hostile_support import SHORT, HonestTable
from rookery.server import RookeryServer, ServerConfig, TableSpec
from rookery.server.testing import RawBot, running_server
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc
from rookery.web import WebServer

QUIET = ServerConfig(log_level="warning")


async def play_on(server: RookeryServer, prefix: str, seed: int) -> str:
    table = HonestTable(server, prefix=prefix, seed=seed)
    await table.start()
    await table.finish()
    return table.table_id


async def get_replay(server: RookeryServer, table_id: str) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        try:
            await stub.GetReplay(arena_service_pb2.GetReplayRequest(table_id=table_id))
        except grpc.aio.AioRpcError as error:
            return error.code()
    return grpc.StatusCode.OK


async def test_an_evicted_replay_read_from_its_file_is_still_withheld(tmp_path: Path) -> None:
    config = QUIET.replace(replay_dir=str(tmp_path), finished_tables_kept=1)
    async with running_server(config) as server:
        first = await play_on(server, "a", seed=4242)
        # A twin on the same seed waits for its bots: A's deal is still to be played.
        twin = await server.create_table(TableSpec(SHORT, ("w0", "w1", "w2", "w3"), seed=4242))
        assert await get_replay(server, first) == grpc.StatusCode.FAILED_PRECONDITION
        # Anyone (open mode) can force the eviction: play one more table.
        await play_on(server, "b", seed=7)
        assert first not in server.tables and (tmp_path / f"{first}.jsonl.gz").is_file()
        code = await get_replay(server, first)
        print(f"GetReplay of the evicted table while its seed is in play: {code.name}")
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        twin.abort("test over")
        await twin.wait_finished()
        assert await get_replay(server, first) == grpc.StatusCode.OK


async def test_an_evicted_tournament_replay_is_withheld_while_the_tournament_runs(
    tmp_path: Path,
) -> None:
    config = QUIET.replace(replay_dir=str(tmp_path), finished_tables_kept=1)
    async with running_server(config) as server:
        server.withhold_replays("cup")
        names = ("c0", "c1", "c2", "c3")
        players = [RawBot(server.target, name) for name in names]
        for bot in players:
            await bot.connect()
        created = await server.create_table(TableSpec(SHORT, names, seed=99, tournament_id="cup"))
        await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
        await created.wait_finished()
        for bot in players:
            await bot.close()
        await play_on(server, "d", seed=8)  # evicts the tournament's table
        assert created.id not in server.tables
        assert await get_replay(server, created.id) == grpc.StatusCode.FAILED_PRECONDITION
        server.release_replays("cup")
        assert await get_replay(server, created.id) == grpc.StatusCode.OK


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def test_the_dashboards_replay_cache_obeys_the_same_seed_rule() -> None:
    async with running_server(QUIET) as server:
        web = WebServer("127.0.0.1:0", server=server)
        await web.start()
        try:
            first = await play_on(server, "a", seed=5151)
            url = f"{web.url}/api/replays/{first}"
            assert await asyncio.to_thread(http_status, url) == 200  # now cached
            twin = await server.create_table(TableSpec(SHORT, ("w0", "w1", "w2", "w3"), seed=5151))
            status = await asyncio.to_thread(http_status, url)
            print(f"/api/replays/A while table B plays A's seed: {status}")
            assert status == 409
            twin.abort("test over")
            await twin.wait_finished()
            assert await asyncio.to_thread(http_status, url) == 200
        finally:
            await web.stop()
