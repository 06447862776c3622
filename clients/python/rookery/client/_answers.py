"""A session's answers: each action request handed to its table's bot hook, the reply (or the
bot's fallback, or no answer at all) sent before the deadline, and a rejected reply retried once."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import cast

from rookery.engine import (
    Action,
    Bid,
    Bury,
    CallCard,
    NameTrump,
    Pass,
    PlayCard,
    parse_action,
)
from rookery.v1 import bot_service_pb2 as pb
from rookery.wire import convert
from rookery.wire.errors import WireError
from rookery.wire.fastpath import Request, reply_bytes
from rookery.wire.notes import FALLBACK_REASON_MAX_BYTES, clip_utf8
from structlog.typing import FilteringBoundLogger

from ._bot import ActionLike
from ._errors import ClientError, NoAnswer
from ._options import BotRunOptions, RunStats
from ._table_play import PendingRequest, TablePlay, bind_table, unbind_table

__all__ = ["Answers"]

#: Rejections after which the runner sends the bot's fallback action instead.
_RETRY_WITH_FALLBACK = frozenset(
    {pb.REJECTION_REASON_ILLEGAL_ACTION, pb.REJECTION_REASON_MALFORMED_ACTION}
)
_ANSWERS = frozenset({str, Pass, Bid, NameTrump, Bury, CallCard, PlayCard})
"""What a sync hook returns (checked before the slower ``inspect.isawaitable``)."""


def _deadline_margin(seconds: float) -> float:
    """How long before its deadline an async hook is cut short, so the fallback arrives in time:
    a tenth of the time allowed, at least 50 ms and at most 250 ms."""
    return min(0.25, max(0.05, seconds / 10))


class Answers:
    """The answers of one session's bots: ``write`` queues an encoded reply on the session's
    stream (False when there is none); ``tasks`` holds the async hooks still running."""

    def __init__(
        self,
        tables: dict[str, TablePlay],
        options: BotRunOptions,
        stats: RunStats,
        write: Callable[[bytes], bool],
        tasks: set[asyncio.Task[None]],
        log: FilteringBoundLogger,
    ) -> None:
        self._tables = tables
        self._options = options
        self._stats = stats
        self._write = write
        self._tasks = tasks
        self._log = log

    def on_request(self, request: Request | pb.ActionRequest) -> None:
        """Hands a request to its table's bot hook and queues the reply (a sync hook's at once;
        an ``async def`` hook's from a task, by its deadline)."""
        state = self._tables.get(request.table_id)
        if state is None:
            self._log.warning("request for an unknown table", table_id=request.table_id)
            return
        asked_at = time.monotonic()
        deadline = asked_at + (request.deadline_ms + max(0, state.bank_ms)) / 1000
        if isinstance(request, Request):  # read from its bytes (the usual case)
            observation, legal = request.observation, request.legal
        else:
            # The card sets as integers when the server sends them (one read instead of a
            # message per card); a server without ``card_masks`` leaves the card fields to read.
            masks = request.card_masks if request.HasField("card_masks") else None
            try:
                observation = convert.observation_from_proto(request.observation, masks=masks)
                legal = convert.legal_actions_from_proto(request.legal_actions, masks=masks)
            except WireError:
                state.log.exception("unreadable action request; the server's clock will run out")
                return
        open_request = PendingRequest(request.request_id, observation, legal, asked_at=asked_at)
        state.request = open_request
        bot = state.bot
        bot.deadline = deadline
        bot.pending_note = None
        hook = state.hooks.get(observation.phase) or bot.act
        tokens = bind_table(state.table)
        try:
            chosen = hook(observation)
        except NoAnswer as reason:
            self._no_answer(state, reason)
            return
        except Exception as error:
            # The fallback goes out first: rendering a traceback can take longer than the clock.
            self._send_fallback(state, open_request, _raised(hook, error))
            state.log.error(
                "the bot raised; sent a fallback action",
                phase=observation.phase.name,
                exc_info=error,
            )
            return
        finally:
            unbind_table(tokens)
        if type(chosen) not in _ANSWERS and inspect.isawaitable(chosen):
            task = asyncio.create_task(self._finish_async(state, open_request, chosen, deadline))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        self._send_chosen(state, open_request, chosen)

    async def _finish_async(
        self,
        state: TablePlay,
        open_request: PendingRequest,
        chosen: Awaitable[ActionLike],
        deadline: float,
    ) -> None:
        left = deadline - time.monotonic()
        budget = max(0.0, left - _deadline_margin(left))
        bind_table(state.table)  # this task's own context: no need to reset
        try:
            action = await asyncio.wait_for(chosen, budget)
        except TimeoutError:
            state.log.warning("the bot ran out of time; sending a fallback action", budget_s=budget)
            self._send_fallback(
                state, open_request, f"the hook did not answer within {budget:.3f} s"
            )
            return
        except NoAnswer as reason:
            self._no_answer(state, reason)
            return
        except Exception as error:
            self._send_fallback(state, open_request, _raised(None, error))
            state.log.error("the bot raised; sent a fallback action", exc_info=error)
            return
        self._send_chosen(state, open_request, action)

    def _no_answer(self, state: TablePlay, reason: NoAnswer) -> None:
        self._stats.no_answers += 1
        state.log.warning(
            "the bot gives no answer; the table's late policy applies", reason=str(reason)
        )

    def _send_chosen(self, state: TablePlay, open_request: PendingRequest, chosen: object) -> None:
        action = chosen
        if isinstance(chosen, str):
            try:
                action = parse_action(chosen)
            except Exception as error:
                state.log.warning(
                    "the bot returned unreadable action text; sending a fallback action",
                    returned=chosen,
                    error=str(error),
                )
                self._send_fallback(
                    state, open_request, f"the hook returned unreadable action text {chosen!r}"
                )
                return
        if action not in open_request.legal:
            state.log.warning(
                "the bot returned an illegal action; sending a fallback action",
                returned=str(chosen),
                phase=open_request.legal.phase.name,
            )
            shown = chosen if isinstance(chosen, str) else str(chosen)
            self._send_fallback(
                state, open_request, f"the hook returned an illegal action, {shown!r}"
            )
            return
        self._reply(state, open_request, cast(Action, action))  # legal: an engine action

    def _send_fallback(self, state: TablePlay, open_request: PendingRequest, reason: str) -> None:
        try:
            action = state.bot.fallback(open_request.observation, open_request.legal)
            if action not in open_request.legal:
                raise ClientError(f"fallback returned the illegal action {action}")
        except Exception as error:
            failed: Exception | None = error
            action = open_request.legal[0]
            reason += f"; fallback raised {type(error).__name__}"
        else:
            failed = None
        self._stats.fallbacks += 1
        self._reply(state, open_request, action, fallback=reason)
        if failed is not None:
            state.log.error("fallback failed; sent the first legal action", exc_info=failed)

    def _reply(
        self,
        state: TablePlay,
        open_request: PendingRequest,
        action: Action,
        fallback: str | None = None,
    ) -> None:
        if state.bank_ms > 0 and open_request.sent is None:
            # The server takes the time past the action time off the bank, as here.
            over_ms = (time.monotonic() - open_request.asked_at) * 1000 - state.table.action_ms
            state.bank_ms = max(0, state.bank_ms - max(0, int(over_ms)))
        open_request.sent = action
        reply = reply_bytes(
            state.table_field,
            open_request.request_id,
            action,
            note=state.bot.pending_note,
            fallback_reason=(
                None if fallback is None else clip_utf8(fallback, FALLBACK_REASON_MAX_BYTES)
            ),
        )
        if self._write(reply):
            self._stats.actions += 1

    async def on_rejected(self, rejected: pb.ActionRejected) -> None:
        self._stats.rejections += 1
        state = self._tables.get(rejected.table_id)
        reason = pb.RejectionReason.Name(rejected.reason)
        logger = state.log if state is not None else self._log
        logger.warning(
            "action rejected",
            table_id=rejected.table_id,
            request_id=rejected.request_id,
            reason=reason,
            message=rejected.message,
        )
        if state is None or not self._options.retry_rejected:
            return
        open_request = state.request
        if open_request is None or open_request.request_id != rejected.request_id:
            return
        if open_request.retried or time.monotonic() >= state.bot.deadline:
            return
        open_request.retried = True
        if rejected.reason == pb.REJECTION_REASON_RATE_LIMITED and open_request.sent is not None:
            await asyncio.sleep(0.05)
            self._reply(state, open_request, open_request.sent)
        elif rejected.reason in _RETRY_WITH_FALLBACK:
            self._send_fallback(
                state, open_request, f"the server rejected the reply: {rejected.message}"
            )


def _raised(hook: object, error: BaseException) -> str:
    """A fallback's reason for a hook that raised: ``act raised ValueError: no card``."""
    name = getattr(hook, "__name__", None) or "the hook"
    return f"{name} raised {type(error).__name__}: {error}"
