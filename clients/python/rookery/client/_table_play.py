"""One table a session plays: its bot, its hooks, its event cursor and its open request."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass

import structlog
from rookery.engine import Action, LegalActions, Observation, Phase
from rookery.v1 import bot_service_pb2 as pb
from rookery.wire import convert
from structlog.typing import FilteringBoundLogger

from ._bot import PHASE_HOOKS, Bot, HookResult, Seat, Table

__all__ = [
    "PendingRequest",
    "TablePlay",
    "bind_table",
    "hooks_of",
    "table_from_proto",
    "unbind_table",
]


@dataclass(slots=True)
class PendingRequest:
    """The request a table's bot is answering or has answered, kept for a retry on rejection."""

    request_id: int
    observation: Observation
    legal: LegalActions
    sent: Action | None = None
    retried: bool = False
    asked_at: float = 0.0
    """When the request came (``time.monotonic()``), for a bot that thinks into its bank."""


@dataclass(slots=True)
class TablePlay:
    """One table of the session: its bot instance, its hooks and its event cursor."""

    table: Table
    bot: Bot
    hooks: dict[Phase, Callable[[Observation], HookResult]]
    wants_events: bool
    log: FilteringBoundLogger
    """The table's bound logger."""
    last_seq: int = 0
    request: PendingRequest | None = None
    table_field: bytes = b""
    """The table's encoded ``ActionReply.table_id`` (each reply starts with it)."""
    bank_ms: int = -1
    """The seat's time bank left, kept for a bot that ``uses_bank`` (-1: it does not)."""


def hooks_of(bot: Bot) -> dict[Phase, Callable[[Observation], HookResult]]:
    """For each phase, the overridden per-phase hook or else ``act`` (resolved once per table)."""
    return {phase: bot.hook_for(phase) for phase in PHASE_HOOKS}


def table_from_proto(joined: pb.TableJoined) -> Table:
    seats = tuple(
        Seat(seat=s.seat, side=s.side, bot_name=s.bot_name, bot_version=s.bot_version)
        for s in sorted(joined.seats, key=lambda s: s.seat)
    )
    return Table(
        table_id=joined.table_id,
        seat=joined.seat,
        ruleset=convert.ruleset_from_proto(joined.ruleset),
        seats=seats,
        action_ms=joined.time_control.action_ms,
        bank_ms=joined.time_control.bank_ms,
        game_number=joined.game_number,
        bot_seed=joined.bot_seed,
    )


_TableTokens = tuple[Token[object], Token[object]]
_variables: list[ContextVar[object]] = []
"""structlog's context variables of ``table_id`` and ``seat``, from the first binding."""


def bind_table(table: Table) -> _TableTokens:
    """Bind the table and seat for structlog while a hook runs; the tokens to reset them
    (:func:`unbind_table`).

    The first binding goes through structlog; later ones set its two variables directly (one
    hook call a request: structlog's keyword binding costs more than the two sets)."""
    if not _variables:
        tokens = structlog.contextvars.bind_contextvars(table_id=table.table_id, seat=table.seat)
        _variables.extend((tokens["table_id"].var, tokens["seat"].var))
        return tokens["table_id"], tokens["seat"]
    table_id, seat = _variables
    return table_id.set(table.table_id), seat.set(table.seat)


def unbind_table(tokens: _TableTokens) -> None:
    """Undo :func:`bind_table`."""
    table_id, seat = tokens
    seat.var.reset(seat)
    table_id.var.reset(table_id)
