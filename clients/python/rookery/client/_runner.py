"""The runners: ``arun_bot`` (asyncio) and ``run_bot`` (blocking, with signal handling)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from typing import Unpack

import structlog

from ._bot import Bot
from ._errors import (
    ClientError,
    ServerUnreachableError,
    SessionRefusedError,
    TokenRejectedError,
)
from ._options import BotRunOptions, RunSettings, RunStats
from ._session import Session

__all__ = ["arun_bot", "run_bot"]

log = structlog.get_logger("rookery.client")


#: Where a bot connects when neither ``server`` nor ``ROOKERY_SERVER`` says.
DEFAULT_SERVER = "127.0.0.1:50051"


def _env_count(variable: str) -> int:
    text = os.environ.get(variable, "").strip()
    if not text:
        return 1
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{variable} must be a whole number, got {text!r}") from None
    if value < 1:
        raise ValueError(f"{variable} must be at least 1, got {value}")
    return value


def _default_name(bot_factory: Callable[[], Bot]) -> str:
    from_env = os.environ.get("ROOKERY_BOT_NAME", "").strip()
    if from_env:
        return from_env
    name = getattr(bot_factory, "__name__", "")
    if not name or name == "<lambda>":
        raise ValueError("name= is required when the bot factory is not a class or named function")
    return name


async def arun_bot(
    bot_factory: Callable[[], Bot],
    server: str | None = None,
    *,
    stop: asyncio.Event | None = None,
    **settings: Unpack[RunSettings],
) -> RunStats:
    """Play as bot ``name`` at ``server`` (``host:port``) until ``stop`` is set or ``games`` end.

    ``bot_factory`` (usually the ``Bot`` subclass itself) is called once per table, so no state
    crosses tables. ``sessions`` streams are opened, each seated at up to ``max_tables`` tables at
    once; a bot that partners itself at one table needs ``sessions=2`` or more. A dropped stream
    is reopened with exponential backoff and jitter and resumed where it stopped.

    ``credentials`` (``grpc.ssl_channel_credentials()``) connects over TLS. ``games`` ends the run
    once that many games have finished, counted over every session. ``batching`` (on by default)
    lets a session get, and send, several messages in one gRPC message when it has several at once
    (``Hello.batching``): the same messages in the same order, at a fraction of the cost.
    ``defer_events`` (on by default) lets the server hold a table's events until the seat's next
    request (``Hello.defer_events``): ``on_event`` still sees every event, in order, before the
    hook that acts, but not while other seats play; turn it off for a bot that thinks between its
    turns on what just happened.

    ``expect_server`` (or ``ROOKERY_EXPECT_SERVER``) is the name of the server the bot means to
    play on (``rookery serve --name``): a server that answers with another name, or none (another
    organiser's on the same port of a shared machine), ends the run with
    :class:`WrongServerError`, a :class:`ServerUnreachableError`, before any game.

    What is not given comes from the environment the arena sets for a bot it launches:
    ``ROOKERY_SERVER`` (default ``127.0.0.1:50051``), ``ROOKERY_TOKEN``, ``ROOKERY_BOT_NAME``
    (default: the class name), ``ROOKERY_SESSIONS`` and ``ROOKERY_MAX_TABLES`` (default 1), so
    ``run_bot(MyBot)`` plays alone and as a launched bot alike.

    Raises :class:`TokenRejectedError` (UNAUTHENTICATED), :class:`ServerUnreachableError` (no
    connection within ``connect_timeout_s`` at first, or ``reconnect_timeout_s`` after a drop) and
    :class:`SessionRefusedError` (the server refused the Hello).
    """
    options = _options(bot_factory, server, settings)
    server, sessions, max_tables, games = (
        options.server,
        options.sessions,
        options.max_tables,
        options.games,
    )
    stop = stop if stop is not None else asyncio.Event()
    stats = RunStats()

    finished: set[str] = set()

    def game_finished(table_id: str) -> None:
        if table_id not in finished:
            finished.add(table_id)
            stats.games += 1
        # Stop once enough games are over on every seat the bot held (self-play included).
        if games is not None and stats.games >= games and all(r.tables == 0 for r in runners):
            stop.set()

    runners = [
        Session(index, bot_factory, options, stats, stop, game_finished)
        for index in range(sessions)
    ]
    log.info(
        "bot starting", bot=options.name, server=server, sessions=sessions, max_tables=max_tables
    )
    try:
        async with asyncio.TaskGroup() as group:
            for runner in runners:
                group.create_task(runner.run())
    except BaseExceptionGroup as group_error:
        # Surface the first SDK error as itself: callers catch TokenRejectedError, not a group.
        raise group_error.exceptions[0] from None
    log.info("bot stopped", bot=options.name, games=stats.games, actions=stats.actions)
    return stats


def run_bot(
    bot_factory: Callable[[], Bot],
    server: str | None = None,
    *,
    exit_on_error: bool = True,
    **settings: Unpack[RunSettings],
) -> RunStats:
    """Blocking :func:`arun_bot`: runs its own event loop and stops cleanly on SIGINT or SIGTERM.

    ``run_bot(MyBot)`` reads the server, token, name, sessions and tables per session from the
    ``ROOKERY_*`` environment, as :func:`arun_bot` does.

    It ends the program as the kit contract says (``docs/dev/kit-contract.md``), as every kit's
    main does: a rejected token, an unreachable server (or not the expected one) and a refused
    session write one line naming the cause to stderr and exit 3, 4 and 5 (``SystemExit``), no
    traceback; a ``ROOKERY_SESSIONS`` or ``ROOKERY_MAX_TABLES`` that is not a count, exit 2; a run
    that ends well writes the contract's summary line (``[rookery] done: games=...``) to stderr.
    ``exit_on_error=False`` raises those errors instead and writes no line, as :func:`arun_bot`.
    """

    async def main() -> RunStats:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed = []
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, _on_signal, stop, signum)
                installed.append(signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                pass
        try:
            return await arun_bot(bot_factory, server, stop=stop, **settings)
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)

    if not exit_on_error:
        return asyncio.run(main())
    try:  # a bad ROOKERY_SESSIONS or ROOKERY_MAX_TABLES: the contract's bad arguments
        if settings.get("sessions") is None:
            _env_count("ROOKERY_SESSIONS")
        if settings.get("max_tables") is None:
            _env_count("ROOKERY_MAX_TABLES")
    except ValueError as error:
        print(f"{_program_name()}: {error}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    try:
        stats = asyncio.run(main())
    except ClientError as error:
        code = _exit_code(error)
        if code is None:
            raise
        print(f"{_program_name()}: {error}", file=sys.stderr, flush=True)
        raise SystemExit(code) from None
    print(_summary_line(stats), file=sys.stderr, flush=True)
    return stats


def _options(
    bot_factory: Callable[[], Bot], server: str | None, settings: RunSettings
) -> BotRunOptions:
    """The run's options: ``settings`` as given, the rest from the ``ROOKERY_*`` environment the
    arena sets for a bot it launches, then the defaults. ``TypeError`` for a setting that is not
    one, ``ValueError`` for a count below 1."""
    unknown = sorted(set(settings) - set(RunSettings.__optional_keys__))
    if unknown:
        raise TypeError(f"unknown run settings: {', '.join(unknown)}")
    token = settings.get("token")
    sessions = settings.get("sessions")
    max_tables = settings.get("max_tables")
    expect_server = settings.get("expect_server")
    sessions = _env_count("ROOKERY_SESSIONS") if sessions is None else sessions
    max_tables = _env_count("ROOKERY_MAX_TABLES") if max_tables is None else max_tables
    if sessions < 1:
        raise ValueError(f"sessions must be at least 1, got {sessions}")
    if max_tables < 1:
        raise ValueError(f"max_tables must be at least 1, got {max_tables}")
    return BotRunOptions(
        server=server or os.environ.get("ROOKERY_SERVER", "").strip() or DEFAULT_SERVER,
        name=settings.get("name") or _default_name(bot_factory),
        token=os.environ.get("ROOKERY_TOKEN", "") if token is None else token,
        version=settings.get("version", ""),
        max_tables=max_tables,
        sessions=sessions,
        games=settings.get("games"),
        credentials=settings.get("credentials"),
        retry_rejected=settings.get("retry_rejected", True),
        connect_timeout_s=settings.get("connect_timeout_s", 10.0),
        reconnect_timeout_s=settings.get("reconnect_timeout_s", 60.0),
        batching=settings.get("batching", True),
        defer_events=settings.get("defer_events", True),
        expect_server=(
            os.environ.get("ROOKERY_EXPECT_SERVER", "").strip()
            if expect_server is None
            else expect_server
        ),
    )


def _summary_line(stats: RunStats) -> str:
    """The kit contract's line for a run that ended well, the same in every kit."""
    return (
        f"[rookery] done: games={stats.games} actions={stats.actions} "
        f"fallbacks={stats.fallbacks} rejections={stats.rejections} "
        f"reconnects={stats.reconnects} resumes={stats.resumes} "
        f"batches_received={stats.batches_received} batches_sent={stats.batches_sent}"
    )


def _exit_code(error: ClientError) -> int | None:
    """The kit contract's exit code for one of the SDK's errors (None: not one it names)."""
    if isinstance(error, TokenRejectedError):
        return 3
    if isinstance(error, ServerUnreachableError):  # WrongServerError too
        return 4
    if isinstance(error, SessionRefusedError):
        return 5
    return None


def _program_name() -> str:
    """The running program's file name, to start the error line with (``my_bot.py: ...``)."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "rookery bot"


def _on_signal(stop: asyncio.Event, signum: int) -> None:
    log.info("stopping", signal=signal.Signals(signum).name)
    stop.set()
