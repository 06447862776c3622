"""A server's bot sessions: who may open one (the caps, the reserved slots, launch keys), the
sessions open or awaiting resume, and the spectator streams open per network address."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable

import grpc
from rookery.v1 import bot_service_pb2
from structlog.typing import FilteringBoundLogger

from ._config import ServerConfig
from ._errors import ServerStoppingError
from ._metrics import Metrics
from ._registry import BotRegistry
from ._session import Session

__all__ = ["SessionRoster"]


class SessionRoster:
    """The sessions of one server, by id, and what admits a new one.

    ``awaited(bot)`` says whether a waiting table names ``bot`` (it may take a reserved slot);
    ``on_capacity`` runs when a session can take another table (the server seats its tables);
    ``on_rejection`` counts a refused reply; ``is_stopping`` refuses new sessions at shutdown.
    """

    def __init__(
        self,
        config: ServerConfig,
        bots: BotRegistry,
        metrics: Metrics,
        *,
        awaited: Callable[[str], bool],
        on_capacity: Callable[[], None],
        on_rejection: Callable[[str], None],
        is_stopping: Callable[[], bool],
    ) -> None:
        self.config = config
        self.by_id: dict[str, Session] = {}
        """Every session connected or awaiting resume."""
        self._bots = bots
        self._metrics = metrics
        self._awaited = awaited
        self._on_capacity = on_capacity
        self._on_rejection = on_rejection
        self._is_stopping = is_stopping
        self._watchers_by_peer: dict[str, int] = {}
        self._launch_keys: dict[str, str] = {}
        self._launch_sessions: dict[str, int] = {}
        """The most sessions each launch key may hold at once (absent: no cap of its own)."""
        self._seat_tables: dict[str, str] = {}
        """The table each seat key (a launch key for one session) binds its session to."""

    @property
    def sessions(self) -> dict[str, list[Session]]:
        """Connected sessions by bot name."""
        result: dict[str, list[Session]] = {}
        for session in self.by_id.values():
            if session.is_attached:
                result.setdefault(session.bot, []).append(session)
        return result

    def session(self, session_id: str) -> Session | None:
        """A session (connected or awaiting resume) by id."""
        return self.by_id.get(session_id)

    def admission_problem(self, bot: str, peer: str, key: str = "") -> str:
        """Why a new session of ``bot`` from ``peer`` is refused ("" when it is admitted).

        Caps: ``max_sessions`` in all, ``max_sessions_per_bot`` per name (per token),
        ``max_sessions_per_peer`` per network address; the last ``reserved_sessions`` go only to
        bots a waiting table names and, in token mode, to a registered bot's first session.

        A session presenting a live launch key (``key``, its Hello's token) is a peer of its own,
        limited to the sessions the key was issued for. The Unix socket is the sandboxed bots'
        way in, one address for all of them: it admits only such sessions.
        """
        c = self.config
        sessions = self.by_id
        launched = self.is_launch_key(bot, key)
        if launched:
            budget = self._launch_sessions.get(key, 0)
            of_key = sum(1 for s in sessions.values() if s.launch_key == key)
            if budget and of_key >= budget and key in self._seat_tables:
                return f"the seat key of {bot!r} has its one session already"
            if budget and of_key >= budget:
                return (
                    f"the launch key of bot {bot!r} has {of_key} sessions already: a launched "
                    f"process may open the {budget} it was started for"
                )
        elif peer.startswith("unix:"):
            return (
                "the Unix socket admits only launched bots' sessions, each with its launch key "
                "(the ROOKERY_TOKEN the arena gave it) as Hello.token"
            )
        total = len(sessions)
        if total >= c.max_sessions:
            return f"the server has its maximum of {c.max_sessions} sessions"
        of_bot = sum(1 for s in sessions.values() if s.bot == bot)
        if of_bot >= c.max_sessions_per_bot:
            return (
                f"bot {bot!r} has {of_bot} sessions already: at most {c.max_sessions_per_bot} "
                "per bot (max_sessions_per_bot); a session plays up to max_tables tables at once"
            )
        of_peer = sum(1 for s in sessions.values() if s.peer == peer and not s.launch_key)
        if not launched and of_peer >= c.max_sessions_per_peer:
            return (
                f"{peer} has {of_peer} sessions already: at most {c.max_sessions_per_peer} per "
                "network address (max_sessions_per_peer)"
            )
        reserved = c.sessions_reserved
        if total >= c.max_sessions - reserved and not self._is_awaited(bot, of_bot):
            return (
                f"the server has {total} sessions: the last {reserved} are reserved for bots "
                "a waiting table names (and registered bots' first sessions)"
            )
        return ""

    def _is_awaited(self, bot: str, sessions_of_bot: int) -> bool:
        """Whether a new session of ``bot`` may take a reserved slot."""
        if self.config.is_token_mode and sessions_of_bot == 0:
            return True
        return self._awaited(bot)

    def watchers_of(self, peer: str) -> int:
        """Spectator streams open from ``peer``."""
        return self._watchers_by_peer.get(peer, 0)

    def watcher_opened(self, peer: str) -> None:
        self._watchers_by_peer[peer] = self._watchers_by_peer.get(peer, 0) + 1

    def watcher_closed(self, peer: str) -> None:
        left = self._watchers_by_peer.get(peer, 0) - 1
        if left > 0:
            self._watchers_by_peer[peer] = left
        else:
            self._watchers_by_peer.pop(peer, None)

    def issue_launch_key(self, bot: str, sessions: int = 0) -> str:
        """A secret for one launch of ``bot`` (see ``RookeryServer.issue_launch_key``)."""
        key = "rl_" + secrets.token_urlsafe(24)
        self._launch_keys[key] = bot
        if sessions:
            self._launch_sessions[key] = sessions
        return key

    def revoke_launch_key(self, key: str) -> None:
        """Ends a launch key (its sessions stay; new Hellos with it are refused in token mode)."""
        self._launch_keys.pop(key, None)
        self._launch_sessions.pop(key, None)
        self._seat_tables.pop(key, None)

    def issue_seat_key(self, bot: str, table_id: str) -> str:
        """A launch key for one session of ``bot``, bound to the table ``table_id`` alone."""
        key = self.issue_launch_key(bot, sessions=1)
        self._seat_tables[key] = table_id
        return key

    def table_ended(self, table_id: str) -> None:
        """The game at ``table_id`` ended: the seat keys bound to it end too."""
        for key in [k for k, table in self._seat_tables.items() if table == table_id]:
            self.revoke_launch_key(key)

    def is_launch_key(self, bot: str, key: str) -> bool:
        """Whether ``key`` is a live launch key of ``bot``."""
        return bool(key) and self._launch_keys.get(key) == bot

    def open_session(self, hello: bot_service_pb2.Hello, *, peer: str = "") -> Session:
        """A new session for a Hello that passed authentication (and admission)."""
        c = self.config
        if self._is_stopping():
            raise ServerStoppingError("the server is shutting down")
        max_tables = min(hello.max_tables or 1, c.max_tables_per_session)
        session = Session(
            hello.name,
            hello.version,
            hello.client,
            max_tables,
            queue_size=c.send_queue_size,
            rate=c.action_rate,
            burst=c.action_burst,
            on_capacity=self._on_capacity,
            on_rejection=self._on_rejection,
            wants_events=not hello.observations_only,
            batching=hello.batching,
            defers_events=hello.defer_events,
            wants_card_masks=hello.card_masks,
            groups_events=hello.group_events,
            peer=peer,
        )
        if self.is_launch_key(hello.name, hello.token):
            session.launch_key = hello.token
            session.bound_table = self._seat_tables.get(hello.token, "")
        self.by_id[session.id] = session
        self._metrics.active_sessions.set(len(self.by_id))
        if not c.is_token_mode:
            self._bots.note_seen(hello.name, hello.version)
        else:
            self._bots.note_version(hello.name, hello.version)
        return session

    def session_detached(self, session: Session) -> None:
        """A session's stream ended: keep it for resuming while it holds seats, else forget it."""
        if not session.has_unfinished_business:
            self._forget(session)
            return
        grace_ms = max(
            [self.config.time_control.grace_ms]
            + [table.time_control.grace_ms for table, _ in session.seats()]
        )
        for table, seat in session.seats():
            table.seat_disconnected(seat)
        session.expiry = asyncio.get_running_loop().call_later(
            grace_ms / 1000.0 + 0.1, self._expire, session
        )

    def _expire(self, session: Session) -> None:
        session.expiry = None
        if not session.is_attached:
            self._forget(session)

    def _forget(self, session: Session) -> None:
        if self.by_id.pop(session.id, None) is not None:
            self._metrics.active_sessions.set(len(self.by_id))
            if session.expiry is not None:
                session.expiry.cancel()
                session.expiry = None

    async def streams_ended(self, timeout_s: float, log: FilteringBoundLogger) -> None:
        """Waits (at most ``timeout_s``) for the streams of the sessions to finish their
        handlers: gRPC may report the server stopped before a handler aborted by it has run its
        last lines, and "server stopped" is the server's last word."""
        deadline = time.monotonic() + timeout_s
        while any(s.is_attached for s in self.by_id.values()):
            if time.monotonic() > deadline:
                log.warning(
                    "streams still open at stop",
                    streams=sum(s.is_attached for s in self.by_id.values()),
                )
                return
            await asyncio.sleep(0.01)

    async def watch_idle(self) -> None:
        """Closes every stream silent for the idle timeout (``idle_timeout_s``), forever."""
        idle = self.config.idle_timeout_s
        period = max(0.05, min(1.0, idle / 4)) if idle else 1.0
        while True:
            await asyncio.sleep(period)
            if not idle:
                continue
            now = time.monotonic()
            for session in list(self.by_id.values()):
                if session.is_attached and now - session.last_heard > idle:
                    session.close(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"no message from the bot for {idle:g} s (idle timeout): send a Ping "
                        "when otherwise silent",
                    )
