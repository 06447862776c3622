"""How a table's game ends for everyone: its result as the bots and the replay are told it, the
outcome the server and the arena read, and the end sent to each seat still there and to every
spectator."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from rookery.engine import Forfeit, ForfeitKind, GameResult, Termination
from rookery.v1 import bot_service_pb2, replay_pb2, results_pb2
from rookery.wire import convert
from rookery.wire.replay import ReplayBuilder

from ._seats import SeatState
from ._table_events import TableEvents
from ._table_presence import stop_grace
from ._table_values import TableOutcome
from ._table_views import Table
from ._watchers import Watcher

__all__ = ["result_message", "table_outcome", "tell_finished"]

_ConnectResponse = bot_service_pb2.ConnectResponse


def result_message(
    result: GameResult, forfeit: Forfeit | None, detail: str
) -> results_pb2.GameResult:
    """The game's ``GameResult``: ``forfeit`` (the late policy's) counts only for a forfeited
    game, and a forfeit the late policy did not record is seat -1's timeout."""
    if result.reason is not Termination.FORFEIT:
        forfeit = None
    elif forfeit is None:
        forfeit = Forfeit(-1, ForfeitKind.TIMEOUT, "forfeit")
    return convert.game_result_to_proto(result, forfeit=forfeit, detail=detail)


def table_outcome(
    table: Table,
    result: GameResult,
    result_proto: results_pb2.GameResult,
    detail: str,
    build_replay: Callable[[], replay_pb2.Replay],
    recorded: ReplayBuilder,
) -> TableOutcome:
    """The finished table's outcome, its duration counted from its start (0 if it never
    started: then no recorded replay either)."""
    started_at = table.started_at
    return TableOutcome(
        table_id=table.id,
        result=result,
        result_proto=result_proto,
        termination=result_proto.reason,
        forfeit_seat=result_proto.forfeit_seat,
        detail=detail,
        build_replay=build_replay,
        seat_stats=tuple(seat.stats() for seat in table.seats),
        duration_s=time.time() - started_at if started_at else 0.0,
        recorded=recorded if started_at else None,
    )


def tell_finished(
    table_id: str,
    seats: Sequence[SeatState],
    events: TableEvents,
    watchers: Iterable[Watcher],
    result_proto: results_pb2.GameResult,
) -> None:
    """Sends each seat still there its held events and ``TableFinished`` (grace periods stop),
    and ends every spectator's stream."""
    for seat in seats:
        stop_grace(seat)
        session = seat.session
        if seat.held and not seat.gone:
            events.release(seat)
        if session is not None and not seat.gone:
            finished = bot_service_pb2.TableFinished(
                table_id=table_id, result=result_proto, seat=seat.index
            )
            session.table_finished(table_id, _ConnectResponse(table_finished=finished))
    for watcher in list(watchers):
        watcher.put(None)
