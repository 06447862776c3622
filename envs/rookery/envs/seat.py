"""The text seat as a Rookery bot: ``rookery bot run rookery.envs.seat:TextSeatBot``.

Configuration from the environment: ``ROOKERY_CHAT_URL`` (an OpenAI-compatible API's base URL),
``ROOKERY_CHAT_MODEL``, ``ROOKERY_CHAT_KEY`` (optional, never logged), ``ROOKERY_CHAT_RETRIES``
(2: re-prompts after an invalid reply), ``ROOKERY_CHAT_PROVIDER_RETRIES`` (2: retries of a
transient provider error), ``ROOKERY_CHAT_TIMEOUT_S`` (30; each request also ends well before the
table's deadline), ``ROOKERY_TEXT_RECORD`` (optional: a JSON-lines file of every decision).

A move the agent fails to give, after its re-prompts or because its provider kept failing, is
never invented: the bot sends no answer (``NoAnswer``) and the table's late policy applies to this
seat alone (auto-play and a strike, forfeit past the strike limit): a failure of the entrant's
provider is the entrant's failure, never a void game. Every move sent carries a note: the model's
stated reason as its text, and the decision's ``attempts``, ``invalid_replies``,
``provider_errors``, tokens and latency as its values.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import structlog
from rookery.client import Bot, NoAnswer
from rookery.engine import Action, Observation

from .chat import ChatEndpoint
from .text import ChatAgent, Completion, Decision, Message, ProviderError, TextSeat

__all__ = ["NOTE_TEXT_MAX_BYTES", "TextSeatBot"]

NOTE_TEXT_MAX_BYTES = 512
"""A note's text bound (the protocol's): a longer stated reason is cut at a character."""

log = structlog.get_logger("rookery.envs.seat")


def _append_line(path: str, record: dict[str, Any]) -> None:
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


class TextSeatBot(Bot):
    """A language-model agent at a Rookery table, through :class:`TextSeat`."""

    def __init__(
        self, agent: ChatEndpoint | ChatAgent | None = None, *, retries: int | None = None
    ) -> None:
        env = os.environ
        if agent is None:
            missing = [n for n in ("ROOKERY_CHAT_URL", "ROOKERY_CHAT_MODEL") if not env.get(n)]
            if missing:
                raise ValueError(
                    f"the text seat needs {' and '.join(missing)} (an OpenAI-compatible API's "
                    "base URL and the model's name); see docs/ai.md"
                )
            agent = ChatEndpoint(
                url=env.get("ROOKERY_CHAT_URL", ""),
                model=env.get("ROOKERY_CHAT_MODEL", ""),
                timeout_s=float(env.get("ROOKERY_CHAT_TIMEOUT_S", "30")),
                api_key=env.get("ROOKERY_CHAT_KEY", ""),
            )
        self.endpoint = agent
        if retries is None:
            retries = int(env.get("ROOKERY_CHAT_RETRIES", "2"))
        provider_retries = int(env.get("ROOKERY_CHAT_PROVIDER_RETRIES", "2"))
        self.seat = TextSeat(
            self._ask, retries=retries, provider_retries=provider_retries, time_left=self._budget
        )
        self.record_path = env.get("ROOKERY_TEXT_RECORD", "")

    def _budget(self) -> float:
        """Seconds this decision may still use: it must end well before the SDK's own cut-off
        (which would send a fallback move), so no move is ever invented."""
        left = self.time_left()
        return left - max(0.3, left * 0.15) if left else math.inf

    async def _ask(self, messages: list[Message]) -> str | Completion:
        budget = self._budget()
        if budget == math.inf:
            return await self.endpoint(messages)
        if budget < 0.05:
            raise ProviderError("timeout", f"no time left for another request ({budget:.2f} s)")
        if isinstance(self.endpoint, ChatEndpoint):
            return await self.endpoint(messages, timeout_s=budget)
        try:
            return await asyncio.wait_for(self.endpoint(messages), budget)
        except TimeoutError:
            raise ProviderError(
                "timeout", f"the agent did not answer within {budget:.1f} s", transient=True
            ) from None

    async def act(self, observation: Observation) -> Action:
        decision = await self.seat.decide(observation)
        self._record(observation, decision)
        if decision.outcome == "answered":
            assert decision.action is not None
            self._note(decision)
            return decision.action
        if decision.outcome == "provider_error":
            raise NoAnswer(
                f"provider failed {decision.provider_errors} time(s); last: {decision.errors[-1]}"
            )
        raise NoAnswer(
            f"no legal move in {decision.attempts} attempts; last: {decision.errors[-1]}"
        )

    def _note(self, decision: Decision) -> None:
        """The decision's ledger on the reply: the stated reason, the counts, the latency."""
        text = decision.reason.encode()[:NOTE_TEXT_MAX_BYTES].decode(errors="ignore")
        self.note(
            text,
            attempts=decision.attempts,
            invalid_replies=decision.invalid_replies,
            provider_errors=decision.provider_errors,
            prompt_tokens=decision.prompt_tokens,
            completion_tokens=decision.completion_tokens,
            latency_ms=round(decision.seconds * 1000, 1),
        )

    def _record(self, obs: Observation, decision: Decision) -> None:
        table = getattr(self, "table", None)
        record = {
            "table_id": table.table_id if table is not None else "",
            "seat": obs.seat,
            "hand": obs.hand_number,
            "phase": obs.phase.name,
            "outcome": decision.outcome,
            "late_policy_applies": decision.outcome != "answered",
            "action": str(decision.action) if decision.action is not None else None,
            "attempts": decision.attempts,
            "invalid_replies": decision.invalid_replies,
            "provider_errors": decision.provider_errors,
            "prompt_tokens": decision.prompt_tokens,
            "completion_tokens": decision.completion_tokens,
            "errors": list(decision.errors),
            "seconds": round(decision.seconds, 3),
            "at": time.time(),
        }
        log.info("text seat decision", **{k: v for k, v in record.items() if k != "errors"})
        if self.record_path:
            _append_line(self.record_path, record)
