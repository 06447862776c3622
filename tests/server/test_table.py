"""A table on its own, without a network: fake sessions answer through ``Table.submit``."""

from __future__ import annotations

import asyncio
from typing import Any

from rookery.engine import Ruleset
from rookery.server import SeatedTable, Table, TableSpec, TimeControl, bot_reply_from_proto
from rookery.server.testing import bot_names, simple_action
from rookery.v1 import bot_service_pb2, results_pb2

pb = bot_service_pb2


class FakeSession:
    """Stands in for a bot session: answers every request at once with ``simple_action``."""

    def __init__(self, name: str) -> None:
        self.bot = name
        self.version = "test"
        self.is_attached = True
        self.table: SeatedTable | None = None
        self.seat = -1
        self.wants_events = True
        self.defers_events = False
        self.groups_events = False
        self.wants_card_masks = True
        self.messages: list[pb.ConnectResponse] = []

    def join(self, table: SeatedTable, seat: int) -> None:
        self.table, self.seat = table, seat

    def leave(self, table_id: str) -> None:
        self.table = None

    def table_finished(self, table_id: str, message: pb.ConnectResponse) -> None:
        self.messages.append(message)

    def send_encoded(self, message: bytes) -> None:  # the table sends most messages encoded
        self.send(pb.ConnectResponse.FromString(message))

    def send(self, message: pb.ConnectResponse) -> None:
        self.messages.append(message)
        if message.WhichOneof("message") == "action_request":
            request = message.action_request
            reply = pb.ActionReply(
                table_id=request.table_id,
                request_id=request.request_id,
                action=simple_action(request),
            )
            assert self.table is not None
            asyncio.get_running_loop().call_soon(
                self.table.submit, self.seat, bot_reply_from_proto(reply)
            )


async def play(seed: int) -> tuple[Table, list[FakeSession]]:
    spec = TableSpec(Ruleset.preset("standard"), bot_names(4), seed=seed)
    table = Table("t-local", spec, seed, TimeControl())
    sessions = [FakeSession(name) for name in bot_names(4)]
    table.start()
    table.seat(sessions)
    await asyncio.wait_for(table.wait_finished(), 30)
    return table, sessions


async def test_a_table_plays_a_whole_game_without_a_network() -> None:
    table, sessions = await play(seed=31)
    assert table.outcome is not None
    assert table.outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
    for session in sessions:
        kinds = [message.WhichOneof("message") for message in session.messages]
        assert kinds[0] == "table_joined" and kinds[-1] == "table_finished"


async def test_the_same_seed_and_replies_give_the_same_game() -> None:
    first, _ = await play(seed=32)
    second, _ = await play(seed=32)
    assert first.outcome is not None and second.outcome is not None

    def actions(table: Table) -> list[Any]:
        assert table.outcome is not None
        return [a.action for hand in table.outcome.replay.hands for a in hand.actions]

    assert actions(first) == actions(second)
    assert first.outcome.result == second.outcome.result


class FailingSession(FakeSession):
    """A session whose channel breaks at the ``fail_at``-th request sent to any of them."""

    requests = 0
    fail_at = 10

    def send_encoded(self, message: bytes) -> None:
        if pb.ConnectResponse.FromString(message).WhichOneof("message") == "action_request":
            FailingSession.requests += 1
            if FailingSession.requests >= FailingSession.fail_at:
                raise RuntimeError("channel broke")
        super().send_encoded(message)


async def test_a_failure_between_moves_aborts_the_table_and_spares_the_caller() -> None:
    # The 10th request is opened by the 9th accepted reply (Table.submit sends the next request
    # at once): the error must fail the table, as if raised in its task, not the reply's caller.
    spec = TableSpec(Ruleset.preset("standard"), bot_names(4), seed=33)
    table = Table("t-fail", spec, 33, TimeControl())
    FailingSession.requests = 0
    sessions = [FailingSession(name) for name in bot_names(4)]
    loop = asyncio.get_running_loop()
    escaped: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: escaped.append(context))
    try:
        table.start()
        table.seat(sessions)
        await asyncio.wait_for(table.wait_finished(), 30)
    finally:
        loop.set_exception_handler(None)
    assert table.outcome is not None
    assert table.outcome.termination == results_pb2.TERMINATION_REASON_ABORTED
    assert table.outcome.detail == "internal server error"
    assert FailingSession.requests == 10
    assert escaped == []  # nothing raised out of submit
    for session in sessions:
        assert session.messages[-1].WhichOneof("message") == "table_finished"
