"""RookeryServer: the grpc.aio server, its tables and sessions, seating, health and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import time
from collections import OrderedDict
from pathlib import Path

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

from ._arena_service import ArenaServicer
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
from ._limits import raise_open_file_limit
from ._listen import listen_problem
from ._metrics import Metrics, MetricsHttpServer, MetricsInterceptor
from ._ports import SeatedTable, TableHooks
from ._registry import BotRegistry, validate_bot_name
from ._replay_files import SAFE_ID, ReplayFiles
from ._roster import SessionRoster
from ._services import BotServicer, SpectatorServicer, add_bot_service
from ._session import Session
from ._table import Table, TableOutcome, TableSpec, TableStatus
from ._tournament import TournamentBackend
from ._version import SERVER_VERSION

__all__ = ["SERVER_VERSION", "RookeryServer"]

log = structlog.get_logger("rookery.server")


def _shown(table_id: str) -> str:
    """A table id as errors repeat it: at most 128 characters (no amplification)."""
    return table_id if len(table_id) <= 128 else f"{table_id[:128]}… ({len(table_id)} characters)"


_SERVICE_NAMES = (
    bot_service_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    arena_service_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
    spectator_service_pb2.DESCRIPTOR.services_by_name["SpectatorService"].full_name,
)


def _grpc_options(c: ServerConfig) -> list[tuple[str, int]]:
    """The gRPC server's channel options from the configuration."""
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
        server = self._server
        server.metrics.active_tables.dec()
        if table.outcome is not None:
            reason = convert.termination_name(table.outcome.result_proto.reason, proto=True)
            server.metrics.games_finished.labels(reason).inc()
        if table in server._pending:
            server._pending.remove(table)
        server.roster.table_ended(table.id)
        finished = [t for t in server.tables.values() if t.is_finished]
        excess = len(finished) - server.config.finished_tables_kept
        for old in finished[: max(0, excess)]:
            del server.tables[old.id]

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
        self._pending: list[Table] = []
        self._hooks = _Hooks(self)
        self.roster = SessionRoster(
            self.config,
            self.bots,
            self.metrics,
            awaited=lambda bot: any(bot in table.seat_bots() for table in self._pending),
            on_capacity=self.seat_waiting,
            on_rejection=self._hooks.rejection,
            is_stopping=lambda: self._stopping,
        )
        self._sessions = self.roster.by_id
        self._replay_files = ReplayFiles(self.config.replay_dir, log)
        self._bot_seed_key = new_bot_seed_key()
        self._grpc: grpc.aio.Server | None = None
        self._health: HealthServicer | None = None
        self._metrics_http: MetricsHttpServer | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._stopping = False
        self._stopped = asyncio.Event()
        self._withheld_tournaments: set[str] = set()
        self.port = 0
        self.metrics_port = 0
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
        server = grpc.aio.server(interceptors=interceptors, options=_grpc_options(self.config))
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
        self._watchdog = asyncio.get_running_loop().create_task(self.roster.watch_idle())
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
        await self.roster.streams_ended(2.0, self._log)
        if self._metrics_http is not None:
            self._metrics_http.stop()
        self._replay_files.retry(final=True)
        self.bots.close()
        if self.config.unix_socket:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.config.unix_socket)
        self._stopped.set()
        self._log.info("server stopped")

    async def __aenter__(self) -> RookeryServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop(grace_s=0.5)

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
            keyed = bool(spec.seat_keys) and self.roster.is_launch_key(name, spec.seat_keys[seat])
            if self.config.is_token_mode and not keyed and not self.bots.is_active(name):
                raise TableSpecError(f"no registered bot named {name!r}")
        table_id = spec.table_id or "t-" + secrets.token_hex(6)
        if not SAFE_ID.fullmatch(table_id):
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
            replay_writer=(
                (lambda table, replay: self._replay_files.write(table.id, replay))
                if self.config.replay_dir
                else None
            ),
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
            replay = self._replay_files.read(table_id)
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
        self.check_replay_public(table.id, table.spec.tournament_id, table.seed)
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

    @property
    def unwritten_replays(self) -> list[str]:
        """The tables whose replay file is still to be written (retried)."""
        return self._replay_files.unwritten

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
                    if s.free_capacity > 0
                    and s not in chosen
                    and (not key or s.launch_key == key)
                    and s.may_sit_at(table.id)
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
        return self.roster.sessions

    def session(self, session_id: str) -> Session | None:
        """A session (connected or awaiting resume) by id."""
        return self.roster.session(session_id)

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

    def issue_launch_key(self, bot: str, sessions: int = 0) -> str:
        """A secret for one launch of ``bot`` (its ``ROOKERY_TOKEN``): valid as a token in token
        mode, and what binds the seats of a table whose spec names it (``seat_keys``).

        ``sessions``: the most sessions it may hold at once (0: no cap of its own); its
        sessions count against that, never against their address's ``max_sessions_per_peer``.
        """
        return self.roster.issue_launch_key(bot, sessions)

    def revoke_launch_key(self, key: str) -> None:
        """Ends a launch key (its sessions stay; new Hellos with it are refused in token mode)."""
        self.roster.revoke_launch_key(key)

    def issue_seat_key(self, bot: str, table_id: str) -> str:
        """A secret binding one session of ``bot`` to the table ``table_id`` (a person's seat):
        the session whose Hello presents it as its token is seated at that table alone, once,
        and its stream ends with the table's game; the key then ends. It admits one session at
        a time and, in token mode, stands for the bot's token: check that first. A table's
        ``seat_keys`` entry naming it keeps every other session of ``bot`` off that seat."""
        return self.roster.issue_seat_key(bot, table_id)

    @property
    def session_count(self) -> int:
        """Sessions connected or awaiting resume."""
        return len(self.roster.by_id)
