"""``rookery bot run``: run a Python bot (a ``rookery.client.Bot`` subclass) against a server."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

__all__ = ["register"]

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      # a bot class in an importable module, against a local open-mode server
      rookery bot run mybots.greedy:GreedyBot --server 127.0.0.1:50051

      # a bot class in a file, with a token, two sessions (so it can partner itself), 8 tables each
      rookery bot run ./greedy.py:GreedyBot --server rook.example.org:443 --tls \\
          --token "$TOKEN" --name greedy --sessions 2 --max-tables 8

      # the arena sets these when it launches a bot
      ROOKERY_SERVER=127.0.0.1:50051 ROOKERY_TOKEN=rk_... ROOKERY_BOT_NAME=greedy \\
          rookery bot run greedy.py:GreedyBot

    exit codes: 0 stopped (SIGINT/SIGTERM, or --games reached); 1 unexpected error;
    2 bad arguments or the bot could not be loaded; 3 token rejected; 4 server unreachable;
    5 session refused by the server.
    """
)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery bot run``."""
    group = subparsers.add_parser("bot", help="run a Python bot", description="Python bots.")
    commands = group.add_subparsers(title="bot commands", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="connect a Python bot to a server and play until stopped",
        description=(
            "Load a rookery.client.Bot subclass and play every table the server seats it at, "
            "one Bot instance per table, until SIGINT/SIGTERM. Dropped streams are resumed."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "bot", metavar="module:Class", help="the bot: package.module:Class or path/to/file.py:Class"
    )
    run.add_argument(
        "--server",
        default=os.environ.get("ROOKERY_SERVER", "127.0.0.1:50051"),
        help="host:port of the server (env ROOKERY_SERVER; default %(default)s)",
    )
    run.add_argument(
        "--token",
        default=os.environ.get("ROOKERY_TOKEN", ""),
        help="the bot's token in token mode (env ROOKERY_TOKEN)",
    )
    run.add_argument(
        "--name",
        default=os.environ.get("ROOKERY_BOT_NAME"),
        help="the bot's registered name (env ROOKERY_BOT_NAME; default: the class name)",
    )
    run.add_argument(
        "--version",
        dest="bot_version",
        default=os.environ.get("ROOKERY_BOT_VERSION", ""),
        help="the bot's version, sent in its Hello (env ROOKERY_BOT_VERSION)",
    )
    run.add_argument(
        "--sessions",
        type=_positive,
        default=os.environ.get("ROOKERY_SESSIONS", "1"),
        help="streams to open; a bot taking N seats of one table needs N (env ROOKERY_SESSIONS; "
        "default %(default)s)",
    )
    run.add_argument(
        "--max-tables",
        type=_positive,
        default=os.environ.get("ROOKERY_MAX_TABLES", "1"),
        help="tables per session at once (env ROOKERY_MAX_TABLES; default %(default)s)",
    )
    run.add_argument("--games", type=_positive, default=None, help="exit after N finished games")
    run.add_argument(
        "--no-batching",
        dest="batching",
        action="store_false",
        help="one message per gRPC message both ways (batching is on by default: a session "
        "with several tables gets and sends what it has at once in one message)",
    )
    run.add_argument(
        "--tls", action="store_true", help="connect over TLS (system root certificates)"
    )
    run.add_argument("--ca-cert", default=None, help="PEM file of the CA to trust (implies --tls)")
    run.add_argument(
        "--expect-server",
        metavar="NAME",
        default=os.environ.get("ROOKERY_EXPECT_SERVER", ""),
        help="leave (exit 4) unless the server is named NAME (rookery serve --name): another "
        "server may hold the port on a shared machine (env ROOKERY_EXPECT_SERVER)",
    )
    run.add_argument(
        "--connect-timeout",
        type=float,
        default=10.0,
        help="seconds to wait for the server at start",
    )
    run.add_argument("--log-level", default="info", help="debug, info, warning or error")
    run.add_argument("--log-json", action="store_true", help="JSON log lines (default: console)")
    run.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import grpc
    from rookery.client import (
        BotLoadError,
        ServerUnreachableError,
        SessionRefusedError,
        TokenRejectedError,
        configure_logging,
        load_bot,
        run_bot,
    )

    try:
        configure_logging(args.log_level, json=args.log_json)
    except ValueError as error:
        print(f"rookery bot run: {error}", file=sys.stderr)
        return 2
    try:
        factory = load_bot(args.bot)
    except BotLoadError as error:
        print(f"rookery bot run: {error}", file=sys.stderr)
        return 2
    try:
        factory()  # a bot that cannot be made (its policy file missing, say) never connects
    except Exception as error:
        print(f"rookery bot run: the bot cannot start: {type(error).__name__}: {error}",
              file=sys.stderr)  # fmt: skip
        return 2
    credentials = None
    if args.tls or args.ca_cert:
        root = None
        if args.ca_cert:
            with open(args.ca_cert, "rb") as pem:
                root = pem.read()
        credentials = grpc.ssl_channel_credentials(root_certificates=root)
    name = args.name or getattr(factory, "__name__", "bot")
    try:
        stats = run_bot(
            factory,
            args.server,
            token=args.token,
            name=name,
            version=args.bot_version,
            max_tables=args.max_tables,
            sessions=args.sessions,
            games=args.games,
            credentials=credentials,
            connect_timeout_s=args.connect_timeout,
            batching=args.batching,
            expect_server=args.expect_server,
            exit_on_error=False,  # the lines below name rookery bot run
        )
    except TokenRejectedError as error:
        print(f"rookery bot run: {error}", file=sys.stderr)
        return 3
    except ServerUnreachableError as error:
        print(f"rookery bot run: {error}", file=sys.stderr)
        return 4
    except SessionRefusedError as error:
        print(f"rookery bot run: {error}", file=sys.stderr)
        return 5
    # The kit contract's summary line (docs/dev/kit-contract.md), the same in every kit.
    print(
        f"[rookery] done: games={stats.games} actions={stats.actions} "
        f"fallbacks={stats.fallbacks} rejections={stats.rejections} "
        f"reconnects={stats.reconnects} resumes={stats.resumes} "
        f"batches_received={stats.batches_received} batches_sent={stats.batches_sent}",
        file=sys.stderr,
    )
    return 0
