"""How a table records its game: the replay's header, every move and its end (the table's replay
hooks; the recording itself is ``rookery.wire.replay.ReplayBuilder``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp
from rookery.engine import Forfeit, SeatAssignment
from rookery.v1 import actions_pb2, replay_pb2, results_pb2
from rookery.wire.replay import ActionOutcome, ReplayBuilder

from ._seats import OpenRequest
from ._table_views import Table, seat_infos

__all__ = [
    "REJECTIONS_RECORDED_PER_REQUEST",
    "finish_replay",
    "record_rejection",
    "recordable",
    "start_replay",
]

REJECTIONS_RECORDED_PER_REQUEST = 8
"""Rejected replies kept in the replay per request (the rest are only counted in the stats)."""

_RECORDED_CARDS = 64


def recordable(action: actions_pb2.Action) -> actions_pb2.Action:
    """A rejected action as the replay keeps it: no unknown fields, at most 64 bury cards."""
    kept = actions_pb2.Action()
    kept.CopyFrom(action)
    kept.DiscardUnknownFields()
    if kept.WhichOneof("kind") == "bury" and len(kept.bury.cards) > _RECORDED_CARDS:
        del kept.bury.cards[_RECORDED_CARDS:]
    return kept


def record_rejection(
    builder: ReplayBuilder,
    request: OpenRequest | None,
    seat_index: int,
    sent: actions_pb2.Action,
    message: str,
) -> None:
    """Records a rejected reply to ``request``, at most ``REJECTIONS_RECORDED_PER_REQUEST`` a
    request: a bot must not grow the replay at will (unknown fields, huge burys, floods)."""
    if request is not None and request.recorded < REJECTIONS_RECORDED_PER_REQUEST:
        request.recorded += 1
        builder.record_action(
            seat_index, recordable(sent), 0, ActionOutcome.REJECTED, rejection_reason=message
        )


def _replay_with_result(
    builder: ReplayBuilder, result: results_pb2.GameResult
) -> replay_pb2.Replay:
    """The finished builder's replay, with the result the table sent its bots."""
    replay = builder.replay()
    replay.result.CopyFrom(result)
    return replay


def start_replay(table: Table, builder: ReplayBuilder, server_version: str) -> None:
    """Starts recording the table's game as its seats are filled."""
    builder.start(
        table.ruleset,
        table.seed,
        seats=[
            SeatAssignment(seat.index, table.ruleset.side_of(seat.index), seat.bot, seat.version)
            for seat in table.seats
        ],
        start_time=datetime.fromtimestamp(table.started_at, UTC),
        server_version=server_version,
        table_id=table.id,
        tournament_id=table.spec.tournament_id,
        time_control=table.time_control_proto,
        game=table.game,  # followed: each action is applied once, by the table
    )


def finish_replay(
    table: Table,
    builder: ReplayBuilder,
    server_version: str,
    forfeit: Forfeit | None,
    result: results_pb2.GameResult,
) -> Callable[[], replay_pb2.Replay]:
    """Ends the recording; what makes the complete replay. A table aborted before it started
    has no hands (no deal shown)."""
    if table.started_at == 0.0:
        aborted = _unstarted_replay(table, server_version, result)
        return lambda: aborted
    builder.finish(forfeit=forfeit, detail=result.detail)  # the game is over
    return lambda: _replay_with_result(builder, result)


def _unstarted_replay(
    table: Table, server_version: str, result: results_pb2.GameResult
) -> replay_pb2.Replay:
    """The replay of a table aborted before it started: its header and result."""
    created = Timestamp()
    created.FromNanoseconds(int(table.created_at * 1e9))
    return replay_pb2.Replay(
        header=replay_pb2.ReplayHeader(
            ruleset=table.ruleset_proto,
            seed=table.seed,
            seats=seat_infos(table),
            start_time=created,
            server_version=server_version,
            table_id=table.id,
            tournament_id=table.spec.tournament_id,
            time_control=table.time_control_proto,
        ),
        result=result,
    )
