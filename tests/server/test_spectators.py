"""SpectatorService: public views only; hidden cards appear once their hand is scored."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import grpc
import pytest
from google.protobuf.message import Message
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TableSpec
from rookery.server.testing import RawBot, bot_names
from rookery.v1 import (
    cards_pb2,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)

Response = spectator_service_pb2.WatchTableResponse


def cards_in(message: Message) -> Iterator[tuple[int, int, int]]:
    """Every Card anywhere inside ``message``, as (suit, rank, rook)."""
    if isinstance(message, cards_pb2.Card):
        yield (message.suit, message.rank, message.rook)
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated:
            for item in value:
                yield from cards_in(item)
        else:
            yield from cards_in(value)


async def watch(server: RookeryServer, table_id: str, after_seq: int = 0) -> list[Response]:
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        call = stub.WatchTable(
            spectator_service_pb2.WatchTableRequest(table_id=table_id, after_seq=after_seq)
        )
        return [message async for message in call]


async def play_watched_game(
    server: RookeryServer, bots: Callable[..., RawBot], seed: int
) -> tuple[list[Response], object]:
    names = bot_names(4)
    table = await server.create_table(TableSpec(Ruleset.preset("standard"), names, seed=seed))
    watching = asyncio.ensure_future(watch(server, table.id))
    await asyncio.sleep(0.1)
    players = [bots(server.target, name) for name in names]
    for bot in players:
        await bot.connect()
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    messages = await asyncio.wait_for(watching, 10)
    return messages, await table.wait_finished()


async def test_a_spectator_sees_no_hidden_card_before_its_hand_is_scored(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    messages, _ = await play_watched_game(server, bots, seed=21)
    snapshot = messages[0].snapshot
    assert snapshot.observation.seat == -1
    assert list(cards_in(snapshot.observation)) == []
    public: set[tuple[int, int, int]] = set()
    for message in messages[1:]:
        event = message.event
        kind = event.WhichOneof("kind")
        if kind in ("hand_scored", "game_over"):
            public.clear()  # the hand is over: everything is revealed, the next deal is new
            continue
        if kind in ("card_played", "card_called"):
            public.update(cards_in(event))
        hidden = set(cards_in(event)) - public
        assert not hidden, f"event {event.seq} ({kind}) shows hidden cards {hidden}"


async def test_a_spectator_gets_every_event_in_order_and_the_stream_ends_with_the_game(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    messages, _ = await play_watched_game(server, bots, seed=22)
    first = messages[0].snapshot.last_seq + 1
    seqs = [m.event.seq for m in messages[1:]]
    assert seqs == list(range(first, first + len(seqs)))
    assert messages[-1].event.WhichOneof("kind") == "game_over"


async def test_hand_scored_reveals_the_whole_deal_to_spectators(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    messages, _ = await play_watched_game(server, bots, seed=23)
    scored = next(m.event.hand_scored for m in messages if m.event.HasField("hand_scored"))
    assert sum(len(hand.cards) for hand in scored.result.deal.hands) == 52
    assert len(scored.result.deal.nest) == 5


async def test_watching_after_a_sequence_number_sends_only_what_follows(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    names = bot_names(4)
    players = [bots(server.target, name) for name in names]
    for bot in players:
        await bot.connect()
    table = await server.create_table(TableSpec(Ruleset.preset("standard"), names, seed=3))
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    messages = await watch(server, table.id, after_seq=10)
    assert [m.event.seq for m in messages] == list(range(11, len(table.game.events) + 1))


async def test_watching_an_unknown_table_is_not_found(server: RookeryServer) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await watch(server, "t-missing")
    assert error.value.code() == grpc.StatusCode.NOT_FOUND


async def test_live_tables_are_listed_and_finished_ones_on_request(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    waiting = await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4)))
    finished = await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4)))
    finished.abort("test")
    await finished.wait_finished()
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        live = await stub.ListLiveTables(spectator_service_pb2.ListLiveTablesRequest())
        every = await stub.ListLiveTables(
            spectator_service_pb2.ListLiveTablesRequest(include_finished=True)
        )
    assert [t.table_id for t in live.tables] == [waiting.id]
    assert [t.table_id for t in every.tables] == [waiting.id, finished.id]
