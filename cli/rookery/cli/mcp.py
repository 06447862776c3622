"""``rookery mcp``: a seat for any MCP-capable agent, over stdio or streamable HTTP (docs/ai.md)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

__all__ = ["register"]

_EXAMPLES = """\
examples:
  rookery mcp --server 127.0.0.1:50051 --name claude        # MCP over stdio (the agent starts it)
  rookery mcp --transport streamable-http --port 8765       # MCP at http://127.0.0.1:8765/mcp
tools: wait_for_turn, legal_actions, history, rules, play; resource: rookery://rules/{preset}
"""

_NEEDS_MCP = (
    "rookery mcp needs the llm extra (the MCP SDK): pip install 'rookery-arena[llm]' "
    "(in a clone of the source: make setup)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery mcp``."""
    parser = subparsers.add_parser(
        "mcp",
        help="seat an MCP-capable agent at Rookery tables",
        description=(
            "Plays as a Rookery bot and serves the Model Context Protocol: at each of the bot's "
            "turns the agent looks with legal_actions, history and rules and moves with play. "
            "A turn not played in time gets the table's late policy, never an invented move. "
            "Server, token, name, sessions and tables default to the ROOKERY_* variables the "
            "arena sets for a bot it launches."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--server", default=None, help="the Rookery server, host:port")
    parser.add_argument("--name", default=None, help="the bot's name (default: mcp)")
    parser.add_argument("--token", default=None, help="the bot's token (token-mode servers)")
    parser.add_argument("--sessions", type=int, default=None, help="sessions to open (1)")
    parser.add_argument("--max-tables", type=int, default=None, help="tables a session (1)")
    parser.add_argument("--games", type=int, default=None, help="exit after N finished games")
    parser.add_argument(
        "--transport", choices=("stdio", "streamable-http"), default="stdio", help="(stdio)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="streamable HTTP's address")
    parser.add_argument("--port", type=int, default=8765, help="streamable HTTP's port (8765)")
    parser.add_argument("--log-level", default="warning", help="debug, info, warning or error")
    parser.set_defaults(func=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(_NEEDS_MCP, file=sys.stderr)
        return 2
    from rookery.client import configure_logging

    try:
        configure_logging(args.log_level)
    except ValueError as error:
        print(f"rookery mcp: {error}", file=sys.stderr)
        return 2
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    from rookery.client import (
        ServerUnreachableError,
        SessionRefusedError,
        TokenRejectedError,
        arun_bot,
    )
    from rookery.envs.mcp_seat import McpSeatBot, TurnBoard, build_server

    name = args.name or os.environ.get("ROOKERY_BOT_NAME") or "mcp"
    board = TurnBoard()
    server = build_server(board, f"rookery-{name}")
    stop = asyncio.Event()

    async def play() -> None:
        try:
            await arun_bot(
                lambda: McpSeatBot(board),
                args.server,
                token=args.token,
                name=name,
                sessions=args.sessions,
                max_tables=args.max_tables,
                games=args.games,
                stop=stop,
            )
        finally:
            board.finish()

    bot = asyncio.create_task(play())
    if args.transport == "stdio":
        serving = asyncio.create_task(server.run_stdio_async())
    else:
        serving = asyncio.create_task(
            server.run_streamable_http_async(host=args.host, port=args.port)
        )
    await asyncio.wait({bot, serving}, return_when=asyncio.FIRST_COMPLETED)
    if serving.done():  # the agent went away (stdio closed): the bot stops too
        stop.set()
    try:
        await bot
    except TokenRejectedError as error:
        print(f"rookery mcp: {error}", file=sys.stderr)
        return 3
    except ServerUnreachableError as error:
        print(f"rookery mcp: {error}", file=sys.stderr)
        return 4
    except SessionRefusedError as error:
        print(f"rookery mcp: {error}", file=sys.stderr)
        return 5
    finally:
        if not serving.done() and args.transport == "stdio":
            await serving  # answer the agent until it closes stdio
        serving.cancel()
    return 0
