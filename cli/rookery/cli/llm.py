"""``rookery llm``: the ledger of language-model seats in an arena run (docs/ai.md)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

__all__ = ["register"]

_EXAMPLES = """\
examples:
  rookery llm ledger runs/arena-1          # tokens, cost, latency, invalid replies per bot
  rookery llm ledger runs/arena-1 --json   # the same, one JSON object per bot
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery llm ledger``."""
    parser = subparsers.add_parser(
        "llm",
        help="the ledger of language-model seats in an arena run",
        description=(
            "Language-model seats (rookery.envs.seat:TextSeatBot) note every move's attempts, "
            "invalid replies, provider errors, tokens, cost and latency in the replay. 'ledger' "
            "adds them up per bot over a run's replays, with the invalid-reply rate and the "
            "durability (decisions before the first invalid reply or missed move)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="llm_command", metavar="COMMAND", required=True)
    ledger = commands.add_parser("ledger", help="the ledger per bot of a run's replays")
    ledger.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="an arena run directory")
    ledger.add_argument("--json", action="store_true", help="one JSON object per bot")
    ledger.set_defaults(func=_ledger)


def _ledger(args: argparse.Namespace) -> int:
    from rookery.arena.records import format_ledger, run_ledger
    from rookery.wire.errors import ReplayFileError

    try:
        ledgers = run_ledger(args.run_dir)
    except (FileNotFoundError, ReplayFileError) as error:
        print(f"rookery llm ledger: {error}", file=sys.stderr)
        return 2
    if not ledgers:
        print(f"no language-model seat played in {args.run_dir}", file=sys.stderr)
        return 1
    if args.json:
        for bot in sorted(ledgers):
            led = ledgers[bot]
            record = asdict(led) | {
                "invalid_reply_rate": led.invalid_reply_rate,
                "mean_latency_ms": led.mean_latency_ms,
                "durability": led.durability,
            }
            print(json.dumps(record, sort_keys=True))
    else:
        print(format_ledger(ledgers))
    return 0
