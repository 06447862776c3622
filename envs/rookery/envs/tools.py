"""A tool-calling seat: the model looks before it acts, through four tools.

The tools (OpenAI-style function tools, :data:`TOOLS`; the MCP server offers the same ones):
``legal_actions`` (the moves ``play`` accepts now), ``rules`` (the table's complete rules),
``history`` (what the seat knows: hand, auction, nest and bury if it is the bidder, trump, tricks,
scores) and ``play`` (the move, written as listed, and optionally the reason, kept as the move's
note). :class:`SeatTools` answers them for one decision; :class:`ToolSeat` runs the conversation
with a chat agent that calls them.

The counted policy is the text seat's: a reply that calls no tool, a refused ``play``, an unknown
tool or unreadable arguments is an invalid reply (re-prompted with why, at most ``retries``
times); a transient provider error is retried at most ``provider_retries`` times; looking is free
but bounded (``max_requests`` a decision). It never invents a move: a decision that ends without
an accepted ``play`` gets none, and the table's late policy applies to the seat.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rookery.engine import Action, LegalActions, Observation

from .text import (
    Completion,
    Decision,
    DecisionTally,
    Outcome,
    ProviderError,
    ReplyError,
    TimeLeft,
    legal_moves,
    parse_move,
    render_view,
    retry_pause,
    rules_summary,
)

__all__ = ["TOOLS", "SeatTools", "ToolAgent", "ToolResult", "ToolSeat", "tool_prompt"]

_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

TOOLS: tuple[dict[str, Any], ...] = (
    {
        "type": "function",
        "function": {
            "name": "legal_actions",
            "description": "Your legal moves now, exactly as play accepts them.",
            "parameters": _NO_ARGUMENTS,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "rules",
            "description": "The complete rules of this table's game.",
            "parameters": _NO_ARGUMENTS,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "history",
            "description": (
                "What you know now: your hand, the auction, the nest and bury if you are the "
                "bidder, trump, the tricks so far and the scores."
            ),
            "parameters": _NO_ARGUMENTS,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "play",
            "description": (
                "Make your move; it ends your turn. A move that is not legal now is refused "
                "with why (and counts as an invalid reply)."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "move": {
                        "type": "string",
                        "description": (
                            "One legal move exactly as legal_actions lists it, e.g. 'play R14', "
                            "'bid 80', 'pass', 'trump G', 'bury B5 R10 ...'."
                        ),
                    },
                    "reason": {
                        "type": "string",
                        "description": "Why, in a sentence (kept with the move).",
                    },
                },
                "required": ["move"],
                "additionalProperties": False,
            },
        },
    },
)
"""The seat's tools as OpenAI-style function tools."""

ToolAgent = Callable[[list[dict[str, Any]], Sequence[Mapping[str, Any]]], Awaitable[Completion]]
"""An agent offered tools: the conversation and the tools in, its reply (text and tool calls)
out; raises :class:`~rookery.envs.text.ProviderError` when its provider failed."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool answered: its text, the move if ``play`` accepted one, and whether the call
    was invalid (a refused move, an unknown tool, unreadable arguments)."""

    text: str
    action: Action | None = None
    invalid: bool = False
    reason: str = ""


@dataclass(frozen=True)
class SeatTools:
    """The tools of one decision: ``observation`` and its legal moves."""

    observation: Observation
    legal: LegalActions

    @classmethod
    def for_observation(cls, observation: Observation) -> SeatTools:
        """The tools of the decision ``observation`` asks for."""
        return cls(observation, observation.legal_actions())

    def legal_actions(self) -> str:
        """The ``legal_actions`` tool."""
        return "Your legal moves: " + ", ".join(legal_moves(self.legal)) + "."

    def rules(self) -> str:
        """The ``rules`` tool."""
        return rules_summary(self.observation.ruleset)

    def history(self) -> str:
        """The ``history`` tool."""
        return render_view(self.observation)

    def play(self, move: str, reason: str = "") -> ToolResult:
        """The ``play`` tool: the move if it is one legal move, else why not."""
        try:
            action = parse_move(move, self.legal)
        except ReplyError as error:
            return ToolResult(f"refused: {error}", invalid=True)
        return ToolResult(f"played {action}", action=action, reason=reason.strip())

    def call(self, name: str, arguments: str | Mapping[str, Any]) -> ToolResult:
        """Answer the tool ``name`` called with ``arguments`` (JSON text or a mapping)."""
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments or "{}")
            except ValueError:
                return ToolResult(f"refused: the arguments of {name} are not JSON", invalid=True)
        else:
            parsed = dict(arguments)
        if not isinstance(parsed, dict):
            return ToolResult(f"refused: the arguments of {name} are not an object", invalid=True)
        if name == "play":
            move, reason = parsed.get("move"), parsed.get("reason", "")
            if not isinstance(move, str) or not isinstance(reason, str):
                return ToolResult(
                    "refused: play takes a 'move' text (and a 'reason' text)", invalid=True
                )
            return self.play(move, reason)
        looks: dict[str, Callable[[], str]] = {
            "legal_actions": self.legal_actions,
            "rules": self.rules,
            "history": self.history,
        }
        look = looks.get(name)
        if look is None:
            return ToolResult(
                f"refused: no tool {name[:40]!r}; the tools are legal_actions, rules, history, "
                "play",
                invalid=True,
            )
        return ToolResult(look())


