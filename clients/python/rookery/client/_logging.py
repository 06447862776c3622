"""structlog set-up for bot processes: console lines for people, JSON lines for machines."""

from __future__ import annotations

import logging
import sys

import structlog

__all__ = ["configure_logging"]


def configure_logging(level: str = "info", json: bool = False) -> None:
    """Send structlog output to stderr at ``level``; ``json`` for one JSON object per line.

    Context bound with ``structlog.contextvars`` (the runner binds ``table_id`` and ``seat``
    while a hook runs) appears on every line.
    """
    numeric = logging.getLevelNamesMapping().get(level.upper())
    if numeric is None:
        raise ValueError(f"unknown log level {level!r}")
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if json
        # Plain tracebacks: a rich one with every frame's locals takes seconds to render on a
        # loaded machine, while the bot's clock runs (a hook that raises is logged per request).
        else structlog.dev.ConsoleRenderer(
            colors=sys.stderr.isatty(), exception_formatter=structlog.dev.plain_traceback
        )
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info
            if json
            else structlog.processors.StackInfoRenderer(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )
