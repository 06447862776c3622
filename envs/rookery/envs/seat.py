"""The text seat as a Rookery bot: ``rookery bot run rookery.envs.seat:TextSeatBot``.

Configuration from the environment: ``ROOKERY_CHAT_URL`` (an OpenAI-compatible API's base URL),
``ROOKERY_CHAT_MODEL``, ``ROOKERY_CHAT_KEY`` (optional, never logged), ``ROOKERY_CHAT_RETRIES``
(2), ``ROOKERY_CHAT_TIMEOUT_S`` (30; each request also ends well before the table's deadline),
``ROOKERY_TEXT_RECORD`` (optional: a JSON-lines file of
every decision). A move the agent fails to give, after its retries or because its provider failed,
is never invented: the bot sends no answer (``NoAnswer``) and the table's late policy applies; the
decision is recorded as such. A provider failure is also written as an incident to
``ROOKERY_INCIDENT_FILE`` (the arena sets it; it records the incident and voids the game rather
than rating it).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import structlog
from rookery.client import Bot, NoAnswer
from rookery.engine import Action, Observation

from .chat import ChatEndpoint
from .text import ChatAgent, Decision, Message, ProviderError, TextSeat

__all__ = ["INCIDENT_FILE_ENV", "TextSeatBot"]

INCIDENT_FILE_ENV = "ROOKERY_INCIDENT_FILE"

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
        self.seat = TextSeat(self._ask, retries=retries)
        self.record_path = env.get("ROOKERY_TEXT_RECORD", "")
        self.incident_path = env.get(INCIDENT_FILE_ENV, "")

    async def _ask(self, messages: list[Message]) -> str:
        left = self.time_left()
        if not left:
            return await self.endpoint(messages)
        # Finish well before the SDK's own cut-off (which would send a fallback move): a reply
        # that cannot arrive in time is a provider timeout, and no move is invented.
        budget = left - max(0.3, left * 0.15)
        if budget < 0.05:
            raise ProviderError("timeout", f"no time left for another request ({left:.2f} s)")
        if isinstance(self.endpoint, ChatEndpoint):
            return await self.endpoint(messages, timeout_s=budget)
        try:
            return await asyncio.wait_for(self.endpoint(messages), budget)
        except TimeoutError:
            raise ProviderError(
                "timeout", f"the agent did not answer within {budget:.1f} s"
            ) from None

    async def act(self, observation: Observation) -> Action:
        decision = await self.seat.decide(observation)
        self._record(observation, decision)
        if decision.outcome == "answered":
            assert decision.action is not None
            return decision.action
        if decision.outcome == "provider_error":
            self._incident(observation, decision)
            raise NoAnswer(f"provider error: {decision.errors[-1]}")
        raise NoAnswer(
            f"no legal move in {decision.attempts} attempts; last: {decision.errors[-1]}"
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
            "errors": list(decision.errors),
            "seconds": round(decision.seconds, 3),
            "at": time.time(),
        }
        log.info("text seat decision", **{k: v for k, v in record.items() if k != "errors"})
        if self.record_path:
            _append_line(self.record_path, record)

    def _incident(self, obs: Observation, decision: Decision) -> None:
        table = getattr(self, "table", None)
        if not self.incident_path or table is None:
            return
        kind = decision.errors[-1].split(":", 1)[0]
        _append_line(
            self.incident_path,
            {
                "table_id": table.table_id,
                "kind": "provider_error",
                "detail": f"seat {obs.seat}, {obs.phase.name}: {decision.errors[-1]} ({kind})",
            },
        )
