"""A session's tables: each table's bot made when the table is joined, and every event, result
and resume snapshot handed to it."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence

from rookery.v1 import bot_service_pb2 as pb
from rookery.v1.events_pb2 import Event
from rookery.wire import convert
from rookery.wire.errors import WireError
from rookery.wire.fastpath import table_id_field
from structlog.typing import FilteringBoundLogger

from ._bot import Bot
from ._errors import ClientError
from ._table_play import TablePlay, bind_table, hooks_of, table_from_proto, unbind_table

__all__ = ["TableMessages"]


class TableMessages:
    """The tables of one session (``tables``, by id; the session shares the dict), each with a
    bot from ``factory``; ``on_game_finished`` is told each table whose game ended."""

    def __init__(
        self,
        tables: dict[str, TablePlay],
        factory: Callable[[], Bot],
        on_game_finished: Callable[[str], None],
        log: FilteringBoundLogger,
    ) -> None:
        self._tables = tables
        self._factory = factory
        self._on_game_finished = on_game_finished
        self._log = log

    async def on_joined(self, joined: pb.TableJoined) -> TablePlay | None:
        try:
            table = table_from_proto(joined)
        except WireError:
            self._log.exception("unreadable table; the server's clock will play for this seat")
            return None
        table_log = self._log.bind(table_id=table.table_id, seat=table.seat)
        try:
            bot = self._factory()
            if not isinstance(bot, Bot):
                raise ClientError(f"the bot factory returned {bot!r}, not a rookery.client.Bot")
        except Exception:
            table_log.exception("no bot for this table; the server's clock will play for it")
            return None
        bot.table = table
        state = TablePlay(
            table=table,
            bot=bot,
            hooks=hooks_of(bot),
            wants_events=type(bot).on_event is not Bot.on_event,
            log=table_log,
            table_field=table_id_field(table.table_id),
            bank_ms=table.bank_ms if bot.uses_bank else -1,
        )
        self._tables[table.table_id] = state
        table_log.info("joined table", ruleset=table.ruleset.name, game_number=table.game_number)
        await self._call_hook(state, "on_table_joined", bot.on_table_joined, table)
        return state

    async def _on_event(self, message: pb.TableEvent) -> None:
        pending = self.event(message)
        if pending is not None:
            await pending

    def events(self, message: pb.TableEvents) -> Awaitable[None] | None:
        """Hands each event of a TableEvents to its table's bot, in order; when an async
        ``on_event`` returns an awaitable, what is left to do (the rest after awaiting it)."""
        state = self._tables.get(message.table_id)
        if state is None:
            return None
        events = message.events
        for index, event in enumerate(events):
            # _table_event written out: several events a move, each a call less.
            seq = event.seq
            if seq <= state.last_seq:
                continue
            state.last_seq = seq
            if not state.wants_events:
                continue
            try:
                result = state.bot.on_event(event)
            except Exception:
                state.log.exception("on_event raised", seq=seq)
                continue
            if result is not None:
                pending = self._finish_event(state, seq, result)
                return self._finish_events(state, pending, events[index + 1 :])
        return None

    async def _finish_events(
        self, state: TablePlay, pending: Awaitable[None], rest: Sequence[Event]
    ) -> None:
        await pending
        for event in rest:
            more = self._table_event(state, event)
            if more is not None:
                await more

    def event(self, message: pb.TableEvent) -> Awaitable[None] | None:
        """Hands a TableEvent to its table's bot; an async ``on_event``'s awaitable, to await.

        The hot path: events outnumber requests several times, so no coroutine and no context
        binding here.
        """
        state = self._tables.get(message.table_id)
        if state is None:
            return None
        return self._table_event(state, message.event)

    def _table_event(self, state: TablePlay, event: Event) -> Awaitable[None] | None:
        """Hands one event of its table to the table's bot (an event seen already is skipped)."""
        seq = event.seq
        if seq <= state.last_seq:
            return None
        state.last_seq = seq
        if state.wants_events:
            try:
                result = state.bot.on_event(event)
            except Exception:
                state.log.exception("on_event raised", seq=seq)
                return None
            if result is not None:
                return self._finish_event(state, seq, result)
        return None

    @staticmethod
    async def _finish_event(state: TablePlay, seq: int, result: Awaitable[None]) -> None:
        try:
            await result
        except Exception:
            state.log.exception("on_event raised", seq=seq)

    async def on_finished(self, finished: pb.TableFinished) -> None:
        state = self._tables.pop(finished.table_id, None)
        if state is None:
            return
        try:
            result = convert.game_result_from_proto(finished.result)
        except WireError:
            state.log.exception("unreadable game result")
        else:
            state.log.info(
                "table finished", winners=list(result.winners), scores=list(result.scores)
            )
            await self._call_hook(state, "on_table_finished", state.bot.on_table_finished, result)
        self._on_game_finished(finished.table_id)

    async def on_snapshot(self, snapshot: pb.TableSnapshot) -> None:
        table_id = snapshot.table.table_id
        state = self._tables.get(table_id)
        if state is None:
            state = await self.on_joined(snapshot.table)
            if state is None:
                return
        state.log.info(
            "table resumed", missed_events=len(snapshot.missed_events), cursor=state.last_seq
        )
        for missed in snapshot.missed_events:
            await self._on_event(missed)

    async def _call_hook(
        self, state: TablePlay, name: str, hook: Callable[..., object], *args: object
    ) -> None:
        """Run a lifecycle hook; an exception is logged, never raised."""
        tokens = bind_table(state.table)
        try:
            result = hook(*args)
            if inspect.isawaitable(result):
                await result
        except Exception:
            state.log.exception(f"{name} raised")
        finally:
            unbind_table(tokens)
