"""What a table shows as protobuf messages: to its bots (TableJoined, the resume snapshot), to
spectators and to anybody (the summary, the public snapshot, the clock)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

from google.protobuf.timestamp_pb2 import Timestamp
from rookery.engine import Game, Ruleset
from rookery.v1 import bot_service_pb2, ruleset_pb2, spectator_service_pb2, table_pb2
from rookery.wire import convert

from ._bot_seeds import bot_seed
from ._seats import OpenRequest, SeatState
from ._table_events import TableEvents
from ._table_values import TableOutcome, TableSpec, TableStatus
from ._time_control import TimeControl

__all__ = [
    "Table",
    "clock_view",
    "joined_message",
    "public_snapshot",
    "seat_bot_seed",
    "seat_infos",
    "seat_snapshot",
    "summary",
]


class Table(Protocol):
    """What the views read of a table (``_table.Table`` is one)."""

    id: str
    spec: TableSpec
    seed: int
    ruleset: Ruleset
    ruleset_proto: ruleset_pb2.Ruleset
    time_control: TimeControl
    time_control_proto: table_pb2.TimeControl
    status: TableStatus
    outcome: TableOutcome | None
    game: Game
    created_at: float
    started_at: float
    events: TableEvents

    @property
    def seats(self) -> Sequence[SeatState]: ...

    @property
    def open_request(self) -> OpenRequest | None: ...

    @property
    def game_seq(self) -> int: ...


def seat_infos(table: Table) -> list[table_pb2.SeatInfo]:
    """Who sits where (versions once joined)."""
    return [
        table_pb2.SeatInfo(
            seat=seat.index,
            side=table.ruleset.side_of(seat.index),
            bot_name=seat.bot,
            bot_version=seat.version,
        )
        for seat in table.seats
    ]


def seat_bot_seed(table: Table, seat_index: int) -> int:
    """The seat's seed for its own randomness in this game (see ``_bot_seeds``)."""
    key = table.spec.bot_seed_key or b""
    return bot_seed(key, table.seed, table.spec.game_number, seat_index)


def joined_message(table: Table, seat_index: int) -> bot_service_pb2.TableJoined:
    """The TableJoined message of a seat."""
    return bot_service_pb2.TableJoined(
        table_id=table.id,
        seat=seat_index,
        ruleset=table.ruleset_proto,
        seats=seat_infos(table),
        time_control=table.time_control_proto,
        game_number=table.spec.game_number,
        bot_seed=seat_bot_seed(table, seat_index),
    )


def seat_snapshot(table: Table, seat_index: int, last_seq: int) -> bot_service_pb2.TableSnapshot:
    """A resuming seat's snapshot: its TableJoined, its observation, and (unless its session
    asked for no events) every event after ``last_seq``, flushed or not."""
    snapshot = bot_service_pb2.TableSnapshot(
        table=joined_message(table, seat_index),
        observation=convert.observation_to_proto(table.game.observation_for(seat_index)),
    )
    session = table.seats[seat_index].session
    if session is None or session.wants_events:  # observations_only: no events at all
        for event in table.game.events_since(max(0, last_seq)):
            snapshot.missed_events.add(
                table_id=table.id, event=table.events.proto(event, seat_index)
            )
    return snapshot


def summary(table: Table) -> table_pb2.TableSummary:
    """What anybody may know about the table."""
    created = Timestamp()
    created.FromNanoseconds(int(table.created_at * 1e9))
    message = table_pb2.TableSummary(
        table_id=table.id,
        ruleset=table.ruleset_proto,
        seats=seat_infos(table),
        status=table.status.value,
        hand_number=table.game.hand_number,
        scores=table.game.scores,
        time_control=table.time_control_proto,
        created_at=created,
        tournament_id=table.spec.tournament_id,
    )
    if table.outcome is not None:
        message.result.CopyFrom(table.outcome.result_proto)
    return message


def public_snapshot(table: Table) -> spectator_service_pb2.PublicSnapshot:
    """What a spectator sees when watching begins: the summary and the public observation."""
    return spectator_service_pb2.PublicSnapshot(
        table=summary(table),
        observation=convert.observation_to_proto(table.game.public_view()),
        last_seq=table.game_seq,
    )


def clock_view(table: Table) -> dict[str, object]:
    """The clock as a spectator may see it: the time per action, each seat's bank, and the open
    request's seat and milliseconds left of its budget (``to_act`` -1 and ``ms_left`` None while
    no request is open)."""
    request = table.open_request
    to_act, ms_left = -1, None
    if request is not None and request.is_open and request.sent_at:
        to_act = request.seat
        elapsed = int((time.monotonic() - request.sent_at) * 1000)
        ms_left = max(0, request.budget_ms - elapsed)
    return {
        "action_ms": table.time_control.action_ms,
        "bank_ms": [seat.bank_ms for seat in table.seats],
        "to_act": to_act,
        "ms_left": ms_left,
    }
