"""``rookery replay verify|show|export|analyze``: check, read, convert and analyse replay files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from google.protobuf import json_format
from rookery.engine import EngineError
from rookery.v1 import replay_pb2
from rookery.wire.errors import WireError
from rookery.wire.notation import TextGame, format_game, read_replays
from rookery.wire.replay import replay_text, verify_replay

from ._replay_analyze import add_analyze

__all__ = ["register"]

_EXAMPLES = """\
examples:
  rookery replay verify replays/*.jsonl.gz
  rookery replay show replays/game-0001.jsonl.gz | less
  rookery replay export replays/game-0001.jsonl.gz > game-0001.json
  rookery replay export --format text replays/game-0001.jsonl.gz > game-0001.rgn
  rookery replay verify game-0001.rgn
  rookery replay analyze replays/game-0001.jsonl.gz

Replay files are gzip JSON lines (one ReplayRecord per line); plain .jsonl files, a single
JSON Replay document (as written by 'export') and game notation text (as written by
'export --format text') are read too, told apart by content. See docs/replays.md.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery replay verify``, ``show`` and ``export``."""
    group = subparsers.add_parser(
        "replay",
        help="verify, show, export or analyse replay files",
        description="Check replay files by re-simulation, print them, or convert them to JSON.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    group.set_defaults(func=lambda args: _usage(group))
    commands = group.add_subparsers(title="replay commands", metavar="COMMAND")

    verify = commands.add_parser(
        "verify",
        help="re-simulate replays and check every deal, action and result",
        description=(
            "Re-simulate each replay with the engine from its ruleset, seed and actions and check "
            "the header's seats and clock, every hand's deal, every action's seat and legality "
            "(a rejected one must have been malformed or illegal), every hand's result and the "
            "game's result. Prints one line per problem (file, hand, action index, expected vs "
            "got) and exits 1 when any file fails or cannot be read; 0 when all verify. A file "
            "may be JSON lines (gzip or not), a JSON Replay or game notation text; the problems "
            "of a text file also name its line."
        ),
        epilog="example:\n  rookery replay verify replays/*.jsonl.gz",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("files", nargs="+", type=Path, metavar="FILE", help="replay files")
    verify.add_argument("-q", "--quiet", action="store_true", help="print only the problems")
    verify.set_defaults(func=_verify)

    show = commands.add_parser(
        "show",
        help="print a replay hand by hand",
        description="Print a replay as text: seats, then every hand's deal, auction, exchange, "
        "tricks and score, then how the game ended.",
        epilog="example:\n  rookery replay show replays/game-0001.jsonl.gz",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("file", type=Path, metavar="FILE", help="a replay file")
    show.set_defaults(func=_show)

    export = commands.add_parser(
        "export",
        help="print a replay as one canonical protobuf JSON document, or as game notation",
        description=(
            "Print the whole Replay message as canonical protobuf JSON on stdout, or with "
            "--format text as Rook game notation: tag pairs, then one line per hand (deal, every "
            "move, score). The text carries everything but think times; 'rookery replay verify' "
            "reads it back. The grammar is in docs/replays.md."
        ),
        epilog=(
            "examples:\n  rookery replay export replays/game-0001.jsonl.gz | jq .result\n"
            "  rookery replay export --format text replays/game-0001.jsonl.gz > game-0001.rgn"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_argument("file", type=Path, metavar="FILE", help="a replay file")
    export.add_argument(
        "--format",
        choices=("json", "text"),
        default="json",
        help="json: one canonical protobuf JSON document (the default); text: game notation",
    )
    export.set_defaults(func=_export)
    add_analyze(commands)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _read(path: Path) -> replay_pb2.Replay | None:
    try:
        games = read_replays(path)
    except WireError as error:
        print(error, file=sys.stderr)
        return None
    if len(games) != 1:
        print(f"{path}: holds {len(games)} games; this command reads one", file=sys.stderr)
        return None
    return games[0].replay


def _verify_game(path: Path, game: TextGame, label: str, quiet: bool) -> bool:
    problems = verify_replay(game.replay)
    for problem in problems:
        print(f"{path}:{game.locate(problem)}" if game.line else f"{path}: {problem}")
    if not problems and not quiet:
        print(f"{path}{label}: ok ({len(game.replay.hands)} hands)")
    return not problems


def _verify(args: argparse.Namespace) -> int:
    failed = total = 0
    for path in args.files:
        try:
            games = read_replays(path)
        except WireError as error:
            print(error)
            failed += 1
            total += 1
            continue
        for number, game in enumerate(games, start=1):
            label = f": game {number} (line {game.line})" if len(games) > 1 else ""
            total += 1
            if not _verify_game(path, game, label, args.quiet):
                failed += 1
    if total > 1 and not args.quiet:
        print(f"{total - failed} of {total} replays verify")
    return 1 if failed else 0


def _show(args: argparse.Namespace) -> int:
    replay = _read(args.file)
    if replay is None:
        return 1
    try:
        text = replay_text(replay)
    except (WireError, EngineError) as error:
        print(
            f"{args.file}: cannot show a replay that does not re-simulate: {error} "
            "(run 'rookery replay verify' for every problem)",
            file=sys.stderr,
        )
        return 1
    sys.stdout.write(text)
    return 0


def _export(args: argparse.Namespace) -> int:
    replay = _read(args.file)
    if replay is None:
        return 1
    if args.format == "text":
        try:
            sys.stdout.write(format_game(replay))
        except ValueError as error:
            print(f"{args.file}: {error}", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(json_format.MessageToJson(replay, indent=2) + "\n")
    return 0
