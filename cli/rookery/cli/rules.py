"""``rookery rules [PRESET]``: the presets, and every parameter of one."""

from __future__ import annotations

import argparse
import json
import sys

from rookery.engine import PRESETS, Partnership, Ruleset

__all__ = ["describe", "register"]

_EXAMPLES = """\
examples:
  rookery rules                 # every preset, one line each
  rookery rules traditional     # every parameter and derived value of one preset
  rookery rules six-handed --json
"""

_STANDARD = PRESETS["standard"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery rules``."""
    parser = subparsers.add_parser(
        "rules",
        help="list the rule presets, or show every parameter of one",
        description=(
            "Without PRESET: the presets with a one-line description each. With PRESET: every "
            "parameter of RULES.md and the derived values (deck size, hand size, nest, dead "
            "cards, deck points, sides)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("preset", nargs="?", metavar="PRESET", help="a preset name")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=_rules)


def _sides(ruleset: Ruleset) -> str:
    if ruleset.is_per_player:
        return "every seat its own side"
    groups = [ruleset.seats_of_side(side) for side in range(ruleset.num_sides)]
    return ", ".join("{" + ",".join(str(seat) for seat in group) + "}" for group in groups)


def _deck(ruleset: Ruleset) -> str:
    rooks = "ROOK" if ruleset.rook_cards == 1 else "ROOK, ROOK2"
    return f"{ruleset.deck_size} cards ({ruleset.lowest_rank}-14 in 4 suits + {rooks})"


def _deal(ruleset: Ruleset) -> str:
    dead = f" + {ruleset.dead_count} dead" if ruleset.dead_count else ""
    nest = f"nest {ruleset.nest_size}" if ruleset.nest_size else "no nest"
    return f"{ruleset.hand_size} each, {nest}{dead}"


def describe(ruleset: Ruleset) -> str:
    """One line: players and sides, deck, deal, and what differs from ``standard``."""
    partnership = {
        Partnership.FIXED: "fixed partners",
        Partnership.NONE: "cutthroat",
        Partnership.CALLED: "called partner",
    }[ruleset.partnership]
    parts = [
        f"{ruleset.players} players, {partnership}",
        f"{ruleset.deck_size} cards",
        _deal(ruleset),
    ]
    differences = []
    for name, value in ruleset.to_dict().items():
        if name in ("name", "players", "partnership", "nest_size", "lowest_rank"):
            continue
        if value != _STANDARD.to_dict()[name]:
            shown = str(value).lower() if isinstance(value, bool | str) else value
            differences.append(f"{name} {shown}")
    if ruleset.deck_points != _STANDARD.deck_points:
        differences.append(f"{ruleset.deck_points} points")
    return "; ".join(parts + differences)


def _derived(ruleset: Ruleset) -> dict[str, object]:
    return {
        "deck_size": ruleset.deck_size,
        "hand_size": ruleset.hand_size,
        "nest": ruleset.nest_size,
        "dead_cards": ruleset.dead_count,
        "deck_points": ruleset.deck_points,
        "effective_max_bid": ruleset.effective_max_bid,
        "sides": ruleset.num_sides,
        "per_player_scores": ruleset.is_per_player,
    }


def _rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        if args.json:
            print(json.dumps({name: describe(r) for name, r in PRESETS.items()}, indent=2))
            return 0
        width = max(len(name) for name in PRESETS)
        for name, preset in PRESETS.items():
            print(f"{name:<{width}}  {describe(preset)}")
        return 0
    ruleset = PRESETS.get(args.preset)
    if ruleset is None:
        print(
            f"rookery rules: unknown preset {args.preset!r}; valid presets: {', '.join(PRESETS)}",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps({"parameters": ruleset.to_dict(), "derived": _derived(ruleset)}, indent=2))
        return 0
    print(f"{ruleset.name}: {describe(ruleset)}")
    print("\nparameters:")
    for name, value in ruleset.to_dict().items():
        if name == "max_bid" and value is None:
            value = f"none (the deck's total, {ruleset.effective_max_bid})"
        print(f"  {name:<17} {value}")
    print("\nderived:")
    print(f"  {'deck size':<17} {_deck(ruleset)}")
    print(f"  {'hand size':<17} {ruleset.hand_size}")
    print(f"  {'nest':<17} {ruleset.nest_size}")
    print(f"  {'dead cards':<17} {ruleset.dead_count}")
    print(f"  {'deck points':<17} {ruleset.deck_points}")
    print(f"  {'max bid':<17} {ruleset.effective_max_bid}")
    print(f"  {'sides':<17} {ruleset.num_sides}: {_sides(ruleset)}")
    return 0
