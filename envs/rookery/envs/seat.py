"""The text seat as a Rookery bot: ``rookery bot run rookery.envs.seat:TextSeatBot``; the
tool-calling seat likewise: ``rookery bot run rookery.envs.seat:ToolSeatBot``.

Configuration from the environment: ``ROOKERY_CHAT_URL`` (an OpenAI-compatible API's base URL),
``ROOKERY_CHAT_MODEL``, ``ROOKERY_CHAT_KEY`` (optional, never logged), ``ROOKERY_CHAT_PRICE``
(optional: ``"IN,OUT"``, the model's US dollars per million prompt and completion tokens, for the
ledger's cost), ``ROOKERY_CHAT_RETRIES`` (2: re-prompts after an invalid reply),
``ROOKERY_CHAT_PROVIDER_RETRIES`` (2: retries of a transient provider error),
``ROOKERY_CHAT_TIMEOUT_S`` (30; each request also ends well before the table's deadline),
``ROOKERY_CHAT_MAX_REQUESTS`` (12, the tool-calling seat's requests a decision),
``ROOKERY_TEXT_RECORD`` (optional: a JSON-lines file of every decision).

A move the agent fails to give, after its re-prompts or because its provider kept failing, is
never invented: the bot sends no answer (``NoAnswer``) and the table's late policy applies to this
seat alone (auto-play and a strike, forfeit past the strike limit): a failure of the entrant's
provider is the entrant's failure, never a void game. Every move sent carries a note: the model's
stated reason as its text, and the decision's ledger as its values (:data:`NOTE_VALUES`), with the
sums of the decisions given no move since the seat's previous reply (``unanswered_*``).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import structlog
from rookery.client import Bot, NoAnswer
from rookery.engine import Action, Observation
from rookery.wire.notes import LEDGER_VALUES, NOTE_TEXT_MAX_BYTES

from .chat import ChatEndpoint
from .text import ChatAgent, Completion, Decision, Message, ProviderError, TextSeat
from .tools import ToolAgent, ToolSeat

__all__ = ["NOTE_TEXT_MAX_BYTES", "NOTE_VALUES", "AgentSeat", "Price", "TextSeatBot", "ToolSeatBot"]

NOTE_VALUES = LEDGER_VALUES
"""A decision's counts in its move's note (the protocol's ledger names, in rookery.wire.notes)."""

log = structlog.get_logger("rookery.envs.seat")


_Reply = TypeVar("_Reply")


class AgentSeat(Protocol):
    """What the bot asks: a decision for an observation (each one also kept in ``decisions``)."""

    @property
    def decisions(self) -> list[Decision]:
        """Every decision so far."""
        ...

    async def decide(self, obs: Observation) -> Decision:
        """The agent's decision at ``obs``."""
        ...


@dataclass(frozen=True)
class Price:
    """A model's price in US dollars per million prompt and completion tokens."""

    prompt_usd_per_mtok: float = 0.0
    completion_usd_per_mtok: float = 0.0

    @classmethod
    def from_text(cls, text: str) -> Price:
        """``"0.15,0.60"``; ``""`` is free. ``ValueError`` naming the setting otherwise."""
        if not text.strip():
            return cls()
        try:
            prompt, completion = (float(part) for part in text.split(","))
        except ValueError:
            raise ValueError(
                f"ROOKERY_CHAT_PRICE must be 'IN,OUT' (US dollars per million prompt and "
                f"completion tokens, like '0.15,0.60'), got {text!r}"
            ) from None
        if not (math.isfinite(prompt) and math.isfinite(completion)) or min(prompt, completion) < 0:
            raise ValueError(f"ROOKERY_CHAT_PRICE must be two finite prices ≥ 0, got {text!r}")
        return cls(prompt, completion)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost of the tokens, in US dollars."""
        return (
            prompt_tokens * self.prompt_usd_per_mtok
            + completion_tokens * self.completion_usd_per_mtok
        ) / 1e6


def _ledger(decision: Decision, price: Price) -> dict[str, float]:
    """The counts of ``decision``, as :data:`NOTE_VALUES` names them."""
    counts: dict[str, float] = {
        name: getattr(decision, name) for name in NOTE_VALUES if name != "cost_usd"
    }
    counts["cost_usd"] = price.cost(decision.prompt_tokens, decision.completion_tokens)
    return counts


def _append_line(path: str, record: dict[str, Any]) -> None:
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


class TextSeatBot(Bot):
    """A language-model agent at a Rookery table, through :class:`TextSeat`."""

    def __init__(
        self,
        agent: ChatEndpoint | ChatAgent | ToolAgent | None = None,
        *,
        retries: int | None = None,
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
        self.endpoint: ChatEndpoint | ChatAgent | ToolAgent = agent
        if retries is None:
            retries = int(env.get("ROOKERY_CHAT_RETRIES", "2"))
        provider_retries = int(env.get("ROOKERY_CHAT_PROVIDER_RETRIES", "2"))
        self.seat: AgentSeat = self._seat(retries, provider_retries)
        self.record_path = env.get("ROOKERY_TEXT_RECORD", "")
        self.price = Price.from_text(env.get("ROOKERY_CHAT_PRICE", ""))
        #: Per table: the summed counts of the decisions given no move since the last reply.
        self._unanswered: dict[str, dict[str, float]] = {}

    def _seat(self, retries: int, provider_retries: int) -> AgentSeat:
        """The seat that asks the agent (a text seat here)."""
        return TextSeat(
            self._ask, retries=retries, provider_retries=provider_retries, time_left=self._budget
        )

    def _budget(self) -> float:
        """Seconds this decision may still use: it must end well before the SDK's own cut-off
        (which would send a fallback move), so no move is ever invented."""
        left = self.time_left()
        return left - max(0.3, left * 0.15) if left else math.inf

    async def _ask(self, messages: list[Message]) -> str | Completion:
        budget = self._budget()
        if budget == math.inf:
            return await cast(ChatAgent, self.endpoint)(messages)
        if budget < 0.05:
            raise ProviderError("timeout", f"no time left for another request ({budget:.2f} s)")
        if isinstance(self.endpoint, ChatEndpoint):
            return await self.endpoint(messages, timeout_s=budget)
        agent = cast(ChatAgent, self.endpoint)
        return await _within(agent(messages), budget)

    async def act(self, observation: Observation) -> Action:
        decision = await self.seat.decide(observation)
        self._record(observation, decision)
        table = getattr(self, "table", None)
        key = table.table_id if table is not None else ""
        if decision.outcome == "answered":
            assert decision.action is not None
            self._note(decision, self._unanswered.pop(key, {}))
            return decision.action
        pending = self._unanswered.setdefault(key, {})
        for name, value in _ledger(decision, self.price).items():
            pending[name] = pending.get(name, 0) + value
        if decision.outcome == "provider_error":
            raise NoAnswer(
                f"provider failed {decision.provider_errors} time(s); last: {decision.errors[-1]}"
            )
        raise NoAnswer(
            f"no legal move in {decision.attempts} attempts; last: {decision.errors[-1]}"
        )

    def _note(self, decision: Decision, unanswered: dict[str, float]) -> None:
        """The decision's ledger on the reply: the stated reason, the counts, the latency, and
        the counts of the decisions given no move since the previous reply."""
        text = decision.reason.encode()[:NOTE_TEXT_MAX_BYTES].decode(errors="ignore")
        values = _ledger(decision, self.price)
        values["latency_ms"] = round(decision.seconds * 1000, 1)
        values.update({f"unanswered_{k}": v for k, v in unanswered.items() if v})
        self.note(text, **values)

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
            "cost_usd": self.price.cost(decision.prompt_tokens, decision.completion_tokens),
            "errors": list(decision.errors),
            "seconds": round(decision.seconds, 3),
            "at": time.time(),
        }
        log.info("text seat decision", **{k: v for k, v in record.items() if k != "errors"})
        if self.record_path:
            _append_line(self.record_path, record)


class ToolSeatBot(TextSeatBot):
    """A tool-calling language-model agent at a Rookery table, through :class:`ToolSeat`: the
    same settings, notes and ledger as :class:`TextSeatBot`; ``ROOKERY_CHAT_MAX_REQUESTS`` (12)
    bounds the requests of one decision (looks included)."""

    def _seat(self, retries: int, provider_retries: int) -> AgentSeat:
        return ToolSeat(
            self._ask_with_tools,
            retries=retries,
            provider_retries=provider_retries,
            max_requests=int(os.environ.get("ROOKERY_CHAT_MAX_REQUESTS", "12")),
            time_left=self._budget,
        )

    async def _ask_with_tools(
        self, messages: list[dict[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> Completion:
        budget = self._budget()
        if budget < 0.05:
            raise ProviderError("timeout", f"no time left for another request ({budget:.2f} s)")
        if isinstance(self.endpoint, ChatEndpoint):
            timeout = None if budget == math.inf else budget
            return await self.endpoint(messages, tools, timeout_s=timeout)
        agent = cast(ToolAgent, self.endpoint)
        return await _within(agent(messages, tools), budget)


async def _within(reply: Awaitable[_Reply], budget: float) -> _Reply:
    """``reply``, or a transient provider timeout after ``budget`` seconds."""
    if budget == math.inf:
        return await reply
    try:
        return await asyncio.wait_for(reply, budget)
    except TimeoutError:
        raise ProviderError(
            "timeout", f"the agent did not answer within {budget:.1f} s", transient=True
        ) from None
