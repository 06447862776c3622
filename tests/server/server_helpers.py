"""Helpers of the server suite: a raw protocol client over the generated stubs (no SDK)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TableSpec, TimeControl
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc

pb = bot_service_pb2
Policy = Callable[[pb.ActionRequest], actions_pb2.Action]


def simple_action(request: pb.ActionRequest) -> actions_pb2.Action:
    """A legal action from the request alone: open the bidding at the minimum, otherwise pass;
    the first suit; the first cards to bury; the first callable card; the first playable card."""
    legal = request.legal_actions
    action = actions_pb2.Action()
    if legal.phase == actions_pb2.PHASE_BIDDING:
        if legal.bids and (request.observation.high_bid == 0 or not legal.can_pass):
            action.bid.amount = legal.bids[0]
        else:
            getattr(action, "pass").SetInParent()
    elif legal.phase == actions_pb2.PHASE_NAME_TRUMP:
        action.name_trump.suit = legal.trump_suits[0]
    elif legal.phase == actions_pb2.PHASE_BURY:
        action.bury.cards.extend(legal.bury_candidates[: legal.bury_count])
    elif legal.phase == actions_pb2.PHASE_CALL:
        action.call_card.card.CopyFrom(legal.callable_cards[0])
    else:
        action.play_card.card.CopyFrom(legal.playable_cards[0])
    return action


def reply_to(request: pb.ActionRequest, action: actions_pb2.Action | None = None) -> Any:
    """The ConnectRequest answering ``request`` (with ``simple_action`` unless given)."""
    return pb.ConnectRequest(
        action_reply=pb.ActionReply(
            table_id=request.table_id,
            request_id=request.request_id,
            action=action if action is not None else simple_action(request),
        )
    )


@dataclass
class RawBot:
    """One bot session driven message by message over BotService.Connect."""

    target: str
    name: str
    token: str = ""
    max_tables: int = 1
    credentials: Any = None
    channel: Any = None
    call: Any = None
    welcome: Any = None
    received: list[Any] = field(default_factory=list)

    async def connect(self, hello: Any = None, *, expect_welcome: bool = True) -> Any:
        """Opens the stream and sends the Hello; returns the Welcome."""
        if self.credentials is not None:
            self.channel = grpc.aio.secure_channel(self.target, self.credentials)
        else:
            self.channel = grpc.aio.insecure_channel(self.target)
        stub = bot_service_pb2_grpc.BotServiceStub(self.channel)
        self.call = stub.Connect()
        if hello is None:
            hello = pb.Hello(
                name=self.name, version="1.0", token=self.token, max_tables=self.max_tables
            )
        await self.call.write(pb.ConnectRequest(hello=hello))
        if expect_welcome:
            message = await self.read()
            assert message.WhichOneof("message") == "welcome", message
            self.welcome = message.welcome
            return message.welcome
        return None

    async def send(self, request: Any) -> None:
        await self.call.write(request)

    async def read(self, wait_s: float = 10.0) -> Any:
        """The next message from the server (an AioRpcError when the stream ends with one)."""
        message = await asyncio.wait_for(self.call.read(), wait_s)
        if message is grpc.aio.EOF:
            raise EOFError("the stream ended")
        self.received.append(message)
        return message

    async def read_kind(self, kind: str, wait_s: float = 10.0) -> Any:
        """Reads until a message of ``kind`` (others are kept in ``received``)."""
        while True:
            message = await self.read(wait_s)
            if message.WhichOneof("message") == kind:
                return getattr(message, kind)

    async def status(self, wait_s: float = 10.0) -> grpc.StatusCode:
        """Reads until the stream ends; its status code."""
        try:
            while True:
                await self.read(wait_s)
        except grpc.aio.AioRpcError as error:
            return error.code()
        except EOFError:
            return await self.call.code()

    async def play(
        self, policy: Policy = simple_action, *, tables: int = 1, wait_s: float = 60.0
    ) -> list[Any]:
        """Answers every request with ``policy`` until ``tables`` TableFinished; returns them."""
        finished: list[Any] = []
        while len(finished) < tables:
            message = await self.read(wait_s)
            kind = message.WhichOneof("message")
            if kind == "action_request":
                await self.send(reply_to(message.action_request, policy(message.action_request)))
            elif kind == "table_finished":
                finished.append(message.table_finished)
        return finished

    def events(self, table_id: str | None = None) -> list[Any]:
        """Every event received (snapshots' missed events included), in order."""
        events = []
        for message in self.received:
            kind = message.WhichOneof("message")
            if kind == "event" and (table_id is None or message.event.table_id == table_id):
                events.append(message.event.event)
            elif kind == "table_snapshot" and (
                table_id is None or message.table_snapshot.table.table_id == table_id
            ):
                events.extend(e.event for e in message.table_snapshot.missed_events)
        return events

    async def close(self) -> None:
        if self.call is not None:
            self.call.cancel()
        if self.channel is not None:
            await self.channel.close()


async def seated(
    server: RookeryServer,
    make: Callable[..., RawBot],
    names: Sequence[str],
    *,
    preset: str = "standard",
    seed: int = 7,
    time_control: TimeControl | None = None,
) -> tuple[Any, list[RawBot]]:
    """Connects one raw bot per seat, creates the table and returns it with the bots by seat."""
    ruleset = Ruleset.preset(preset)
    players = [make(server.target, name) for name in names]
    for bot in players:
        await bot.connect()
    table = await server.create_table(
        TableSpec(ruleset, tuple(names), seed=seed, time_control=time_control)
    )
    by_seat: list[RawBot | None] = [None] * len(names)
    for bot in players:
        joined = await bot.read_kind("table_joined")
        by_seat[joined.seat] = bot
    assert all(b is not None for b in by_seat)
    return table, [b for b in by_seat if b is not None]


def names_for(players: int) -> tuple[str, ...]:
    """Distinct bot names, one per seat."""
    return tuple(f"bot{seat}" for seat in range(players))
