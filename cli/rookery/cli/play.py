"""``rookery play``: a quick local game against the reference bots, in the browser."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import textwrap
import webbrowser

__all__ = ["register"]

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      rookery play                      # a local server, the page opens in the browser
      rookery play --no-browser --web-address 127.0.0.1:8080

    The page (/play) seats you at a new table with the bots of your choice (random, heuristic,
    pimc, or any bot connected to this server) on any preset; three heuristic and three pimc bots
    start with the page, so a table of them starts at once. Stop with Ctrl-C. To host a page for
    others, run 'rookery serve' (its dashboard has the same /play page): see docs/web.md.
    """
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery play``."""
    parser = subparsers.add_parser(
        "play",
        help="play a game against bots in the browser (a local server and its /play page)",
        description=(
            "Start a local open-mode server and its web page, print the page's address and open "
            "it; play at a new table with bots of your choice. Finished games are ordinary "
            "replays (in --replay-dir, and in the page's replay viewer)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--address",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="the gRPC server (a free port)",
    )
    parser.add_argument(
        "--web-address",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="the page (default: a free port on 127.0.0.1)",
    )
    parser.add_argument(
        "--replay-dir", metavar="DIR", help="write each finished game's replay here"
    )
    parser.add_argument("--no-browser", action="store_true", help="only print the address")
    parser.set_defaults(func=_play)


def _play(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_serve(args))
    except BrokenPipeError:
        raise  # stdout's reader went away: the entry point ends the command quietly
    except OSError as error:  # the address is taken, the replay directory is not writable
        print(f"rookery play: {error}", file=sys.stderr)
        return 1


async def _serve(args: argparse.Namespace) -> int:
    from rookery.server import RookeryServer, ServerConfig, configure_logging
    from rookery.web import WebServer

    configure_logging("warning", json=False, stream=sys.stderr)
    # Before the address is printed: a SIGTERM right after that line must stop it cleanly.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server = RookeryServer(
        ServerConfig(address=args.address, log_level="warning", replay_dir=args.replay_dir or "")
    )
    await server.start()
    # Three of each of the usual opponents started now: a table takes them at once.
    web = WebServer(args.web_address, server=server, warm_bots={"heuristic": 3, "pimc": 3})
    try:
        await web.start()
        url = f"{web.url}/play"
        print(f"rookery play: {url}  (Ctrl-C to stop)", flush=True)
        if not args.no_browser:
            webbrowser.open(url)
        await stop.wait()
    finally:
        await web.stop()
        await server.stop(grace_s=1.0)
    return 0
