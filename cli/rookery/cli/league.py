"""``rookery league``: run a league, submit versions, read the board, settle the season."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import re
import signal
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from rookery.v1 import arena_service_pb2_grpc, league_pb2

_Response = TypeVar("_Response")

__all__ = ["register"]

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      # the organiser: a registry of bots, a league on it, a season ending in two weeks
      rookery bots add alpha --db bots.sqlite          # prints alpha's token once
      rookery league serve --league league/league.sqlite --db bots.sqlite \\
          --admin-token "$ADMIN" --address 0.0.0.0:50051 --web-address 0.0.0.0:8080
      rookery league season spring --in 14d --admin-token "$ADMIN"

      # an author: submit a version of their bot (its folder is sent as an archive)
      ROOKERY_TOKEN=rk_... rookery league submit alpha ./my-bot --command "python bot.py" \\
          --build "make"
      rookery league board
      rookery league challenge alpha@3 beta@1 --pairs 10

      # the deadline ends submissions by itself; or end them now:
      rookery league final --admin-token "$ADMIN"

    docs/league.md runs a season from start to final ranking.
    """
)

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
#: The time control's defaults (``rookery.server.TimeControl``; a test holds them equal), here so
#: that ``--help`` needs no server import.
ACTION_MS = 5000
GRACE_MS = 10000
#: The bytes of an archive in each message of a submission's upload.
UPLOAD_CHUNK_BYTES = 256 * 1024


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery league serve|season|submit|versions|version|retire|disqualify|challenge|
    board|final``."""
    group = subparsers.add_parser(
        "league",
        help="a league: submitted versions rated all season, settled at the deadline",
        description=(
            "A league keeps one SQLite file of seasons, versions, games and ratings. Authors "
            "submit versions of their bots with the bot's token; the league builds them, "
            "qualifies them against the random bot, plays duplicate pairs continuously where "
            "the ranking is least certain, and at the deadline plays neighbours until they are "
            "separated or the budget is spent."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = group.add_subparsers(title="league commands", metavar="COMMAND")
    server_default = os.environ.get("ROOKERY_SERVER", "127.0.0.1:50051")

    def client(parser: argparse.ArgumentParser, token: str = "ROOKERY_TOKEN") -> None:
        parser.add_argument(
            "--server", default=server_default, help="the league's gRPC address (ROOKERY_SERVER)"
        )
        if token == "ROOKERY_TOKEN":
            parser.add_argument(
                "--token",
                default=os.environ.get("ROOKERY_TOKEN", ""),
                help="the bot's token, or the organiser's admin token (env ROOKERY_TOKEN)",
            )
        else:
            parser.add_argument(
                "--admin-token",
                default=os.environ.get("ROOKERY_ADMIN_TOKEN", ""),
                help="the organiser's token (env ROOKERY_ADMIN_TOKEN)",
            )

    serve = commands.add_parser("serve", help="run a league server until SIGTERM or SIGINT")
    serve.add_argument("--league", default="league/league.sqlite", help="the league's file")
    serve.add_argument("--address", help="gRPC HOST:PORT (default 127.0.0.1:50051)")
    serve.add_argument("--db", default="", help="the bot registry (token mode); empty: open")
    serve.add_argument(
        "--admin-token", default="", help="the organiser's token (env ROOKERY_ADMIN_TOKEN)"
    )
    serve.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML file of server options (as rookery serve's; ROOKERY_<OPTION> variables "
        "too); the flags here win",
    )
    serve.add_argument(
        "--max-message-mb",
        type=int,
        default=0,
        metavar="MIB",
        help="the largest gRPC message (default: the server's max_message_bytes, 1 MiB); "
        "bigger submissions are sent in chunks anyway",
    )
    serve.add_argument("--preset", default="standard", help="the rules (a partnership preset)")
    serve.add_argument("--target", type=int, default=0, help="override the preset's target")
    serve.add_argument("--max-hands", type=int, default=0, help="override max_hands")
    serve.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    serve.add_argument("--min-pairs", type=int, default=3, help="pairs a new version plays first")
    serve.add_argument("--bootstrap", type=int, default=100, help="refits per rating interval")
    serve.add_argument(
        "--action-ms", type=int, default=None, help=f"a move's time (default {ACTION_MS})"
    )
    serve.add_argument(
        "--grace-ms",
        type=int,
        default=None,
        help=f"how long a disconnected seat may take to come back (default {GRACE_MS})",
    )
    serve.add_argument("--join-timeout", type=float, default=30.0, help="seconds to join a game")
    serve.add_argument(
        "--sandbox", choices=("auto", "on", "off"), default="auto", help="run versions sandboxed"
    )
    serve.add_argument("--build-timeout", type=float, default=300.0, help="a build's seconds")
    serve.add_argument("--local-root", default="", help="local folders may be submitted from here")
    quotas = serve.add_argument_group("quotas (a refusal names the one spent)")
    quotas.add_argument(
        "--submissions-per-day",
        type=int,
        default=5,
        metavar="N",
        help="versions a bot may submit in any 24 h (default 5; 0: no limit)",
    )
    quotas.add_argument(
        "--challenge-pairs",
        type=int,
        default=16,
        metavar="N",
        help="challenge pairs a bot's versions may have queued (default 16; 0: no limit)",
    )
    quotas.add_argument(
        "--version-mb",
        type=int,
        default=256,
        metavar="MIB",
        help="what a submitted folder may hold (default 256)",
    )
    quotas.add_argument(
        "--build-mb",
        type=int,
        default=512,
        metavar="MIB",
        help="what a version's folder may hold while it builds and after (default 512)",
    )
    quotas.add_argument(
        "--log-mb",
        type=int,
        default=16,
        metavar="MIB",
        help="a version's runtime log kept on disk, its newest output (default 16; 0: all)",
    )
    cluster = serve.add_argument_group("a cluster (docs/scale.md)")
    cluster.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where pairs are played: here, or on a Ray cluster's workers (each keeps the "
        "versions' processes warm and plays a pair's two games, in its sandbox; builds run there "
        "too); this process records them",
    )
    cluster.add_argument(
        "--ray-address",
        default="",
        metavar="ADDR",
        help="the Ray cluster's head (HOST:PORT, ray://HOST:PORT or auto); default: a local Ray",
    )
    cluster.add_argument(
        "--ray-cpus-per-pair",
        type=float,
        default=1.0,
        metavar="N",
        help="CPUs a worker takes: it plays one pair at a time (default 1)",
    )
    cluster.add_argument(
        "--ray-max-retries",
        type=int,
        default=3,
        metavar="N",
        help="how often a pair whose worker or node died is played again elsewhere (default 3)",
    )
    cluster.add_argument(
        "--ray-connect-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds to wait for the cluster (default 60)",
    )
    serve.add_argument("--web-address", default="off", help="the league's pages (HOST:PORT)")
    serve.add_argument("--port-file", help="write the gRPC port here once serving")
    serve.add_argument("--web-port-file", help="write the pages' port here once serving")
    serve.set_defaults(func=_serve)

    season = commands.add_parser("season", help="start a new season (the organiser)")
    season.add_argument("name")
    when = season.add_mutually_exclusive_group(required=True)
    when.add_argument("--deadline", help="ISO 8601, e.g. 2026-12-24T18:00:00+00:00")
    when.add_argument("--in", dest="within", help="from now: 90s, 30m, 6h, 14d")
    season.add_argument("--confidence", type=float, default=0.95, help="final separation")
    season.add_argument("--budget", type=int, default=200, help="final pairs at most")
    client(season, "admin")
    season.set_defaults(func=_season)

    submit = commands.add_parser("submit", help="submit a new version of a bot (its token)")
    submit.add_argument("bot")
    submit.add_argument("folder", help="the bot's folder")
    submit.add_argument("--command", required=True, help="what runs it in its folder")
    submit.add_argument("--build", default="", help="a build step, run once in the sandbox")
    submit.add_argument("--note", default="")
    submit.add_argument(
        "--local", action="store_true", help="name the folder instead of sending it (--local-root)"
    )
    client(submit)
    submit.set_defaults(func=_submit)

    versions = commands.add_parser("versions", help="list versions")
    versions.add_argument("bot", nargs="?", default="")
    client(versions)
    versions.set_defaults(func=_versions)

    version = commands.add_parser(
        "version", help="one version; its build log and runtime log (the author, the organiser)"
    )
    version.add_argument("version_id")
    version.add_argument(
        "--log",
        type=int,
        nargs="?",
        const=65536,
        default=0,
        metavar="BYTES",
        help="also print the end of its runtime log, its processes' output (default 65536 "
        "bytes; at most 262144)",
    )
    client(version)
    version.set_defaults(func=_version)

    retire = commands.add_parser("retire", help="retire one of your versions")
    retire.add_argument("version_id")
    client(retire)
    retire.set_defaults(func=_retire)

    disqualify = commands.add_parser("disqualify", help="disqualify a version (the organiser)")
    disqualify.add_argument("version_id")
    disqualify.add_argument("--reason", default="")
    client(disqualify, "admin")
    disqualify.set_defaults(func=_disqualify)

    challenge = commands.add_parser("challenge", help="duplicate pairs against a named version")
    challenge.add_argument("version_id", help="one of your versions")
    challenge.add_argument("opponent")
    challenge.add_argument("--pairs", type=int, default=4)
    challenge.add_argument("--rated", action="store_true", help="count them for the ratings")
    client(challenge)
    challenge.set_defaults(func=_challenge)

    board = commands.add_parser("board", help="the board (or the final standings)")
    board.add_argument("--all", action="store_true", help="every active version, not the latest")
    client(board)
    board.set_defaults(func=_board)

    final = commands.add_parser("final", help="close submissions now, start the final evaluation")
    client(final, "admin")
    final.set_defaults(func=_final)


def _serve(args: argparse.Namespace) -> int:
    import dataclasses

    from rookery.arena.errors import ArenaError
    from rookery.arena.league import LeagueError, LeagueOptions, LeagueServer, RayPairsOptions
    from rookery.engine import Ruleset, RulesetError
    from rookery.server import ServerConfig, ServerConfigError, configure_logging

    try:
        ruleset = Ruleset.preset(args.preset)
        changes = {}
        if args.target:
            changes["target"] = args.target
        if args.max_hands:
            changes["max_hands"] = args.max_hands
        if changes:
            ruleset = dataclasses.replace(ruleset, **changes)
    except (RulesetError, KeyError, ValueError) as error:
        print(f"rookery league serve: {error}", file=sys.stderr)
        return 2
    overrides: dict[str, object] = {"log_level": "warning"}
    if args.address:
        overrides["address"] = args.address
    if args.db:
        overrides.update(db=args.db, auth="token")
    if args.admin_token:
        overrides["admin_token"] = args.admin_token
    if args.max_message_mb:
        overrides["max_message_bytes"] = args.max_message_mb * 1024 * 1024
    clock_given = {
        name: value
        for name, value in (("action_ms", args.action_ms), ("grace_ms", args.grace_ms))
        if value is not None
    }
    if clock_given:
        overrides["time_control"] = clock_given
    try:
        config = ServerConfig.load(args.config, overrides=overrides)
    except (ServerConfigError, ValueError, OSError) as error:
        print(f"rookery league serve: {error}", file=sys.stderr)
        return 2
    clock = config.time_control
    options = LeagueOptions(
        ruleset=ruleset,
        concurrency=args.concurrency,
        min_pairs=args.min_pairs,
        bootstrap=args.bootstrap,
        time_control=clock,
        sandbox=args.sandbox,
        build_timeout_s=args.build_timeout,
        local_root=Path(args.local_root) if args.local_root else None,
        join_timeout_s=args.join_timeout,
        open_mode=config.auth != "token",
        submissions_per_day=max(0, args.submissions_per_day),
        challenge_pairs=max(0, args.challenge_pairs),
        version_bytes=max(1, args.version_mb) * 1024 * 1024,
        build_bytes=max(1, args.build_mb) * 1024 * 1024,
        log_bytes=max(0, args.log_mb) * 1024 * 1024,
    )
    ray = None
    if args.backend == "ray":
        ray = RayPairsOptions(
            address=args.ray_address,
            cpus_per_pair=args.ray_cpus_per_pair,
            max_retries=max(0, args.ray_max_retries),
            connect_timeout_s=args.ray_connect_timeout,
        )
    elif args.ray_address:
        print("rookery league serve: --ray-address needs --backend ray", file=sys.stderr)
        return 2
    configure_logging("warning", json=True)

    async def run() -> int:
        # Before anything is announced: a SIGTERM right after the port file must stop it cleanly.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        try:
            running = await LeagueServer.start(args.league, config, options, ray=ray)
        except (LeagueError, ArenaError, OSError) as error:
            print(f"rookery league serve: {error}", file=sys.stderr)
            return 1
        web = None
        if args.web_address and args.web_address != "off":
            from rookery.web import WebServer

            web = WebServer(args.web_address, server=running.server, league=running.league)
            await web.start()
        if args.port_file:
            _write_port(args.port_file, running.server.port)
        if web is not None and args.web_port_file:
            _write_port(args.web_port_file, int(web.url.rpartition(":")[2]))
        print(
            f"league {args.league} serving on {running.server.target}"
            + (f", pages at {web.url}/league" if web is not None else ""),
            file=sys.stderr,
        )
        await stop.wait()
        if web is not None:
            await web.stop()
        await running.stop()
        return 0

    return asyncio.run(run())


def _write_port(path_text: str, port: int) -> None:
    path = Path(path_text)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{port}\n")
    os.replace(tmp, path)


def _call(
    args: argparse.Namespace,
    method: Callable[[arena_service_pb2_grpc.ArenaServiceStub], Callable[..., _Response]],
    request: object,
    token: str = "",
) -> _Response:
    """``method`` of the league's ArenaService called with ``request`` (and ``token``); the
    server's refusal as the command's error."""
    import grpc
    from rookery.v1 import arena_service_pb2_grpc

    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(args.server) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        try:
            return method(stub)(request, metadata=metadata, timeout=60)
        except grpc.RpcError as error:
            code = error.code().name if error.code() else "ERROR"
            raise SystemExit(
                f"rookery league: {code}: {error.details()}"  # the server's own words
            ) from None


def _deadline(args: argparse.Namespace) -> float:
    if args.within:
        match = _DURATION.match(args.within.strip())
        if not match:
            raise SystemExit(f"rookery league season: --in {args.within!r}: use 90s, 30m, 6h, 14d")
        unit = {"s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
        return datetime.datetime.now(datetime.UTC).timestamp() + float(match.group(1)) * unit
    try:
        when = datetime.datetime.fromisoformat(args.deadline)
    except ValueError as error:
        raise SystemExit(f"rookery league season: --deadline: {error}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()


def _season(args: argparse.Namespace) -> int:
    from google.protobuf.timestamp_pb2 import Timestamp
    from rookery.v1 import league_pb2

    deadline = Timestamp()
    deadline.FromNanoseconds(int(_deadline(args) * 1e9))
    request = league_pb2.CreateSeasonRequest(
        name=args.name,
        deadline=deadline,
        confidence=args.confidence,
        final_pair_budget=args.budget,
    )
    season = _call(args, lambda stub: stub.CreateSeason, request, args.admin_token).season
    print(f"season {season.name} (id {season.season_id}) until {season.deadline.ToJsonString()}")
    return 0


def _submit(args: argparse.Namespace) -> int:
    from rookery.arena.league import pack_folder
    from rookery.v1 import league_pb2

    request = league_pb2.SubmitVersionRequest(
        bot_name=args.bot, command=args.command, build=args.build, note=args.note
    )
    if args.local:
        request.local_folder = str(Path(args.folder).resolve())
        version = _call(args, lambda stub: stub.SubmitVersion, request, args.token).version
    else:
        try:
            archive = pack_folder(Path(args.folder))
        except (ValueError, OSError) as error:
            print(f"rookery league submit: {error}", file=sys.stderr)
            return 2
        # In chunks, whatever its size: an archive may be bigger than one message.
        chunks = [league_pb2.SubmitVersionUploadRequest(request=request)] + [
            league_pb2.SubmitVersionUploadRequest(archive_chunk=archive[i : i + UPLOAD_CHUNK_BYTES])
            for i in range(0, len(archive), UPLOAD_CHUNK_BYTES)
        ]
        version = _call(
            args, lambda stub: stub.SubmitVersionUpload, iter(chunks), args.token
        ).version
        print(f"sent {len(archive)} bytes in {len(chunks) - 1} chunks")
    print(f"{version.version_id} submitted (sha256 {version.content_sha256[:16]}): it builds")
    print("and plays its qualification game now; see `rookery league version ID`")
    return 0


_STATUS_NAMES = {
    0: "?",
    1: "building",
    2: "qualifying",
    3: "active",
    4: "build failed",
    5: "qualification failed",
    6: "retired",
    7: "disqualified",
}


def _line(version: league_pb2.BotVersion) -> str:
    if version.games:
        rating = f"{version.elo:+7.1f} ± {version.elo_error:5.1f} {version.games:>5}"
    else:
        rating = "no rated games"  # not 0.0 ± 0.0: it has no rating yet
    status = _STATUS_NAMES.get(version.status, "?")
    return f"{version.version_id:<24} {status:<20} {rating:<21}  {version.detail}"


def _versions(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.ListVersionsRequest(bot_name=args.bot)
    response = _call(args, lambda stub: stub.ListVersions, request, args.token)
    for version in response.versions:
        print(_line(version))
    return 0


def _version(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.GetVersionRequest(
        version_id=args.version_id, runtime_log_bytes=max(0, args.log)
    )
    response = _call(args, lambda stub: stub.GetVersion, request, args.token)
    print(_line(response.version))
    if not response.version.command:  # only its author and the organiser get it
        print("command, build and runtime logs: for the bot's token or the admin token only")
        return 0
    print(f"command: {response.version.command}")
    if response.version.build:
        print(f"build: {response.version.build}\n--- build log ---\n{response.build_log}")
    if args.log:
        print(f"--- runtime log (its last {args.log} bytes) ---\n{response.runtime_log}")
    return 0


def _retire(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.RetireVersionRequest(version_id=args.version_id)
    print(_line(_call(args, lambda stub: stub.RetireVersion, request, args.token).version))
    return 0


def _disqualify(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.DisqualifyVersionRequest(version_id=args.version_id, reason=args.reason)
    print(
        _line(_call(args, lambda stub: stub.DisqualifyVersion, request, args.admin_token).version)
    )
    return 0


def _challenge(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.ChallengeRequest(
        version_id=args.version_id,
        opponent_version_id=args.opponent,
        pairs=args.pairs,
        rated=args.rated,
    )
    challenge_id = _call(args, lambda stub: stub.Challenge, request, args.token).challenge_id
    print(f"challenge {challenge_id}: {args.pairs} pair(s) of {args.version_id} v {args.opponent}")
    return 0


def _board(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    response = _call(
        args,
        lambda stub: stub.GetLeagueBoard,
        league_pb2.GetLeagueBoardRequest(all_versions=args.all),
    )
    season = response.season
    state = {1: "open", 2: "final evaluation", 3: "closed"}.get(season.status, "?")
    print(f"season {season.name}: {state}, {season.pairs_played} pairs played")
    for line in response.standings:
        tie = "  ~" if line.tied_with_next else ""
        print(f"{line.rank:>3}. {_line(line.version)}{tie}")
    for verdict in response.verdicts:
        print(f"  {verdict}")
    return 0


def _final(args: argparse.Namespace) -> int:
    from rookery.v1 import league_pb2

    request = league_pb2.StartFinalEvaluationRequest()
    season = _call(args, lambda stub: stub.StartFinalEvaluation, request, args.admin_token).season
    print(f"season {season.name}: submissions closed, final evaluation started")
    return 0