def tool_prompt(observation: Observation) -> str:
    """The user message that opens a decision: whose turn, and how to move."""
    return (
        f"Your turn: you are seat {observation.seat}, hand {observation.hand_number + 1}, "
        f"phase {observation.phase.name.lower().replace('_', ' ')}. Look with legal_actions, "
        "history and rules as you need, then call play with one legal move."
    )


_SYSTEM = (
    "You play Rook at a Rookery table, through tools: rules (the complete rules), history (what "
    "you know now), legal_actions (your legal moves) and play (your move; it ends your turn)."
)


def _no_limit() -> float:
    return math.inf


@dataclass
class ToolSeat:
    """Asks a tool-calling ``agent`` for a move and never invents one (see the module)."""

    agent: ToolAgent
    retries: int = 2
    provider_retries: int = 2
    backoff_s: float = 0.5
    max_backoff_s: float = 4.0
    max_requests: int = 12
    time_left: TimeLeft = _no_limit
    decisions: list[Decision] = field(default_factory=list)

    def __post_init__(self) -> None:
        if min(self.retries, self.provider_retries) < 0 or self.max_requests < 1:
            raise ValueError(
                "retries and provider_retries must be ≥ 0 and max_requests ≥ 1, got "
                f"{self.retries}, {self.provider_retries}, {self.max_requests}"
            )

    async def decide(self, obs: Observation) -> Decision:
        """Ask for ``obs``'s move; the decision is also appended to ``decisions``."""
        tools = SeatTools.for_observation(obs)
        tally = DecisionTally()
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": tool_prompt(obs)},
        ]
        outcome: Outcome = "gave_up"
        action: Action | None = None
        reason = ""
        while (
            action is None and tally.attempts < self.max_requests and tally.invalid <= self.retries
        ):
            tally.attempts += 1
            try:
                got = await self.agent(list(messages), TOOLS)
            except ProviderError as error:
                tally.provider_failed(error)
                pause = retry_pause(self, error, tally.failures)
                if pause is None:
                    outcome = "provider_error"
                    break
                await asyncio.sleep(pause)
                continue
            tally.count_tokens(got)
            if not got.tool_calls:
                tally.invalid += 1
                error_text = "your reply called no tool: call play with one legal move"
                tally.errors.append(error_text)
                messages += [
                    {"role": "assistant", "content": got.text},
                    {"role": "user", "content": f"{error_text}. Try again."},
                ]
                continue
            messages.append(
                {
                    "role": "assistant",
                    "content": got.text or None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                        for call in got.tool_calls
                    ],
                }
            )
            for call in got.tool_calls:
                result = (
                    ToolResult("not run: a move was already played")
                    if action is not None
                    else tools.call(call.name, call.arguments)
                )
                if result.invalid:
                    tally.invalid += 1
                    tally.errors.append(result.text)
                if result.action is not None:
                    action = result.action
                    reason = result.reason or got.text.strip()
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result.text})
        if action is not None:
            outcome = "answered"
        elif outcome == "gave_up" and tally.invalid <= self.retries:
            tally.errors.append(
                f"no move after {tally.attempts} requests (at most {self.max_requests})"
            )
        transcript = tuple(
            {"role": str(m["role"]), "content": str(m.get("content"))} for m in messages
        )
        decision = tally.decision(outcome, action, transcript, reason)
        self.decisions.append(decision)
        return decision
