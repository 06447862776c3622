"""structlog setup: JSON lines carrying the ids bound in contextvars (table, seat, bot)."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog

__all__ = ["configure_logging"]

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
_LEVELS["error"] = logging.ERROR


def configure_logging(
    level: str = "info", *, json: bool = True, stream: TextIO | None = None
) -> None:
    """Configures structlog for the process: ``level`` and up, JSON or console lines to ``stream``.

    Every line carries the contextvars bound with :func:`structlog.contextvars.bind_contextvars`
    (the server binds ``table``, ``seat``, ``bot`` and ``session``), a timestamp and the level.
    """
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level.lower()]),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
