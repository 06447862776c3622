"""A table's events on their way out: each seat its own view, spectators the public one.

Each view of an event is encoded once and its bytes shared by every receiver; a session that
defers events (``Hello.defer_events``) has them held until its next request, one that groups them
(``Hello.group_events``) gets a flush's events as one message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rookery.engine import Event, EventBase, Forfeit, Game, Ruleset
from rookery.v1 import events_pb2, spectator_service_pb2
from rookery.wire import convert
from rookery.wire.fastpath import (
    event_element,
    event_message,
    events_message,
    public_event_element,
    table_event_prefix,
)

from ._ports import SeatChannel
from ._seats import SeatState
from ._watchers import Watcher

__all__ = ["TableEvents"]


class TableEvents:
    """The events of one table's game sent so far, and the sending of the rest."""

    def __init__(
        self,
        table_id: str,
        game: Game,
        ruleset: Ruleset,
        seats: Sequence[SeatState],
        watchers: set[Watcher],
        ending: Callable[[], tuple[Forfeit | None, str]],
    ) -> None:
        self.sent_seq = 0
        """The sequence number of the last event sent."""
        self._game = game
        self._ruleset = ruleset
        self._seats = seats
        self._watchers = watchers
        self._ending = ending
        """The forfeit and the detail an event of the game's end carries (known as it ends)."""
        self._prefix = table_event_prefix(table_id)

    def proto(self, event: Event, seat: int | None) -> events_pb2.Event:
        """The event as ``seat`` sees it (``None``: the public view)."""
        forfeit, detail = self._ending()
        return convert.event_to_proto(event, self._ruleset, seat, forfeit=forfeit, detail=detail)

    def public_since(self, seq: int) -> list[events_pb2.Event]:
        """The public form of every event after ``seq`` (sent or about to be)."""
        return [self.proto(event, None) for event in self._game.events_since(max(0, seq))]

    def flush(self) -> None:
        """Sends every event not sent yet: each seat its own view, spectators the public one."""
        game = self._game
        if game.last_seq <= self.sent_seq:
            return
        # Who gets events: attached, present, and not a session that asked for none.
        receivers = [
            seat
            for seat in self._seats
            if seat.session is not None
            and seat.session.is_attached
            and not seat.gone
            and seat.session.wants_events
        ]
        if not receivers and not self._watchers:  # nobody to tell (observations-only seats)
            self.sent_seq = game.last_seq
            return
        events = game.events_since(self.sent_seq)
        watchers = self._watchers
        # A grouping session that does not defer gets this flush's events as one message.
        grouped: dict[int, list[bytes]] = {}
        for event in events:
            # Each view encoded once: the public bytes are shared by every receiver (the most
            # frequent events from bytes encoded once, without a proto).
            shared = public_event_element(event) if receivers else None
            public = self.proto(event, None) if watchers else None
            if shared is None and receivers and type(event).view is EventBase.view:
                if public is None:
                    public = self.proto(event, None)
                shared = event_element(public)
            for seat in receivers:
                if event.seq <= seat.skip_until:
                    continue
                session = seat.session
                assert session is not None
                element = event_element(self.proto(event, seat.index)) if shared is None else shared
                if session.defers_events:
                    seat.held.append(element)
                elif session.groups_events:
                    grouped.setdefault(seat.index, []).append(element)
                else:
                    session.send_encoded(event_message(self._prefix, element))
            if watchers:
                message = spectator_service_pb2.WatchTableResponse(event=public)
                for watcher in list(watchers):
                    if event.seq > watcher.skip_until:
                        watcher.put(message)
            self.sent_seq = event.seq
        for index, elements in grouped.items():
            session = self._seats[index].session
            assert session is not None
            self.send(session, elements)

    def release(self, seat: SeatState) -> None:
        """Sends the events held for the seat's session, in order."""
        held, seat.held = seat.held, []
        session = seat.session
        if session is not None:
            self.send(session, held)

    def send(self, session: SeatChannel, elements: list[bytes]) -> None:
        """Sends a session these events of the table (encoded as ``TableEvent.event`` fields),
        in order: one TableEvents message if its Hello asked (``Hello.group_events``), else
        a TableEvent each."""
        prefix = self._prefix
        if session.groups_events:
            session.send_encoded(events_message(prefix, elements))
        else:
            for element in elements:
                session.send_encoded(event_message(prefix, element))
