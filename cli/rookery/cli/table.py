"""``rookery table create``: start a game between connected bots on a running server.

A bot connected to a server (``rookery bot run ... --server``) waits until a table seats it;
this command creates one through ``ArenaService.CreateTable``, and with ``--wait`` follows the
game to its end and prints the result.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc
    from rookery.v1 import arena_service_pb2_grpc

__all__ = ["register", "seat_bots"]

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      # one bot with four sessions takes every seat, and the game's result is printed
      rookery bot run rookery.client.bots.heuristic:HeuristicBot --sessions 4 &
      rookery table create --seat HeuristicBot --wait

      # two bots, one per side (the names repeat over the seats: a b a b)
      rookery table create --seat alpha --seat beta --preset standard --seed 7

    The names fill the ruleset's seats in order, repeated; a bot taking N seats needs N
    sessions. In token mode give the admin token (--admin-token or ROOKERY_ADMIN_TOKEN).

    exit codes: 0 created (with --wait: the game finished); 1 the game was aborted or did not
    finish in time; 2 bad arguments or refused by the server; 4 server unreachable.
    """
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery table create``."""
    group = subparsers.add_parser(
        "table", help="start a game between connected bots", description="Tables."
    )
    commands = group.add_subparsers(title="table commands", metavar="COMMAND")
    create = commands.add_parser(
        "create",
        help="create a table that seats connected bots (ArenaService.CreateTable)",
        description=(
            "Create a table on a running server. The game starts as soon as a session of each "
            "seated bot is connected; --wait follows it to the end and prints the result."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    create.add_argument(
        "--seat",
        action="append",
        required=True,
        metavar="NAME",
        help="a bot's name; repeatable; the names fill the seats in order, repeated",
    )
    create.add_argument(
        "--server",
        default=os.environ.get("ROOKERY_SERVER", "127.0.0.1:50051"),
        help="host:port of the server (env ROOKERY_SERVER; default %(default)s)",
    )
    create.add_argument("--preset", default="standard", help="the ruleset (default standard)")
    create.add_argument("--seed", type=int, default=0, help="the game's seed (default: random)")
    create.add_argument(
        "--admin-token",
        default=os.environ.get("ROOKERY_ADMIN_TOKEN", ""),
        help="the server's admin token, in token mode (env ROOKERY_ADMIN_TOKEN)",
    )
    create.add_argument("--wait", action="store_true", help="follow the game to its end")
    create.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds --wait follows the game, and the server is waited for (default 600)",
    )
    create.set_defaults(func=_create)


def seat_bots(names: list[str], players: int) -> list[str]:
    """One name per seat: ``names`` repeated over ``players`` seats (ValueError if too many)."""
    if len(names) > players:
        raise ValueError(f"{len(names)} names for {players} seats: give at most {players}")
    return [names[seat % len(names)] for seat in range(players)]


def _create(args: argparse.Namespace) -> int:
    import grpc
    from rookery.engine import Ruleset, RulesetError
    from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc

    try:
        players = Ruleset.preset(args.preset).players
        seats = seat_bots(args.seat, players)
    except (RulesetError, ValueError) as error:
        print(f"rookery table create: {error}", file=sys.stderr)
        return 2
    metadata = (("authorization", f"Bearer {args.admin_token}"),) if args.admin_token else ()
    request = arena_service_pb2.CreateTableRequest(
        preset=args.preset, seed=args.seed, seat_bots=seats
    )
    with grpc.insecure_channel(args.server) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        try:
            created = stub.CreateTable(
                request,
                metadata=metadata,
                timeout=min(args.timeout, 30.0),
                wait_for_ready=True,
            )
        except grpc.RpcError as error:
            return _refused(error, args.server)
        table = created.table
        print(f"table {table.table_id}: {', '.join(seats)} (seats 0-{players - 1})", flush=True)
        if not args.wait:
            return 0
        return _follow(stub, table.table_id, metadata, args.timeout)


def _refused(error: grpc.RpcError, server: str) -> int:
    import grpc

    code = error.code()
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        print(f"rookery table create: cannot reach the server at {server}", file=sys.stderr)
        return 4
    print(f"rookery table create: {code.name}: {error.details()}", file=sys.stderr)
    return 2


def _follow(
    stub: arena_service_pb2_grpc.ArenaServiceStub,
    table_id: str,
    metadata: tuple[tuple[str, str], ...],
    timeout: float,
) -> int:
    import grpc
    from rookery.v1 import arena_service_pb2, table_pb2
    from rookery.wire.convert import termination_name

    deadline = time.monotonic() + timeout
    announced = table_pb2.TABLE_STATUS_UNSPECIFIED
    while time.monotonic() < deadline:
        try:
            table = stub.GetTable(
                arena_service_pb2.GetTableRequest(table_id=table_id), metadata=metadata, timeout=10
            ).table
        except grpc.RpcError as error:
            print(f"rookery table create: {error.code().name}: {error.details()}", file=sys.stderr)
            return 1
        if table.status != announced:
            announced = table.status
            if table.status == table_pb2.TABLE_STATUS_WAITING:
                print("waiting for the seated bots to connect", flush=True)
            elif table.status == table_pb2.TABLE_STATUS_PLAYING:
                print("playing", flush=True)
        if table.status == table_pb2.TABLE_STATUS_FINISHED:
            result = table.result
            reason = termination_name(result.reason).lower()
            scores = ", ".join(f"side {i} {s}" for i, s in enumerate(result.scores))
            winners = ", ".join(f"side {w}" for w in result.winners) or "nobody"
            print(
                f"finished ({reason}) after {result.hands_played} hand(s): {scores}; "
                f"won by {winners}" + (f" ({result.detail})" if result.detail else "")
            )
            return 1 if reason == "aborted" else 0
        time.sleep(0.5)
    print(f"rookery table create: the game did not finish within {timeout:g} s", file=sys.stderr)
    return 1
