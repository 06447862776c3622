"""Per-client limits: the peer a call comes from, bounded Hello fields, open files, log floods."""

from __future__ import annotations

import asyncio
import resource
import time
from collections import Counter
from typing import TypeVar

import grpc
import structlog
from rookery.v1 import bot_service_pb2
from structlog.typing import FilteringBoundLogger

__all__ = [
    "HELLO_LIMITS",
    "RejectionLog",
    "hello_problem",
    "peer_host",
    "raise_open_file_limit",
]

log = structlog.get_logger("rookery.server")

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

HELLO_LIMITS = {
    "Hello.version": 128,
    "Hello.client": 128,
    "Hello.token": 256,
    "Hello.resume.session_id": 64,
    "Hello.resume.resume_secret": 128,
}
"""The most characters each free-text field of a Hello may carry (the name has its own rule)."""
_MAX_CURSORS = 512
"""The most Resume.cursors: a session's tables (64 at most) and the finished ones it may report."""
_MAX_CURSOR_TABLE_ID = 128


def hello_problem(hello: bot_service_pb2.Hello) -> str:
    """Why a Hello is refused for its size ("" when every field is within its bound)."""
    values = {
        "Hello.version": hello.version,
        "Hello.client": hello.client,
        "Hello.token": hello.token,
        "Hello.resume.session_id": hello.resume.session_id,
        "Hello.resume.resume_secret": hello.resume.resume_secret,
    }
    for field, value in values.items():
        limit = HELLO_LIMITS[field]
        if len(value) > limit:
            return f"{field} is {len(value)} characters long: at most {limit} are accepted"
    cursors = hello.resume.cursors
    if len(cursors) > _MAX_CURSORS:
        return (
            f"Hello.resume.cursors has {len(cursors)} entries: at most {_MAX_CURSORS} "
            "are accepted (one per table of the session)"
        )
    for index, cursor in enumerate(cursors):
        if len(cursor.table_id) > _MAX_CURSOR_TABLE_ID:
            return (
                f"Hello.resume.cursors[{index}].table_id is {len(cursor.table_id)} characters "
                f"long: at most {_MAX_CURSOR_TABLE_ID} are accepted"
            )
    return ""


def peer_host(context: grpc.aio.ServicerContext[_Request, _Response]) -> str:
    """The network address (IP, no port) a gRPC call comes from: ``127.0.0.1``, ``::1``.

    grpc reports ``ipv4:127.0.0.1:5000`` or ``ipv6:[::1]:5000``; anything else (a Unix socket)
    is returned as it is.
    """
    peer = str(context.peer() or "")
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]") or rest
    return peer or "unknown"


def raise_open_file_limit() -> tuple[int, int]:
    """Raises the soft limit of open files to the hard limit: (before, after).

    The usual soft limit of 1,024 is far below what a server with many bots and dashboard
    visitors needs; the hard limit is what the administrator allows.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft, soft
    return soft, target


def open_file_limit() -> int:
    """The soft limit of open files now (a large number when unlimited)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


_LOGGED_PER_WINDOW = 5
_WINDOW_S = 1.0


class RejectionLog:
    """Logs a session's rejected replies: the first few each second one by one, the rest as one
    summary line per second (counts by reason), so that a flood cannot flood the log."""

    def __init__(self, logger: FilteringBoundLogger) -> None:
        self._log = logger
        self._window_start = 0.0
        self._logged = 0
        self._suppressed: Counter[str] = Counter()
        self._flush: asyncio.TimerHandle | None = None

    def rejected(self, reason: str, **fields: object) -> None:
        """One rejected reply (``reason`` its RejectionReason name)."""
        now = time.monotonic()
        if now - self._window_start >= _WINDOW_S:
            self.flush()
            self._window_start = now
            self._logged = 0
        if self._logged < _LOGGED_PER_WINDOW:
            self._logged += 1
            self._log.info("reply rejected", reason=reason, **fields)
            return
        self._suppressed[reason] += 1
        if self._flush is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._flush = loop.call_later(_WINDOW_S, self.flush)

    def flush(self) -> None:
        """Writes the summary of the rejections not logged one by one (if any)."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if not self._suppressed:
            return
        self._log.info(
            "replies rejected",
            count=sum(self._suppressed.values()),
            reasons=dict(self._suppressed),
            note=f"beyond {_LOGGED_PER_WINDOW} a second, rejections are counted, not logged",
        )
        self._suppressed.clear()
