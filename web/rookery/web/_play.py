"""The human seat's pages and API: ``/play`` (choose a table), ``/play/<seat>`` (play it).

- ``GET /play``: the setup page (rules, your seat, a bot for every other seat, the clock).
- ``GET /play/<seat>``: the game page of one human seat.
- ``GET /api/play``: what the setup page offers (presets, bots, token mode).
- ``POST /api/play``: open a seat, JSON ``{preset, seat, bots, name, token, target, action_s,
  seed}``; answers ``{seat_id, secret, url}``.
- ``GET /api/play/<seat>``: the seat's view (header ``X-Rookery-Seat: <secret>``).
- ``GET /api/play/<seat>/events?key=<secret>``: server-sent events, ``state`` on every change,
  ``end`` after the game.
- ``POST /api/play/<seat>/action``: ``{request_id, action}`` (the action's text form), header
  ``X-Rookery-Seat``.
- ``POST /api/play/<seat>/compare``: ``{bot}``, after the game: the same deals with that bot in
  the seat; answers ``{table_id, bot, url}``.

Everything but the setup is for the holder of the seat's secret only, and shows only what that
seat's session received from the game server.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import time
from collections.abc import Mapping
from http import HTTPStatus
from urllib.parse import parse_qs, unquote

import structlog
from rookery.server import RookeryServer
from rookery.wire.documents import JsonValue

from ._human import HumanSeat, HumanSeatError, HumanSeats, SeatRequest
from ._pages import _asset, _script_json

__all__ = ["PlayRoutes"]

log = structlog.get_logger("rookery.web.play")

_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
_MAX_BODY = 16384


class _Refused(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class PlayRoutes:
    """The human seat's routes on the dashboard's HTTP server (``handles``, then ``serve``)."""

    def __init__(self, server: RookeryServer, warm_bots: Mapping[str, int] | None = None) -> None:
        self.seats = HumanSeats(server, warm_bots)

    @staticmethod
    def handles(target: str) -> bool:
        """Whether a request target is one of these routes."""
        path = unquote(target.partition("?")[0]).strip("/")
        return path in ("play", "api/play") or path.startswith(("play/", "api/play/"))

    async def close(self) -> None:
        """End every human seat (its session, its launched bots)."""
        await self.seats.close()

    async def serve(
        self,
        method: str,
        target: str,
        head: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Answer one request whose head has been read."""
        raw_path, _, raw_query = target.partition("?")
        path = unquote(raw_path).strip("/")
        query = {k: v[-1] for k, v in parse_qs(raw_query).items()}
        headers = _headers(head)
        try:
            if method not in ("GET", "HEAD", "POST"):
                raise _Refused(HTTPStatus.METHOD_NOT_ALLOWED, "GET, HEAD or POST only")
            parts = path.split("/")
            if method == "POST":
                body = await _body(reader, headers)
                _same_origin(headers)
                if path == "api/play":
                    await self._open(writer, body)
                    return
                if len(parts) == 4 and parts[:2] == ["api", "play"] and parts[3] == "action":
                    seat = self._seat(parts[2], headers.get("x-rookery-seat", ""))
                    await self._act(writer, seat, body)
                    return
                if len(parts) == 4 and parts[:2] == ["api", "play"] and parts[3] == "compare":
                    seat = self._seat(parts[2], headers.get("x-rookery-seat", ""))
                    await self._compare(writer, seat, body)
                    return
                raise _Refused(HTTPStatus.NOT_FOUND, f"no POST endpoint at /{path}")
            if path == "play":
                await _send(writer, HTTPStatus.OK, "text/html; charset=utf-8", _page("setup", ""))
            elif len(parts) == 2 and parts[0] == "play":
                page = _page("seat", parts[1])
                await _send(writer, HTTPStatus.OK, "text/html; charset=utf-8", page)
            elif path == "api/play":
                await _send_json(writer, self.seats.choices())
            elif len(parts) == 3 and parts[:2] == ["api", "play"]:
                seat = self._seat(parts[2], headers.get("x-rookery-seat", ""))
                await _send_json(writer, self.seats.state(seat))
            elif len(parts) == 4 and parts[:2] == ["api", "play"] and parts[3] == "events":
                seat = self._seat(parts[2], query.get("key", ""))
                await self._stream(writer, seat)
            else:
                raise _Refused(HTTPStatus.NOT_FOUND, f"no page or API endpoint at /{path}")
        except _Refused as refused:
            await _send_json(writer, {"error": refused.message, "status": refused.status.value},
                             refused.status)  # fmt: skip

    def _seat(self, seat_id: str, secret: str) -> HumanSeat:
        try:
            return self.seats.get(seat_id, secret)
        except HumanSeatError as error:
            raise _Refused(HTTPStatus.NOT_FOUND, str(error)) from None

    async def _open(self, writer: asyncio.StreamWriter, body: object) -> None:
        try:
            seat = await self.seats.open(SeatRequest.from_json(body))
        except HumanSeatError as error:
            raise _Refused(HTTPStatus.BAD_REQUEST, str(error)) from None
        await _send_json(
            writer,
            {"seat_id": seat.seat_id, "secret": seat.secret, "url": f"/play/{seat.seat_id}"},
        )

    async def _act(self, writer: asyncio.StreamWriter, seat: HumanSeat, body: object) -> None:
        if not isinstance(body, dict):
            raise _Refused(HTTPStatus.BAD_REQUEST, "expected {request_id, action}")
        try:
            seat.act(int(body.get("request_id", -1)), str(body.get("action", "")))
        except (HumanSeatError, TypeError, ValueError) as error:
            raise _Refused(HTTPStatus.CONFLICT, str(error)) from None
        await _send_json(writer, {"sent": True})

    async def _compare(self, writer: asyncio.StreamWriter, seat: HumanSeat, body: object) -> None:
        bot = body.get("bot") if isinstance(body, dict) else None
        if not isinstance(bot, str):
            raise _Refused(HTTPStatus.BAD_REQUEST, "expected {bot}")
        try:
            comparison = await self.seats.compare(seat, bot)
        except Exception as error:  # HumanSeatError, and the server's refusals
            raise _Refused(HTTPStatus.CONFLICT, str(error)) from None
        await _send_json(writer, comparison)

    async def _stream(self, writer: asyncio.StreamWriter, seat: HumanSeat) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
            b"X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n"
        )
        sent: tuple[int, int] = (-1, -1)
        last_write = time.monotonic()
        while True:
            changed = seat.changed
            view = seat.view
            turn = self.seats.turn(seat)
            mark = (view.version, -1 if turn is None else turn["seat"])
            if mark != sent:
                sent = mark
                data = json.dumps(self.seats.state(seat, turn), separators=(",", ":"))
                writer.write(f"event: state\ndata: {data}\n\n".encode())
                await writer.drain()
                last_write = time.monotonic()
            if view.status in ("finished", "failed"):
                writer.write(b"event: end\ndata: {}\n\n")
                await writer.drain()
                return
            # While the turn is not known yet (the table is ahead of this seat's events, or
            # between requests), look again soon; otherwise wait for the seat's next message.
            wait_s = 0.25 if turn is None and view.status == "playing" else 15.0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait_s)
            if time.monotonic() - last_write > 15.0:
                writer.write(b": keep-alive\n\n")
                await writer.drain()
                last_write = time.monotonic()


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    out: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if sep:
            out[name.strip().lower()] = value.strip()
    return out


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> object:
    if not headers.get("content-type", "").startswith("application/json"):
        raise _Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
    try:
        length = int(headers.get("content-length", ""))
    except ValueError:
        raise _Refused(HTTPStatus.LENGTH_REQUIRED, "Content-Length required") from None
    if not 0 <= length <= _MAX_BODY:
        raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {_MAX_BODY} bytes")
    try:
        data = await asyncio.wait_for(reader.readexactly(length), 10.0)
        return json.loads(data)
    except (asyncio.IncompleteReadError, TimeoutError):
        raise _Refused(HTTPStatus.BAD_REQUEST, "the body ended early") from None
    except ValueError:
        raise _Refused(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None


def _same_origin(headers: dict[str, str]) -> None:
    """A POST from another site's page is refused (the browser names its origin)."""
    origin = headers.get("origin")
    if origin is not None and origin.partition("://")[2] != headers.get("host"):
        raise _Refused(HTTPStatus.FORBIDDEN, "cross-origin request refused")


def _page(view: str, seat_id: str) -> bytes:
    boot = {"view": view, "seat_id": seat_id}
    title = "Rookery: take a seat" if view == "setup" else "Rookery: your seat"
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{_asset('app.css')}{_asset('play.css')}</style>\n"
        "</head><body>\n"
        '<header class="top"><a class="brand" href="/">Rookery</a>'
        '<nav><a href="/play">new game</a></nav></header>\n'
        '<main id="play"><noscript>This page needs JavaScript.</noscript></main>\n'
        f'<script type="application/json" id="rookery-boot">{_script_json(boot)}</script>\n'
        f"<script>{_asset('play.js')}</script>\n"
        "</body></html>\n"
    ).encode()


async def _send(
    writer: asyncio.StreamWriter, status: HTTPStatus, content_type: str, body: bytes
) -> None:
    head = (
        f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
        f"X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        f"Content-Security-Policy: {_CSP}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()


async def _send_json(
    writer: asyncio.StreamWriter, value: JsonValue, status: HTTPStatus = HTTPStatus.OK
) -> None:
    body = json.dumps(value, separators=(",", ":")).encode()
    await _send(writer, status, "application/json", body)
