"""RookeryServer: the grpc.aio server, its tables and sessions, seating, health and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
import re
import secrets
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    replay_pb2,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)
from rookery.wire import convert
from rookery.wire.replay import read_replay, write_replay

from ._auth import AdminInterceptor, BotsOnlyOnUnixSocket
from ._bot_seeds import new_bot_seed_key
from ._config import ServerConfig
from ._decoding import MalformedRequestInterceptor
from ._errors import (
    AddressUnavailableError,
    ServerStoppingError,
    TableNotFinishedError,
    TableSpecError,
    UnknownTableError,
)
from ._league import LeagueBackend
from ._limits import open_file_limit, raise_open_file_limit
from ._listen import listen_problem
from ._metrics import Metrics, MetricsHttpServer, MetricsInterceptor
from ._ports import SeatedTable, TableHooks
from ._registry import BotRegistry, validate_bot_name
from ._services import ArenaServicer, BotServicer, SpectatorServicer, add_bot_service
from ._session import Session
from ._table import Table, TableOutcome, TableSpec, TableStatus
from ._tournament import TournamentBackend
from ._version import SERVER_VERSION

__all__ = ["SERVER_VERSION", "RookeryServer"]

log = structlog.get_logger("rookery.server")


_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
_REPLAY_RETRY_S = 0.2
_REPLAY_RETRY_FOR_S = 600.0
"""How long a replay file is retried (out of file descriptors) before it is reported lost."""


def _shown(table_id: str) -> str:
    """A table id as errors repeat it: at most 128 characters (no amplification)."""
    return table_id if len(table_id) <= 128 else f"{table_id[:128]}… ({len(table_id)} characters)"


_SERVICE_NAMES = (
    bot_service_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    arena_service_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
    spectator_service_pb2.DESCRIPTOR.services_by_name["SpectatorService"].full_name,
)


class _Hooks(TableHooks):
    def __init__(self, server: RookeryServer) -> None:
        self._server = server
        metrics = server.metrics
        self._actions = metrics.actions
        self._timeouts = metrics.timeouts
        self._rejections = metrics.rejections

    def table_started(self, table: SeatedTable) -> None:
        pass

    def table_finished(self, table: SeatedTable) -> None:
        assert isinstance(table, Table)  # the server's hooks are given its own tables
        self._server._table_finished(table)

    def action_done(self, outcome: str, latency_s: float | None) -> None:
        if latency_s is None:
            self._actions.auto_play()
        else:
            self._actions.accept(latency_s)

    def timeout(self) -> None:
        self._timeouts.inc()

    def rejection(self, reason: str) -> None:
        self._rejections.labels(reason).inc()


def _read_key_pair(key: str, cert: str) -> tuple[bytes, bytes]:
    return Path(key).read_bytes(), Path(cert).read_bytes()


class RookeryServer:
    """The whole server in one asyncio loop: start it, create tables, stop it.

    ``tournaments`` is the optional :class:`TournamentBackend` the ArenaService tournament RPCs
    call (the arena sets it; it may also be assigned after construction).
    """

    def __init__(
        self,
        config: ServerConfig | None = None,
        tournaments: TournamentBackend | None = None,
    ) -> None:
        self.config = config or ServerConfig()
        self.tournaments = tournaments
        #: The optional :class:`LeagueBackend` of the ArenaService league RPCs (the arena's).
        self.league: LeagueBackend | None = None
        self.metrics = Metrics()
        self.bots = BotRegistry(self.config.db or ":memory:")
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self._sessions: dict[str, Session] = {}
        self._pending: list[Table] = []
        self._hooks = _Hooks(self)
        self._bot_seed_key = new_bot_seed_key()
        self._grpc: Any = None
        self._health: HealthServicer | None = None
        self._metrics_http: MetricsHttpServer | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._stopping = False
        self._stopped = asyncio.Event()
        self._withheld_tournaments: set[str] = set()
        self._watchers_by_peer: dict[str, int] = {}
        self._unwritten: dict[str, tuple[replay_pb2.Replay, float]] = {}
        """Replays whose file could not be written yet (out of file descriptors): retried."""
        self._retry: asyncio.TimerHandle | None = None
        self.port = 0
        self.metrics_port = 0
        self._launch_keys: dict[str, str] = {}
        self._launch_sessions: dict[str, int] = {}
        """The most sessions each launch key may hold at once (absent: no cap of its own)."""
        self._log = log

    # Running ------------------------------------------------------------------------------------

    @property
    def target(self) -> str:
        """``host:port`` for clients of this server."""
        host = self.config.address.rpartition(":")[0] or "127.0.0.1"
        if host in ("0.0.0.0", "[::]", "::", ""):
            host = "127.0.0.1"
        return f"{host}:{self.port}"

    @property
    def is_stopping(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopping

    def _grpc_options(self) -> list[tuple[str, Any]]:
        c = self.config
        return [
            ("grpc.max_receive_message_length", c.max_message_bytes),
            ("grpc.max_send_message_length", c.max_send_message_bytes),
            ("grpc.keepalive_time_ms", int(c.keepalive_time_s * 1000)),
            ("grpc.keepalive_timeout_ms", int(c.keepalive_timeout_s * 1000)),
            ("grpc.keepalive_permit_without_calls", 1),
            (
                "grpc.http2.min_recv_ping_interval_without_data_ms",
                int(c.min_client_ping_interval_s * 1000),
            ),
            (
                "grpc.http2.min_ping_interval_without_data_ms",
                int(c.min_client_ping_interval_s * 1000),
            ),
            ("grpc.http2.max_ping_strikes", 2),
            ("grpc.so_reuseport", 0),
        ]

    async def start(self) -> None:
        """Binds the port, starts serving, health SERVING; the metrics endpoint if configured."""
        c = self.config
        before, after = raise_open_file_limit()
        if after != before:
            self._log.info("open file limit raised", soft_before=before, soft=after)
        interceptors = [
            MetricsInterceptor(self.metrics),
            AdminInterceptor(c.admin_token, required=c.is_token_mode),
            MalformedRequestInterceptor(),
            BotsOnlyOnUnixSocket(),
        ]
        server = grpc.aio.server(interceptors=interceptors, options=self._grpc_options())
        add_bot_service(BotServicer(self), server)
        arena_service_pb2_grpc.add_ArenaServiceServicer_to_server(ArenaServicer(self), server)
        spectator_service_pb2_grpc.add_SpectatorServiceServicer_to_server(
            SpectatorServicer(self), server
        )
        self._health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        names = (*_SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
        reflection.enable_server_reflection((*names, reflection.SERVICE_NAME), server)
        problem = listen_problem(c.address)
        if problem:
            raise AddressUnavailableError(c.address, problem)
        try:
            if c.is_tls:
                credentials = grpc.ssl_server_credentials([_read_key_pair(c.tls_key, c.tls_cert)])
                self.port = server.add_secure_port(c.address, credentials)
            else:
                self.port = server.add_insecure_port(c.address)
        except RuntimeError:  # "Failed to bind", after a plain socket could
            raise AddressUnavailableError(c.address, "gRPC could not bind it") from None
        if c.unix_socket:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(c.unix_socket)
            try:
                server.add_insecure_port(f"unix:{c.unix_socket}")
            except RuntimeError:
                raise AddressUnavailableError(
                    f"unix:{c.unix_socket}",
                    "its folder is missing or not writable, or the path is longer than a "
                    "socket's 107 bytes",
                ) from None
        await server.start()
        if c.unix_socket:
            os.chmod(c.unix_socket, 0o666)  # the sandboxed bots' own user ids connect to it
        self._grpc = server
        for name in ("", *names):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if c.metrics_address:
            self._metrics_http = MetricsHttpServer(self.metrics, c.metrics_address)
            self.metrics_port = self._metrics_http.port
        self._watchdog = asyncio.get_running_loop().create_task(self._watch_idle())
        self._log.info(
            "server started",
            address=self.target,
            auth=c.auth,
            tls=c.is_tls,
            metrics_port=self.metrics_port or None,
        )

    async def stop(self, grace_s: float = 5.0) -> None:
        """Health NOT_SERVING; no new tables; running tables get ``grace_s`` to finish, the rest
        are aborted; then the sessions are closed and the server stops."""
        if self._stopping:
            await self._stopped.wait()
            return
        self._stopping = True
        self._log.info("server stopping", grace_s=grace_s)
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        for table in list(self._pending):
            table.abort("the server is shutting down")
        running = [t for t in self.tables.values() if not t.is_finished]
        if running:
            waits = [asyncio.ensure_future(t.wait_finished()) for t in running]
            _, pending = await asyncio.wait(waits, timeout=grace_s)
            for future in pending:
                future.cancel()
        for table in list(self.tables.values()):
            table.abort("the server is shutting down")
        for table in list(self.tables.values()):
            if table.task is not None and not table.task.done():
                try:
                    await asyncio.wait_for(asyncio.shield(table.task), 2.0)
                except TimeoutError:
                    table.task.cancel()
        for session in list(self._sessions.values()):
            session.close(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._grpc is not None:
            await self._grpc.stop(min(grace_s, 1.0))
        await self._streams_ended(2.0)
        if self._metrics_http is not None:
            self._metrics_http.stop()
        self._write_unwritten(final=True)
        self.bots.close()
        if self.config.unix_socket:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.config.unix_socket)
        self._stopped.set()
        self._log.info("server stopped")

    async def _streams_ended(self, timeout_s: float) -> None:
        """Waits (at most ``timeout_s``) for the streams of the sessions to finish their
        handlers: gRPC may report the server stopped before a handler aborted by it has run its
        last lines, and "server stopped" is the server's last word."""
        deadline = time.monotonic() + timeout_s
        while any(s.is_attached for s in self._sessions.values()):
            if time.monotonic() > deadline:
                self._log.warning(
                    "streams still open at stop",
                    streams=sum(s.is_attached for s in self._sessions.values()),
                )
                return
            await asyncio.sleep(0.01)

    async def wait_for_termination(self) -> None:
        """Waits until :meth:`stop` has finished."""
        await self._stopped.wait()

    async def __aenter__(self) -> RookeryServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop(grace_s=0.5)

    async def _watch_idle(self) -> None:
        idle = self.config.idle_timeout_s
        period = max(0.05, min(1.0, idle / 4)) if idle else 1.0
        while True:
            await asyncio.sleep(period)
            if not idle:
                continue
            now = time.monotonic()
            for session in list(self._sessions.values()):
                if session.is_attached and now - session.last_heard > idle:
                    session.close(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"no message from the bot for {idle:g} s (idle timeout): send a Ping "
                        "when otherwise silent",
                    )

    # Tables -------------------------------------------------------------------------------------

    async def create_table(self, spec: TableSpec) -> Table:
        """Creates a table; it starts as soon as every seat can be given a connected session."""
        if self._stopping:
            raise ServerStoppingError("the server is shutting down: no new tables")
        for seat, name in enumerate(spec.seat_bots):
            try:
                validate_bot_name(name)
            except ValueError as error:
                raise TableSpecError(str(error)) from None
            # A seat bound to a live launch key of its bot (a league's version) needs no
            # registry entry: only the process given that key can take it.
            keyed = bool(spec.seat_keys) and self.is_launch_key(name, spec.seat_keys[seat])
            if self.config.is_token_mode and not keyed and not self.bots.is_active(name):
                raise TableSpecError(f"no registered bot named {name!r}")
        table_id = spec.table_id or "t-" + secrets.token_hex(6)
        if not _SAFE_ID.fullmatch(table_id):
            raise TableSpecError(
                f"invalid table id {table_id!r}: use up to 128 letters, digits, '.', '_', '-'"
            )
        if table_id in self.tables:
            raise TableSpecError(f"a table with id {table_id!r} exists already")
        seed = spec.seed if spec.seed is not None else secrets.randbits(64)
        if spec.bot_seed_key is None:
            spec = dataclasses.replace(spec, bot_seed_key=self._bot_seed_key)
        table = Table(
            table_id,
            spec,
            seed,
            spec.time_control or self.config.time_control,
            hooks=self._hooks,
            server_version=SERVER_VERSION,
            replay_writer=self._write_replay if self.config.replay_dir else None,
        )
        self.tables[table_id] = table
        self.metrics.active_tables.inc()
        self._pending.append(table)
        table.start()
        self.seat_waiting()
        log.info("table created", table=table_id, bots=list(spec.seat_bots))
        return table

    def get_table(self, table_id: str) -> Table:
        """The table ``table_id``; :class:`UnknownTableError` if the server does not know it."""
        table = self.tables.get(table_id)
        if table is None:
            raise UnknownTableError(f"no table {_shown(table_id)!r}")
        return table

    def list_tables(self, status: TableStatus | None = None) -> list[Table]:
        """Every table in memory, oldest first (``status``: only those)."""
        return [t for t in self.tables.values() if status is None or t.status is status]

    def abort_table(self, table_id: str, detail: str = "aborted by the organiser") -> Table:
        """Aborts a table's game (no winner)."""
        table = self.get_table(table_id)
        table.abort(detail)
        return table

    def replay(self, table_id: str) -> replay_pb2.Replay:
        """A finished game's replay; :class:`TableNotFinishedError` while it is being played."""
        table = self.tables.get(table_id)
        if table is None:
            unwritten = self._unwritten.get(table_id)
            replay = unwritten[0] if unwritten else self._read_replay_file(table_id)
            if replay is None:
                raise UnknownTableError(f"no table {_shown(table_id)!r}")
            # Evicted from memory, read from its file: the same withholding applies.
            header = replay.header
            self.check_replay_public(table_id, header.tournament_id, header.seed)
            return replay
        if table.outcome is None:
            raise TableNotFinishedError(
                f"table {table_id!r} is still {table.status.name.lower()}: its replay is "
                "available once the game has ended"
            )
        self._check_not_withheld(table)
        return table.outcome.replay

    def withhold_replays(self, tournament_id: str) -> None:
        """Withholds the replays of ``tournament_id``'s tables until :meth:`release_replays`.

        A tournament plays each seed more than once (duplicate pairs, every pairing of a round):
        the replay of a finished game would show the deal of a game still to be played. The arena
        withholds its tournament's replays while it runs.
        """
        self._withheld_tournaments.add(tournament_id)

    def release_replays(self, tournament_id: str) -> None:
        """Ends :meth:`withhold_replays` for ``tournament_id``."""
        self._withheld_tournaments.discard(tournament_id)

    def _check_not_withheld(self, table: Table) -> None:
        """Refuses a finished table's replay while it would reveal a deal still in play."""
        self.check_replay_public(table.id, table.spec.tournament_id, table.seed)

    def check_replay_public(self, table_id: str, tournament_id: str, seed: int) -> None:
        """:class:`TableNotFinishedError` while the replay of the finished table ``table_id``
        (of ``tournament_id``, dealt from ``seed``) would reveal a deal still in play: its
        tournament is running, or a table in memory is playing the same seed."""
        if tournament_id and tournament_id in self._withheld_tournaments:
            raise TableNotFinishedError(
                f"table {table_id!r} belongs to tournament {tournament_id!r}, which is still "
                "running: its replays are withheld until it ends, since its seeds are played "
                "again"
            )
        for other in self.tables.values():
            if other.id != table_id and other.outcome is None and other.seed == seed:
                raise TableNotFinishedError(
                    f"table {table_id!r} was dealt from the same seed as a game still being "
                    "played: its replay is withheld until that game ends"
                )

    async def play(self, spec: TableSpec) -> TableOutcome:
        """Creates a table and waits for its outcome."""
        table = await self.create_table(spec)
        return await table.wait_finished()

    def _table_finished(self, table: Table) -> None:
        self.metrics.active_tables.dec()
        if table.outcome is not None:
            reason = convert.termination_name(table.outcome.result_proto.reason, proto=True)
            self.metrics.games_finished.labels(reason).inc()
        if table in self._pending:
            self._pending.remove(table)
        finished = [t for t in self.tables.values() if t.is_finished]
        excess = len(finished) - self.config.finished_tables_kept
        for old in finished[: max(0, excess)]:
            del self.tables[old.id]

    def _replay_path(self, table_id: str) -> Path:
        return Path(self.config.replay_dir) / f"{table_id}.jsonl.gz"

    def _write_replay(self, table: Table, replay: replay_pb2.Replay) -> None:
        """Writes a finished table's replay file; out of file descriptors, it is kept and
        retried (never dropped silently); any other failure is raised to the table's log."""
        try:
            self._write_replay_file(table.id, replay)
        except OSError as error:
            if error.errno not in _OUT_OF_FILES:
                raise
            self._unwritten[table.id] = (replay, time.monotonic())
            self._log.warning(
                "replay not written yet: out of file descriptors, retrying",
                table=table.id,
                error=str(error),
                open_file_limit=open_file_limit(),
            )
            self._schedule_retry()

    def _write_replay_file(self, table_id: str, replay: replay_pb2.Replay) -> None:
        Path(self.config.replay_dir).mkdir(parents=True, exist_ok=True)
        write_replay(self._replay_path(table_id), replay)

    def _schedule_retry(self) -> None:
        if self._retry is None and self._unwritten:
            self._retry = asyncio.get_running_loop().call_later(
                _REPLAY_RETRY_S, self._write_unwritten
            )

    def _write_unwritten(self, final: bool = False) -> None:
        """Retries the replays not written yet; gives up loudly after ``_REPLAY_RETRY_FOR_S``
        (or at shutdown, ``final``)."""
        self._retry = None
        for table_id, (replay, since) in list(self._unwritten.items()):
            try:
                self._write_replay_file(table_id, replay)
            except OSError as error:
                if final or time.monotonic() - since > _REPLAY_RETRY_FOR_S:
                    del self._unwritten[table_id]
                    self._log.error(
                        "replay LOST: its file could not be written",
                        table=table_id,
                        error=str(error),
                        path=str(self._replay_path(table_id)),
                    )
                continue
            del self._unwritten[table_id]
            self._log.info("replay written after a retry", table=table_id)
        if not final:
            self._schedule_retry()

    @property
    def unwritten_replays(self) -> list[str]:
        """The tables whose replay file is still to be written (retried)."""
        return list(self._unwritten)

    def _read_replay_file(self, table_id: str) -> replay_pb2.Replay | None:
        if not self.config.replay_dir or not _SAFE_ID.fullmatch(table_id):
            return None
        path = self._replay_path(table_id)
        return read_replay(path) if path.is_file() else None

    # Seating ------------------------------------------------------------------------------------

    def seat_waiting(self) -> None:
        """Seats every waiting table for which each seat can get a distinct, free session."""
        if not self._pending:
            return
        by_bot: dict[str, list[Session]] = {}
        for session in self._sessions.values():
            if session.is_attached and session.free_capacity > 0:
                by_bot.setdefault(session.bot, []).append(session)
        for table in list(self._pending):
            if table.is_finished:
                self._pending.remove(table)
                continue
            chosen: list[Session] = []
            keys = table.spec.seat_keys
            for index, bot in enumerate(table.seat_bots()):
                key = keys[index] if keys else ""
                candidates = [
                    s
                    for s in by_bot.get(bot, ())
                    if s.free_capacity > 0 and s not in chosen and (not key or s.launch_key == key)
                ]
                if not candidates:
                    break
                chosen.append(max(candidates, key=lambda s: s.free_capacity))
            else:
                self._pending.remove(table)
                table.seat(chosen)

    # Sessions -----------------------------------------------------------------------------------

    @property
    def sessions(self) -> dict[str, list[Session]]:
        """Connected sessions by bot name."""
        result: dict[str, list[Session]] = {}
        for session in self._sessions.values():
            if session.is_attached:
                result.setdefault(session.bot, []).append(session)
        return result

    def session(self, session_id: str) -> Session | None:
        """A session (connected or awaiting resume) by id."""
        return self._sessions.get(session_id)

    async def wait_for_bot(
        self,
        name: str,
        sessions: int = 1,
        timeout: float = 10.0,  # noqa: ASYNC109 - the documented in-process API
    ) -> None:
        """Waits until ``sessions`` sessions of bot ``name`` are connected (TimeoutError after)."""
        deadline = time.monotonic() + timeout
        while len(self.sessions.get(name, ())) < sessions:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{sessions} session(s) of bot {name!r} did not connect within {timeout:g} s"
                )
            await asyncio.sleep(0.01)

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
        launched = self.is_launch_key(bot, key)
        if launched:
            budget = self._launch_sessions.get(key, 0)
            of_key = sum(1 for s in self._sessions.values() if s.launch_key == key)
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
        total = len(self._sessions)
        if total >= c.max_sessions:
            return f"the server has its maximum of {c.max_sessions} sessions"
        of_bot = sum(1 for s in self._sessions.values() if s.bot == bot)
        if of_bot >= c.max_sessions_per_bot:
            return (
                f"bot {bot!r} has {of_bot} sessions already: at most {c.max_sessions_per_bot} "
                "per bot (max_sessions_per_bot); a session plays up to max_tables tables at once"
            )
        of_peer = sum(1 for s in self._sessions.values() if s.peer == peer and not s.launch_key)
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
        return any(bot in table.seat_bots() for table in self._pending)

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
        """A secret for one launch of ``bot`` (its ``ROOKERY_TOKEN``): valid as a token in token
        mode, and what binds the seats of a table whose spec names it (``seat_keys``).

        ``sessions``: the most sessions it may hold at once (0: no cap of its own); its
        sessions count against that, never against their address's ``max_sessions_per_peer``.
        """
        key = "rl_" + secrets.token_urlsafe(24)
        self._launch_keys[key] = bot
        if sessions:
            self._launch_sessions[key] = sessions
        return key

    def revoke_launch_key(self, key: str) -> None:
        """Ends a launch key (its sessions stay; new Hellos with it are refused in token mode)."""
        self._launch_keys.pop(key, None)
        self._launch_sessions.pop(key, None)

    def is_launch_key(self, bot: str, key: str) -> bool:
        """Whether ``key`` is a live launch key of ``bot``."""
        return bool(key) and self._launch_keys.get(key) == bot

    def open_session(self, hello: bot_service_pb2.Hello, *, peer: str = "") -> Session:
        """A new session for a Hello that passed authentication (and admission)."""
        c = self.config
        if self._stopping:
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
            on_capacity=self.seat_waiting,
            on_rejection=self._hooks.rejection,
            wants_events=not hello.observations_only,
            batching=hello.batching,
            defers_events=hello.defer_events,
            wants_card_masks=hello.card_masks,
            groups_events=hello.group_events,
            peer=peer,
        )
        if self.is_launch_key(hello.name, hello.token):
            session.launch_key = hello.token
        self._sessions[session.id] = session
        self.metrics.active_sessions.set(len(self._sessions))
        if not c.is_token_mode:
            self.bots.note_seen(hello.name, hello.version)
        else:
            self.bots.note_version(hello.name, hello.version)
        return session

    @property
    def session_count(self) -> int:
        """Sessions connected or awaiting resume."""
        return len(self._sessions)

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
        if self._sessions.pop(session.id, None) is not None:
            self.metrics.active_sessions.set(len(self._sessions))
            if session.expiry is not None:
                session.expiry.cancel()
                session.expiry = None
