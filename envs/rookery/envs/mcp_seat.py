"""A seat for any MCP-capable agent: ``rookery mcp`` (the Model Context Protocol's official SDK).

One process plays as a Rookery bot (the SDK's :func:`~rookery.client.arun_bot`) and serves MCP,
over stdio or streamable HTTP. Each request of a table to this bot opens a *turn* on a
:class:`TurnBoard`; the agent finds it with ``wait_for_turn``, looks with ``legal_actions``,
``history`` and ``rules`` (the tool seat's tools, :class:`~rookery.envs.tools.SeatTools`) and
moves with ``play``. The rules of every preset are a resource, ``rookery://rules/{preset}``.

A turn that gets no legal ``play`` before its deadline (less a margin, so that the SDK never
sends a fallback) gets no move: the table's late policy applies to the seat, as for the text
seat. A refused ``play`` is an invalid reply, counted in the move's note with the attempts and
the reason given.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog
from rookery.client import Bot, NoAnswer
from rookery.engine import PRESETS, Action, Observation, Ruleset

from .tools import SeatTools, ToolResult

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["McpSeatBot", "Turn", "TurnBoard", "build_server"]

log = structlog.get_logger("rookery.envs.mcp_seat")

_NO_TURN = "no turn is open: call wait_for_turn"


@dataclass
class Turn:
    """One request waiting for the agent's ``play``."""

    id: str
    table_id: str
    tools: SeatTools
    deadline: float
    result: asyncio.Future[ToolResult]
    attempts: int = 0
    invalid: int = 0
    opened: float = field(default_factory=time.monotonic)

    def describe(self) -> str:
        """The turn in a line: whose, where, which phase, how long is left."""
        obs = self.tools.observation
        left = max(0.0, self.deadline - time.monotonic())
        return (
            f"turn {self.id}: you are seat {obs.seat} at table {self.table_id} "
            f"('{obs.ruleset.name}'), hand {obs.hand_number + 1}, phase "
            f"{obs.phase.name.lower().replace('_', ' ')}; {left:.1f} s left. Look with "
            f"legal_actions, history and rules as you need, then call play(turn='{self.id}', "
            "move=...)."
        )


class TurnBoard:
    """The turns open in this process, oldest first, and the signal of a new one."""

    def __init__(self) -> None:
        self._turns: dict[str, Turn] = {}
        self._numbers = itertools.count(1)
        self._opened = asyncio.Event()
        #: Set when the bot's run has ended: no turn will open again.
        self.finished = False

    def open(self, table_id: str, observation: Observation, seconds: float) -> Turn:
        """A new turn for ``observation``, answerable for ``seconds``."""
        turn = Turn(
            f"t{next(self._numbers)}",
            table_id,
            SeatTools.for_observation(observation),
            time.monotonic() + seconds,
            asyncio.get_running_loop().create_future(),
        )
        self._turns[turn.id] = turn
        self._opened.set()
        return turn

    def close(self, turn: Turn) -> None:
        """Forget ``turn`` (answered or out of time)."""
        self._turns.pop(turn.id, None)
        if not self._turns:
            self._opened.clear()

    def find(self, turn_id: str = "") -> Turn | None:
        """The turn named ``turn_id``, or the oldest open one when it is empty."""
        if turn_id:
            return self._turns.get(turn_id)
        return next(iter(self._turns.values()), None)

    async def wait(self, timeout_s: float) -> Turn | None:
        """The oldest open turn, waiting at most ``timeout_s`` for one to open."""
        try:
            await asyncio.wait_for(self._opened.wait(), max(0.0, timeout_s))
        except TimeoutError:
            return None
        return self.find()

    def finish(self) -> None:
        """The bot's run ended."""
        self.finished = True
        self._opened.set()


class McpSeatBot(Bot):
    """The bot side of ``rookery mcp``: each request becomes a turn on ``board``."""

    def __init__(self, board: TurnBoard) -> None:
        self.board = board

    async def act(self, observation: Observation) -> Action:
        left = self.time_left()
        budget = left - max(0.3, left * 0.15) if left else 3600.0
        turn = self.board.open(self.table.table_id, observation, budget)
        try:
            result = await asyncio.wait_for(asyncio.shield(turn.result), budget)
        except TimeoutError:
            raise NoAnswer(
                f"the agent did not play turn {turn.id} in {budget:.1f} s "
                f"({turn.invalid} refused plays)"
            ) from None
        finally:
            self.board.close(turn)
        assert result.action is not None
        self.note(
            result.reason.encode()[:512].decode(errors="ignore"),
            attempts=turn.attempts,
            invalid_replies=turn.invalid,
            latency_ms=round((time.monotonic() - turn.opened) * 1000, 1),
        )
        return result.action


def _look(board: TurnBoard, turn: str, look: Callable[[SeatTools], str]) -> str:
    found = board.find(turn)
    return look(found.tools) if found is not None else _NO_TURN


def build_server(board: TurnBoard, name: str = "rookery") -> MCPServer:
    """The MCP server of ``board``: its tools and the rules resource."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        name,
        instructions=(
            "You play Rook at Rookery tables. Call wait_for_turn; at your turn look with "
            "legal_actions, history and rules, then call play with one legal move before the "
            "time given runs out."
        ),
    )

    @server.tool()
    async def wait_for_turn(timeout_s: float = 30.0) -> str:
        """Wait until it is your turn (at most timeout_s seconds): the turn, or why none."""
        if board.finished and board.find() is None:
            return "the games are over: no turn will open"
        turn = await board.wait(min(timeout_s, 300.0))
        if turn is None:
            return "the games are over" if board.finished else f"no turn within {timeout_s} s"
        return turn.describe()

    @server.tool()
    def legal_actions(turn: str = "") -> str:
        """Your legal moves at the turn (default: the oldest open turn), as play accepts them."""
        return _look(board, turn, SeatTools.legal_actions)

    @server.tool()
    def history(turn: str = "") -> str:
        """What you know at the turn: hand, auction, nest and bury, trump, tricks, scores."""
        return _look(board, turn, SeatTools.history)

    @server.tool()
    def rules(turn: str = "") -> str:
        """The complete rules of the turn's table."""
        return _look(board, turn, SeatTools.rules)

    @server.tool()
    def play(move: str, turn: str = "", reason: str = "") -> str:
        """Make your move at the turn (default: the oldest open one); it ends that turn."""
        found = board.find(turn)
        if found is None or found.result.done():
            return _NO_TURN if not turn else f"no open turn {turn[:20]!r}: call wait_for_turn"
        found.attempts += 1
        result = found.tools.play(move, reason)
        if result.invalid:
            found.invalid += 1
            return result.text
        found.result.set_result(result)
        board.close(found)
        return result.text

    @server.resource(
        "rookery://rules/{preset}",
        name="rules",
        description="The complete rules of a preset, as the seats are told them.",
        mime_type="text/plain",
    )
    def preset_rules(preset: str) -> str:
        if preset not in PRESETS:
            return f"no preset {preset[:40]!r}; the presets: {', '.join(PRESETS)}"
        from .text import rules_summary

        return rules_summary(Ruleset.preset(preset))

    return server
