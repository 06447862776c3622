"""A person's `/play` session is seated at its page's table alone, and ends with its game.

The two routes ``POST /api/play``'s own checks cannot see, each against a real game server and
dashboard: (a) a table made through the ArenaService ``CreateTable`` naming the person's session
(its name is public in ``/api/tables``) while their game runs: when that game ended the server
seated the session there before the page heard of the end, and the server's clock played under
the person's name; (b) in token mode, a table already waiting for a registered bot's name took the
session its owner opened at ``/play`` under that name, and the owner's own table waited. The page's
session now presents a seat key the server binds to the page's table alone.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from hostile_support import QUIET
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec
from rookery.server.testing import RawBot, running_server
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc
from rookery.web import WebServer
from test_human_seat_hijack import call, play_person


async def _bots(
    server: RookeryServer, names: tuple[str, ...], tokens: dict[str, str]
) -> list[RawBot]:
    bots = [RawBot(server.target, name, token=tokens.get(name, "")) for name in names]
    for bot in bots:
        await bot.connect()
    return bots


async def _gone(server: RookeryServer, name: str) -> bool:
    """Whether every session of ``name`` has ended (waits up to 5 s)."""
    for _ in range(100):
        if name not in server.sessions:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_table_made_through_the_arena_service_never_takes_a_persons_session() -> None:
    async with (
        running_server(QUIET, stop_grace_s=0.1) as server,
        WebServer("127.0.0.1:0", server=server) as web,
    ):
        mine = await _bots(server, ("p1", "p2", "p3"), {})
        theirs = await _bots(server, ("s1", "s2", "s3"), {})
        playing = [asyncio.create_task(bot.play(wait_s=60.0)) for bot in mine]
        code, opened = await call(
            web.url + "/api/play",
            {"preset": "standard", "seat": 0, "bots": ["", "p1", "p2", "p3"], "target": 50},
        )
        assert code == 200, opened
        table_id = f"play-{opened['seat_id']}"
        person_plays = asyncio.create_task(
            play_person(f"{web.url}/api/play/{opened['seat_id']}", opened["secret"])
        )
        _, listed = await call(web.url + "/api/tables")
        person = next(t for t in listed["tables"] if t["table_id"] == table_id)["seats"][0]["bot"]
        # The stranger's table, through the ArenaService (open mode: no admin token needed).
        async with grpc.aio.insecure_channel(server.target) as channel:
            created = await arena_service_pb2_grpc.ArenaServiceStub(channel).CreateTable(
                arena_service_pb2.CreateTableRequest(
                    preset="standard", seat_bots=[person, "s1", "s2", "s3"]
                )
            )
        theirs_id = created.table.table_id
        await asyncio.wait_for(server.get_table(table_id).wait_finished(), 60)
        await asyncio.wait_for(asyncio.gather(person_plays, *playing), 60)
        ended = await _gone(server, person)
        await asyncio.sleep(0.3)  # time the old code needed to seat the freed session
        stranger = server.get_table(theirs_id)
        print(f"the stranger's table {theirs_id} after the person's game: {stranger.status.name}")
        for bot in mine + theirs:
            await bot.close()
        assert stranger.status.name == "WAITING", "the person's session was seated at it"
        assert ended, "the person's session outlived their game"


async def test_in_token_mode_a_waiting_table_cannot_take_the_session_its_owner_opens(
    tmp_path: Path,
) -> None:
    config = ServerConfig(log_level="warning", auth="token", db=str(tmp_path / "bots.db"))
    async with (
        running_server(config, stop_grace_s=0.1) as server,
        WebServer("127.0.0.1:0", server=server) as web,
    ):
        tokens = {name: server.bots.add(name)[1] for name in ("alice", "p1", "p2", "p3")}
        tokens |= {name: server.bots.add(name)[1] for name in ("s1", "s2", "s3")}
        theirs = await _bots(server, ("s1", "s2", "s3"), tokens)
        # A table already waiting for alice, a registered bot whose owner has no session open.
        waiting = await server.create_table(
            TableSpec(ruleset=Ruleset.preset("standard"), seat_bots=("alice", "s1", "s2", "s3"))
        )
        mine = await _bots(server, ("p1", "p2", "p3"), tokens)
        playing = [asyncio.create_task(bot.play(wait_s=60.0)) for bot in mine]
        # Alice opens her seat at /play under her own name, with her token.
        code, opened = await call(
            web.url + "/api/play",
            {
                "preset": "standard", "seat": 0, "bots": ["", "p1", "p2", "p3"], "target": 50,
                "name": "alice", "token": tokens["alice"],
            },
        )  # fmt: skip
        assert code == 200, opened
        table_id = f"play-{opened['seat_id']}"
        await asyncio.sleep(0.5)
        print(
            f"after alice opened her seat: the waiting table {waiting.status.name}, "
            f"her own table {server.get_table(table_id).status.name}"
        )
        taken = waiting.status.name != "WAITING"
        if not taken:  # her own game, played through her page's API
            await play_person(f"{web.url}/api/play/{opened['seat_id']}", opened["secret"])
            await asyncio.wait_for(asyncio.gather(*playing), 60)
            ended = await _gone(server, "alice")
            await asyncio.sleep(0.3)
        for bot in mine + theirs:
            await bot.close()
        assert not taken, "the waiting table took the session alice opened at /play"
        assert server.get_table(table_id).is_finished
        assert waiting.status.name == "WAITING", "alice's session was seated there after her game"
        assert ended, "alice's session outlived her game"


async def test_a_seat_key_binds_one_session_to_one_table_and_its_seat_to_that_session() -> None:
    """The server's side alone: a stranger's session under the person's name, connected first,
    does not take the keyed seat; the key admits one session; the keyed session ends with the
    table's game and is seated nowhere else."""
    async with running_server(QUIET, stop_grace_s=0.1) as server:
        key = server.issue_seat_key("human-ab12", "play-ab12")
        stranger = RawBot(server.target, "human-ab12")
        await stranger.connect()
        person = RawBot(server.target, "human-ab12", token=key)
        await person.connect()
        second = RawBot(server.target, "human-ab12", token=key)
        await second.connect(expect_welcome=False)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await second.read()
        print(f"a second Hello with the seat key: {refused.value.details()}")
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "has its one session already" in str(refused.value.details())
        others = await _bots(server, ("p1", "p2", "p3"), {})
        heard = asyncio.create_task(stranger.read(60.0))  # its first message
        short = Ruleset.preset("standard").replace(target=50)
        table = await server.create_table(
            TableSpec(
                ruleset=short,
                seat_bots=("human-ab12", "p1", "p2", "p3"),
                table_id="play-ab12",
                seat_keys=(key, "", "", ""),
            )
        )
        games = [asyncio.create_task(bot.play(wait_s=30.0)) for bot in [person, *others]]
        await asyncio.wait_for(table.wait_finished(), 60)
        await asyncio.wait_for(asyncio.gather(*games), 60)
        # The stranger (same name, no key) was never given the person's seat ...
        await asyncio.sleep(0.2)
        assert not heard.done(), heard.result()
        # ... a table naming the name now seats the stranger, never the person's ended session.
        later = await server.create_table(
            TableSpec(ruleset=short, seat_bots=("human-ab12", "p1", "p2", "p3"))
        )
        joined = await asyncio.wait_for(heard, 10)
        ids = [s.id for s in server.sessions.get("human-ab12", [])]
        print(f"sessions of the name after the game: {ids}; the later table: {later.status.name}")
        for bot in [stranger, person, second, *others]:
            await bot.close()
        assert person.welcome.session_id not in ids, "the keyed session outlived its game"
        assert stranger.welcome.session_id in ids
        assert joined.table_joined.table_id == later.id, joined
