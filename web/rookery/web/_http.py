"""The dashboard's HTTP server: pages and a read-only JSON API on asyncio streams (stdlib only).

It runs in the game server's event loop, so live views read the tables directly; anything slow
(SQLite, the rating fit, re-simulating a replay) runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import resource
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

import structlog
from rookery.arena.league import League
from rookery.server import RookeryServer, Table, UnknownTableError

from ._errors import UnknownTournamentError
from ._league import LeagueRoutes
from ._model import live_table_json, table_summary_json
from ._pages import page_html
from ._play import PlayRoutes
from ._replays import ReplayRoutes
from ._responses import HttpError, json_bytes, json_response
from ._sources import RunDirectories

__all__ = ["WebServer"]

log = structlog.get_logger("rookery.web")

JSON = dict[str, Any]

_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


class WebServer:
    """The dashboard: ``await WebServer(address, server=..., runs=[...]).start()``.

    ``server`` (a ``rookery.server.RookeryServer``, optional) gives the live tables and the
    replays of its finished tables; ``runs`` are arena run directories (or folders of them) for
    the tournaments. The store of the server's own tournament backend (ArenaService
    ``CreateTournament``: ``$ROOKERY_ARENA_DIR``) is always read too, so that the dashboard
    shows the tournaments it runs. Every response is read-only and public: see docs/web.md.
    """

    def __init__(
        self,
        address: str = "127.0.0.1:8080",
        *,
        server: RookeryServer | None = None,
        runs: Sequence[str | Path] = (),
        poll_interval_s: float = 0.1,
        max_streams: int = 64,
        request_timeout_s: float = 10.0,
        max_connections: int = 256,
        max_connections_per_address: int = 32,
        league: League | None = None,
        warm_bots: Mapping[str, int] | None = None,
    ) -> None:
        self.address = address
        self.server = server
        #: A ``rookery.arena.league.League`` whose pages to serve (``/league``), or None.
        self.league = league
        self.runs = RunDirectories([*runs, *_backend_store(server, runs)])
        self.poll_interval_s = poll_interval_s
        self.max_streams = max_streams
        self.request_timeout_s = request_timeout_s
        self.max_connections = max_connections
        """The most connections open at once; more are answered 503 and closed at once. At
        start it is lowered to a quarter of the process's open-file limit, so that slow
        visitors cannot take the descriptors the game server needs (replays, bots)."""
        self.max_connections_per_address = max_connections_per_address
        """The most connections open at once from one visitor (an IPv4 address, an IPv6 /64):
        more are answered 503 and closed at once, so that one visitor holding connections
        cannot take the pages or a human seat away from the others. At start it is lowered to
        an eighth of ``max_connections``. Behind a reverse proxy every visitor is the proxy:
        raise it there (the proxy should cap its clients itself)."""
        self._connections = 0
        self._by_visitor: dict[str, int] = {}
        self.port = 0
        self._listener: asyncio.Server | None = None
        self._streams = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        """The open connections: ``stop`` closes them itself, as a cancelled handler may not
        end (Python 3.11's ``asyncio.wait_for`` can swallow a cancel that lands as its wait
        completes, and an event stream would then go on)."""
        self._serving = False
        """Between ``start`` and ``stop``: a connection whose handler starts later is closed."""
        self.play = PlayRoutes(server, warm_bots) if server is not None else None
        """The human seats (``/play``); ``warm_bots``: reference bots of each kind started ahead
        for them (``{"pimc": 3}``), so that a person's table starts at once."""
        self.replays = ReplayRoutes(server, self.runs, league)
        """The replays of finished games, their files and their double-dummy analyses."""
        self.league_routes = LeagueRoutes(league)
        self._routes: list[tuple[str, Callable[..., Awaitable[tuple[str, bytes]]]]] = [
            ("api/tournaments", self._api_tournaments),
            ("api/tournaments/*", self._api_tournament),
            ("api/tables", self._api_tables),
            ("api/tables/*", self._api_table),
            ("api/replays/*", self.replays.api_replay),
            ("api/replays/*/file", self.replays.api_replay_file),
            ("api/replays/*/analysis", self.replays.api_replay_analysis),
            ("api/replays/*/par", self.replays.api_replay_par),
            ("healthz", self._health),
            ("", self._page_dashboard),
            ("tournaments/*", self._page_tournament),
            ("tables/*", self._page_table),
            ("replays/*", self._page_replay),
            ("api/league", self.league_routes.api_league),
            ("api/league/bots/*", self.league_routes.api_league_bot),
            ("league", self.league_routes.page_league),
            ("league/bots/*", self.league_routes.page_league_bot),
        ]

    # Running ------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://host:port`` of the dashboard."""
        host = self.address.rpartition(":")[0].strip("[]") or "127.0.0.1"
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Binds the address and starts serving (port 0 picks a free port: see ``port``)."""
        host, _, port = self.address.rpartition(":")
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft != resource.RLIM_INFINITY:
            self.max_connections = max(1, min(self.max_connections, soft // 4))
        self.max_connections_per_address = max(
            1, min(self.max_connections_per_address, self.max_connections // 8)
        )
        self._listener = await asyncio.start_server(
            self._connection, host.strip("[]") or "127.0.0.1", int(port), limit=16384
        )
        self.port = self._listener.sockets[0].getsockname()[1]
        self._serving = True
        if self.play is not None:
            self.play.seats.warm_up()
        log.info("web dashboard started", url=self.url)

    async def stop(self) -> None:
        """Stops listening and ends every open connection (event streams included)."""
        if self.play is not None:
            await self.play.close()
        self._serving = False
        if self._listener is not None:
            self._listener.close()
            for task in list(self._tasks):
                task.cancel()
            for writer in list(self._writers):
                writer.transport.abort()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._listener.wait_closed(), 2.0)
            self._listener = None

    async def __aenter__(self) -> WebServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # HTTP ---------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if not self._serving:
            # Accepted just before ``stop``, started after it: not served (an event stream
            # would otherwise go on after the dashboard stopped).
            writer.close()
            return
        self._tasks.add(task)
        self._writers.add(writer)
        self._connections += 1
        visitor = _visitor(writer.get_extra_info("peername"))
        self._by_visitor[visitor] = self._by_visitor.get(visitor, 0) + 1
        try:
            if self._by_visitor[visitor] > self.max_connections_per_address:
                await self._send_error(
                    writer,
                    HttpError(
                        HTTPStatus.SERVICE_UNAVAILABLE,
                        f"your address has its maximum of {self.max_connections_per_address} "
                        "connections to the dashboard open: close some, or try again later",
                    ),
                )
                return
            if self._connections > self.max_connections:
                await self._send_error(
                    writer,
                    HttpError(
                        HTTPStatus.SERVICE_UNAVAILABLE,
                        f"the dashboard has its maximum of {self.max_connections} connections: "
                        "try again later",
                    ),
                )
                return
            await self._serve_one(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("web request failed")
        finally:
            self._connections -= 1
            left = self._by_visitor[visitor] - 1
            if left:
                self._by_visitor[visitor] = left
            else:
                del self._by_visitor[visitor]
            self._tasks.discard(task)
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.request_timeout_s)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            return
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            await self._send_error(writer, HttpError(HTTPStatus.BAD_REQUEST, "bad request line"))
            return
        method, target, _ = parts
        if self.play is not None and self.play.handles(target):  # the human seats (_play.py)
            await self.play.serve(method, target, head, reader, writer)
            return
        if method not in ("GET", "HEAD"):
            await self._send_error(
                writer,
                HttpError(HTTPStatus.METHOD_NOT_ALLOWED, "read-only: GET and HEAD only"),
                extra={"Allow": "GET, HEAD"},
            )
            return
        raw_path, _, raw_query = target.partition("?")
        path = unquote(raw_path).strip("/")
        query = {k: v[-1] for k, v in parse_qs(raw_query).items()}
        if path.startswith("api/tables/") and path.endswith("/events"):
            await self._stream_table(writer, path.split("/")[2], query)
            return
        try:
            content_type, body = await self._route(path, query)
        except HttpError as error:
            await self._send_error(writer, error)
            return
        await self._send(writer, HTTPStatus.OK, content_type, body, head_only=method == "HEAD")

    async def _route(self, path: str, query: dict[str, str]) -> tuple[str, bytes]:
        segments = path.split("/") if path else []
        for pattern, handler in self._routes:
            expected = pattern.split("/") if pattern else []
            if len(expected) != len(segments):
                continue
            args = []
            for want, have in zip(expected, segments, strict=True):
                if want == "*":
                    if not have:
                        break
                    args.append(have)
                elif want != have:
                    break
            else:
                return await handler(*args, query=query)
        raise HttpError(HTTPStatus.NOT_FOUND, f"no page or API endpoint at /{path}")

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        status: HTTPStatus,
        content_type: str,
        body: bytes,
        *,
        head_only: bool = False,
        extra: dict[str, str] | None = None,
    ) -> None:
        headers = {
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": _CSP,
            "Connection": "close",
            **(extra or {}),
        }
        lines = [f"HTTP/1.1 {status.value} {status.phrase}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if not head_only:
            writer.write(body)
        await writer.drain()

    async def _send_error(
        self, writer: asyncio.StreamWriter, error: HttpError, extra: dict[str, str] | None = None
    ) -> None:
        body = json_bytes({"error": error.message, "status": error.status.value})
        await self._send(writer, error.status, "application/json", body, extra=extra)

    # The JSON API -------------------------------------------------------------------------------

    async def _health(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        return "text/plain; charset=utf-8", b"ok\n"

    async def _api_tournaments(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        lines = await asyncio.to_thread(self.runs.tournaments)
        return json_response({"tournaments": lines})

    async def _api_tournament(self, key: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        try:
            view = await asyncio.to_thread(self.runs.tournament, key)
        except UnknownTournamentError as error:
            raise HttpError(HTTPStatus.NOT_FOUND, str(error)) from None
        tournament_id = view["tournament"]["id"]
        playing = [
            table_summary_json(t)
            for t in self._tables()
            if not t.is_finished and t.spec.tournament_id == tournament_id
        ]
        return json_response({**view, "live_tables": playing})

    def _tables(self) -> list[Table]:
        return [] if self.server is None else self.server.list_tables()

    async def _api_tables(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        finished = query.get("finished", "1") not in ("0", "false", "no")
        tables = [t for t in self._tables() if finished or not t.is_finished]
        return json_response({"tables": [table_summary_json(t) for t in reversed(tables)]})

    def _table(self, table_id: str) -> Table:
        if self.server is None:
            raise HttpError(HTTPStatus.NOT_FOUND, "this dashboard has no game server")
        try:
            return self.server.get_table(table_id)
        except UnknownTableError:
            raise HttpError(HTTPStatus.NOT_FOUND, f"no live table {table_id!r}") from None

    async def _api_table(self, table_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        return json_response(live_table_json(self._table(table_id)))

    async def _stream_table(
        self, writer: asyncio.StreamWriter, table_id: str, query: dict[str, str]
    ) -> None:
        """Server-sent events: the table's public state (``state``) on every change, ``end``
        when the game is over."""
        try:
            table = self._table(table_id)
            if self._streams >= self.max_streams:
                raise HttpError(HTTPStatus.SERVICE_UNAVAILABLE, "too many open event streams")
        except HttpError as error:
            await self._send_error(writer, error)
            return
        self._streams += 1
        try:
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                b"X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n"
            )
            await writer.drain()
            seen: tuple[object, ...] = ()
            last_write = time.monotonic()
            while True:
                mark = (table.status, table.game_seq)
                if mark != seen:
                    seen = mark
                    data = json.dumps(live_table_json(table), separators=(",", ":"))
                    writer.write(f"event: state\ndata: {data}\n\n".encode())
                    last_write = time.monotonic()
                    await asyncio.wait_for(writer.drain(), 10.0)
                if table.is_finished:
                    writer.write(b"event: end\ndata: {}\n\n")
                    await asyncio.wait_for(writer.drain(), 10.0)
                    return
                if time.monotonic() - last_write > 15.0:
                    writer.write(b": keep-alive\n\n")
                    last_write = time.monotonic()
                    await asyncio.wait_for(writer.drain(), 10.0)
                if writer.is_closing() or not self._serving:
                    return
                await asyncio.sleep(self.poll_interval_s)
        except TimeoutError:
            return
        finally:
            self._streams -= 1

    # Pages --------------------------------------------------------------------------------------

    def _page(self, title: str, view: str, item: str = "") -> tuple[str, bytes]:
        boot = {"mode": "live", "view": view, "id": item, "play": self.play is not None}
        return "text/html; charset=utf-8", page_html(title, boot).encode()

    async def _page_dashboard(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        return self._page("Rookery", "dashboard")

    async def _page_tournament(self, key: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        return self._page(f"{key} — Rookery tournament", "tournament", key)

    async def _page_table(self, table_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        return self._page(f"{table_id} — Rookery table", "table", table_id)

    async def _page_replay(self, game_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        return self._page(f"{game_id} — Rookery replay", "replay", game_id)


def _backend_store(server: object, runs: Sequence[str | Path]) -> list[Path]:
    """The store of ``server``'s tournament backend (its ``store_dir``), unless ``runs``
    already name it."""
    store = getattr(getattr(server, "tournaments", None), "store_dir", None)
    if not isinstance(store, Path):
        return []
    named = {Path(p).resolve() for p in runs}
    return [] if store.resolve() in named else [store]


def _visitor(peer: object) -> str:
    """Whom a connection counts against: its IPv4 address, or its IPv6 address's /64 (one
    host is given a whole /64)."""
    host = peer[0] if isinstance(peer, tuple) and peer else str(peer)
    try:
        address = ipaddress.ip_address(str(host).partition("%")[0])
    except ValueError:
        return str(host)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
