"""``rookery bots``: register bots and issue their tokens in a server's registry file."""

from __future__ import annotations

import argparse
import datetime
import os
import sys

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery bots add|list|remove``."""
    group = subparsers.add_parser(
        "bots",
        help="register bots and issue tokens (token mode)",
        description=(
            "Manage the bot registry a token-mode server reads (rookery serve --db FILE). Only "
            "a hash of each token is stored; the token is printed once."
        ),
    )
    commands = group.add_subparsers(title="bots commands", metavar="COMMAND")
    db_help = "the registry's SQLite file (env ROOKERY_DB)"
    default_db = os.environ.get("ROOKERY_DB")

    add = commands.add_parser("add", help="register a bot and print its token once")
    add.add_argument("name", help="1-64 letters, digits, '-', '_' or '.'")
    add.add_argument("--db", default=default_db, required=default_db is None, help=db_help)
    add.set_defaults(func=_add)

    listing = commands.add_parser("list", help="list the registered bots (never their tokens)")
    listing.add_argument("--db", default=default_db, required=default_db is None, help=db_help)
    listing.set_defaults(func=_list)

    remove = commands.add_parser("remove", help="revoke a bot's token")
    remove.add_argument("name")
    remove.add_argument("--db", default=default_db, required=default_db is None, help=db_help)
    remove.set_defaults(func=_remove)


def _add(args: argparse.Namespace) -> int:
    from rookery.server import BotRegistry, InvalidBotNameError

    registry = BotRegistry(args.db)
    try:
        _, token = registry.add(args.name)
    except InvalidBotNameError as error:
        print(f"rookery bots add: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"rookery bots add: {error} (remove it first to issue a new token)", file=sys.stderr)
        return 1
    finally:
        registry.close()
    print(token)
    print(
        f"bot {args.name!r} registered; the token above is shown only this once",
        file=sys.stderr,
    )
    return 0


def _list(args: argparse.Namespace) -> int:
    from rookery.server import BotRegistry

    registry = BotRegistry(args.db)
    try:
        records = registry.list()
    finally:
        registry.close()
    for record in records:
        created = datetime.datetime.fromtimestamp(record.created_at, datetime.UTC)
        state = "active" if record.active else "revoked"
        print(f"{record.name}\t{state}\t{created:%Y-%m-%d %H:%M}Z\t{record.version or '-'}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from rookery.server import BotRegistry, UnknownBotError

    registry = BotRegistry(args.db)
    try:
        registry.remove(args.name)
    except UnknownBotError as error:
        print(f"rookery bots remove: {error}", file=sys.stderr)
        return 1
    finally:
        registry.close()
    print(f"bot {args.name!r} revoked", file=sys.stderr)
    return 0
