"""A person's seat as an SDK bot: its ``act`` awaits the page's answer.

The seat's session to the game server is an ordinary :mod:`rookery.client` session, so it has
what every bot has: resume after a dropped stream, batching and the request's deadline. What the
session hands the bot goes into the seat's :class:`SeatView`; an answer from the page resolves the
open request. A person may think into the seat's bank; one who does not answer by then gives no
answer at all (``NoAnswer``), and the table's late policy plays for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rookery.client import Bot, NoAnswer, Table
from rookery.engine import Action, GameResult, LegalActions, Observation
from rookery.v1.events_pb2 import Event

from ._seat import JSON, SeatView

__all__ = ["ANSWER_MARGIN_S", "OpenAnswer", "SeatBot"]

#: How long before the seat's deadline an unanswered request is given up (the late policy then
#: plays): the SDK's own margin is at most 0.25 s, and the reply must reach the server in time.
ANSWER_MARGIN_S = 0.5


class OpenAnswer:
    """The request the page is to answer: its id, what is legal, and the answer once given."""

    def __init__(self, request_id: int, legal: LegalActions) -> None:
        self.request_id = request_id
        self.legal = legal
        self.answer: asyncio.Future[Action] = asyncio.get_running_loop().create_future()

    @property
    def is_open(self) -> bool:
        """Whether the page may still answer it (not answered, not given up)."""
        return not self.answer.done()


class SeatBot(Bot):
    """The person's seat at its one table: every message into ``view``, every request to the
    page. ``changed`` is called after each change of the view (the page's wake-up); ``clock``
    gives the table's time control for the view; ``ending`` gives a finished table's reason name
    and the server's detail (the SDK's result says only ``FORFEIT``)."""

    uses_bank = True

    def __init__(
        self,
        view: SeatView,
        changed: Callable[[], None],
        clock: Callable[[str], JSON],
        ending: Callable[[str], tuple[str, str] | None],
    ) -> None:
        self.view = view
        self._changed = changed
        self._clock = clock
        self._ending = ending
        self._requests = 0
        self.open: OpenAnswer | None = None
        """The seat's latest request (None before the first)."""

    def on_table_joined(self, table: Table) -> None:
        self.view.joined(table, self._clock(table.table_id))
        self._changed()

    def on_event(self, event: Event) -> None:
        self.view.event(event)
        self._changed()

    async def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        left_s = self.time_left()
        action_s = min(self.table.action_ms / 1000, left_s)
        self._requests += 1
        open_answer = self.open = OpenAnswer(self._requests, legal)
        self.view.requested(
            open_answer.request_id,
            observation,
            legal,
            deadline_ms=int(action_s * 1000),
            bank_ms=int((left_s - action_s) * 1000),
        )
        self._changed()
        try:
            return await asyncio.wait_for(
                asyncio.shield(open_answer.answer), max(0.0, left_s - ANSWER_MARGIN_S)
            )
        except TimeoutError:
            # The page's request stays open until the server's clock plays (the view marks it).
            raise NoAnswer("the person did not answer in time") from None
        finally:
            open_answer.answer.cancel()  # an answer from the page after this is refused

    def answer(self, request_id: int, action: Action) -> None:
        """The page's answer to request ``request_id``: ``ValueError`` (its message for the
        page) for another request, a request given up, or an action that is not legal."""
        open_answer = self.open
        if open_answer is None or open_answer.request_id != request_id:
            raise ValueError("no such request is open: the page is behind, reload it")
        if not open_answer.is_open:
            raise ValueError("too late: the table's clock plays for this seat")
        if action not in open_answer.legal:
            self.view.refused(f"{action} is not legal now")
            self._changed()
            raise ValueError(f"{action} is not legal now")
        open_answer.answer.set_result(action)
        self.view.answered()
        self._changed()

    def on_table_finished(self, result: GameResult) -> None:
        ending = self._ending(self.table.table_id)
        reason, detail = ending if ending is not None else (_reason_name(result), "")
        self.view.finished(result, reason, detail)
        self._changed()


def _reason_name(result: GameResult) -> str:
    """The engine's reason, as the protocol names it when the server's own is not at hand."""
    return result.reason.name
