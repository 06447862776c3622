"""``rookery serve``: run the Rookery gRPC server until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import shutil
import signal
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from rookery.server import ServerConfig

__all__ = ["register"]

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      # a local server, open mode (any bot name, no tokens)
      rookery serve

      # a named server on a shared machine: bots run with --expect-server club leave any other
      rookery serve --name club --address 127.0.0.1:50061

      # a public server: bot tokens from a registry file, an admin token, TLS, metrics
      rookery bots add alpha --db rookery.db
      rookery serve --address 0.0.0.0:50051 --db rookery.db --admin-token "$ADMIN" \\
          --tls-cert cert.pem --tls-key key.pem --metrics-address 0.0.0.0:9100

    Options also come from a TOML file (--config) and ROOKERY_<OPTION> environment variables;
    command-line flags win over the environment, which wins over the file. docs/server.md lists
    every option with its default.
    """
)

# Command-line flags that map one to one onto ServerConfig options.
_FLAGS: tuple[tuple[str, str, Callable[[str], object], str, str], ...] = (
    ("--address", "address", str, "HOST:PORT", "where to listen (default 127.0.0.1:50051)"),
    ("--name", "server_name", str, "NAME", "the name every Welcome carries (bots may check it)"),
    ("--metrics-address", "metrics_address", str, "HOST:PORT", "serve Prometheus /metrics here"),
    ("--db", "db", str, "FILE", "the bot registry (SQLite); implies token mode unless --open"),
    ("--admin-token", "admin_token", str, "TOKEN", "the token guarding ArenaService mutations"),
    ("--tls-cert", "tls_cert", str, "FILE", "PEM certificate chain: serve TLS (with --tls-key)"),
    ("--tls-key", "tls_key", str, "FILE", "PEM private key of --tls-cert"),
    ("--replay-dir", "replay_dir", str, "DIR", "write every finished game's replay file here"),
    ("--log-level", "log_level", str, "LEVEL", "debug, info, warning or error (default info)"),
    ("--max-tables-per-session", "max_tables_per_session", int, "N", "tables per session (64)"),
    ("--max-sessions", "max_sessions", int, "N", "bot sessions at once (default 1024)"),
    ("--idle-timeout", "idle_timeout_s", float, "SECONDS", "silence before a session is closed"),
    ("--join-timeout", "join_timeout_s", float, "SECONDS", "an API table's wait for its bots"),
    ("--shutdown-grace", "shutdown_grace_s", float, "SECONDS", "time games get on SIGTERM"),
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery serve``."""
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC server (tables, bot sessions, spectators, arena API)",
        description=(
            "Run the Rookery server: BotService, SpectatorService, ArenaService, health checking "
            "and reflection, until SIGTERM or SIGINT (then drain and stop)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", metavar="FILE", help="a TOML file of server options")
    for flag, dest, kind, metavar, text in _FLAGS:
        parser.add_argument(flag, dest=dest, type=kind, default=None, metavar=metavar, help=text)
    parser.add_argument(
        "--open", action="store_true", help="open mode: any bot name, no tokens (the default)"
    )
    parser.add_argument(
        "--log-format",
        choices=("json", "console"),
        default=None,
        help="log line format (default json)",
    )
    parser.add_argument(
        "--web-address",
        default="127.0.0.1:8080",
        metavar="HOST:PORT",
        help="the web dashboard and its JSON API (default 127.0.0.1:8080); 'off' to disable",
    )
    parser.add_argument(
        "--web-runs",
        action="append",
        default=[],
        metavar="DIR",
        help=(
            "more arena run directories (or folders of them) for the dashboard, besides the "
            "server's own tournaments ($ROOKERY_ARENA_DIR, shown always); repeatable"
        ),
    )
    parser.add_argument(
        "--port-file",
        metavar="FILE",
        help="write the bound gRPC port to FILE once serving (for scripts and tests)",
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from rookery.server import AddressUnavailableError, ServerConfig, ServerConfigError

    overrides: dict[str, object] = {
        dest: getattr(args, dest) for _, dest, _, _, _ in _FLAGS if getattr(args, dest) is not None
    }
    if args.open:
        overrides["auth"] = "open"
    if args.log_format is not None:
        overrides["log_json"] = args.log_format == "json"
    try:
        config = ServerConfig.load(args.config, overrides=overrides)
    except ServerConfigError as error:
        print(f"rookery serve: {error}", file=sys.stderr)
        return 2
    with _bots_socket(config) as config:
        try:
            return asyncio.run(_serve(config, args.port_file, args.web_address, args.web_runs))
        except AddressUnavailableError as error:
            fix = ""
            if not error.address.startswith("unix:"):
                fix = "; listen elsewhere: --address HOST:PORT (port 0 picks a free one)"
            print(f"rookery serve: {error}{fix}", file=sys.stderr)
            return 1
        except OSError as error:
            print(f"rookery serve: {error}", file=sys.stderr)
            return 1


_SOCKET_PREFIX = "rookery-serve-"


def _remove_stale_folders(base: Path) -> None:
    """Removes the socket folders of this user's servers that are gone (killed: a server that
    stops removes its own); one whose process id lives on is kept."""
    for folder in base.glob(f"{_SOCKET_PREFIX}*-*"):
        pid = folder.name.removeprefix(_SOCKET_PREFIX).partition("-")[0]
        try:
            if not pid.isdigit() or folder.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # another user's process, or the folder went meanwhile: not ours to clear
            continue


@contextlib.contextmanager
def _bots_socket(config: ServerConfig) -> Iterator[ServerConfig]:
    """``config`` with a Unix socket in a private folder (removed at the end) unless it names
    one: the tournaments created over ArenaService launch their bots in the arena's sandbox,
    and a sandboxed bot reaches the server through that socket only."""
    if config.unix_socket:
        yield config
        return
    # A socket's path has at most 107 bytes: a long $TMPDIR gives way to /tmp.
    base = Path(tempfile.gettempdir() if len(tempfile.gettempdir()) <= 64 else "/tmp")
    _remove_stale_folders(base)
    folder = Path(tempfile.mkdtemp(prefix=f"{_SOCKET_PREFIX}{os.getpid()}-", dir=base))
    try:
        folder.chmod(0o711)  # the socket's folder: no listing, the sandboxes bind the socket
        yield dataclasses.replace(config, unix_socket=str(folder / "server.sock"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _serve(
    config: ServerConfig, port_file: str | None, web_address: str, web_runs: list[str]
) -> int:
    from rookery.arena.run import create_tournament_backend
    from rookery.server import RookeryServer, configure_logging, tune_gc

    configure_logging(config.log_level, json=config.log_json)
    tune_gc()
    # Before anything is started or announced: a SIGTERM that follows the port file (or the
    # "server started" line) at once must find the handler, not kill the process mid-start.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server = RookeryServer(config)
    server.tournaments = create_tournament_backend(server)
    await server.start()
    web = None
    if web_address and web_address != "off":
        from rookery.web import WebServer

        web = WebServer(web_address, server=server, runs=web_runs)
        try:
            await web.start()
        except OSError as error:
            structlog.get_logger("rookery.serve").warning(
                "web dashboard not started", address=web_address, error=str(error)
            )
            web = None
    if port_file:
        path = Path(port_file)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(f"{server.port}\n")
        os.replace(tmp, path)
    await stop.wait()
    if web is not None:
        await web.stop()
    await server.stop(grace_s=config.shutdown_grace_s)
    return 0
