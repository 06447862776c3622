"""``rookery replay verify|show|export``: check, read and convert replay files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from google.protobuf import json_format
from rookery.engine import EngineError
from rookery.v1 import replay_pb2
from rookery.wire.errors import WireError
from rookery.wire.replay import read_replay, replay_text, verify_replay

_EXAMPLES = """\
examples:
  rookery replay verify replays/*.jsonl.gz
  rookery replay show replays/game-0001.jsonl.gz | less
  rookery replay export replays/game-0001.jsonl.gz > game-0001.json

Replay files are gzip JSON lines (one ReplayRecord per line); plain .jsonl files and a single
JSON Replay document (as written by 'export') are read too. See docs/replays.md.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery replay verify``, ``show`` and ``export``."""
    group = subparsers.add_parser(
        "replay",
        help="verify, show or export replay files",
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
            "got) and exits 1 when any file fails or cannot be read; 0 when all verify."
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
        help="print a replay as one canonical protobuf JSON document",
        description="Print the whole Replay message as canonical protobuf JSON on stdout.",
        epilog="example:\n  rookery replay export replays/game-0001.jsonl.gz | jq .result",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_argument("file", type=Path, metavar="FILE", help="a replay file")
    export.set_defaults(func=_export)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _read(path: Path) -> replay_pb2.Replay | None:
    try:
        return read_replay(path)
    except WireError as error:
        print(error, file=sys.stderr)
        return None


def _verify(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        try:
            replay = read_replay(path)
        except WireError as error:
            print(error)
            failed += 1
            continue
        problems = verify_replay(replay)
        for problem in problems:
            print(f"{path}: {problem}")
        if problems:
            failed += 1
        elif not args.quiet:
            print(f"{path}: ok ({len(replay.hands)} hands)")
    if len(args.files) > 1 and not args.quiet:
        print(f"{len(args.files) - failed} of {len(args.files)} replays verify")
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
    sys.stdout.write(json_format.MessageToJson(replay, indent=2) + "\n")
    return 0
