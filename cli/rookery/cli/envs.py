"""``rookery envs``: train a policy on the learning environments, check them (docs/ai.md)."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from rookery.engine import PRESETS, Ruleset

__all__ = ["register"]

_EXAMPLES = """\
examples:
  rookery envs train --steps 2000 --out policy.npz     # REINFORCE vs random, then evaluated
  ROOKERY_POLICY=policy.npz rookery bot run rookery.envs.bridge:LinearBot
  rookery envs check six-handed                        # PettingZoo, Gymnasium, OpenSpiel checks
"""

_NEEDS_RL = (
    "rookery envs needs the rl extra (PettingZoo, Gymnasium, OpenSpiel, numpy): "
    "pip install 'rookery-arena[rl]' (in a clone of the source: make setup)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery envs train`` and ``rookery envs check``."""
    parser = subparsers.add_parser(
        "envs",
        help="train a policy on the learning environments, or check them",
        description=(
            "Rook as PettingZoo, Gymnasium and OpenSpiel games (docs/ai.md). 'train' runs the "
            "small linear REINFORCE learner and saves a policy that 'rookery bot run "
            "rookery.envs.bridge:LinearBot' plays; 'check' runs each library's own checker."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="envs_command", metavar="COMMAND", required=True)
    train = commands.add_parser("train", help="train a linear policy and save it")
    train.add_argument("--preset", default="standard", choices=sorted(PRESETS))
    train.add_argument("--steps", type=int, default=2000, help="the learner's decisions (2000)")
    train.add_argument("--seed", type=int, default=1, help="the training deals' seed (1)")
    train.add_argument(
        "--eval-deals", type=int, default=100, help="fixed deals to evaluate on, every seat (100)"
    )
    train.add_argument("--out", type=Path, required=True, help="the policy file (.npz)")
    train.set_defaults(func=_train)
    check = commands.add_parser("check", help="run api_test, check_env and random_sim_test")
    check.add_argument("presets", nargs="*", metavar="PRESET", help="presets (default: all)")
    check.set_defaults(func=_check)


def _train(args: argparse.Namespace) -> int:
    try:
        from rookery.envs.learn import evaluate, train_linear
    except ImportError:
        print(_NEEDS_RL, file=sys.stderr)
        return 2
    if args.steps < 1 or args.eval_deals < 1:
        print("--steps and --eval-deals must be at least 1", file=sys.stderr)
        return 2
    rules = Ruleset.preset(args.preset)
    started = time.monotonic()
    policy = train_linear(rules, steps=args.steps, seed=args.seed)
    trained_s = time.monotonic() - started
    deals = range(10_000, 10_000 + args.eval_deals)
    before, after = evaluate(None, rules, deals), evaluate(policy, rules, deals)
    policy.save(args.out)
    print(f"trained {args.steps} steps on {args.preset} in {trained_s:.1f} s")
    print(
        f"mean reward a hand on {args.eval_deals} deals x every seat: random {before:+.3f}, "
        f"trained {after:+.3f}"
    )
    print(
        f"saved {args.out}; play it: ROOKERY_POLICY={args.out} rookery bot run "
        "rookery.envs.bridge:LinearBot"
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    try:
        import pyspiel  # type: ignore[import-not-found]
        from gymnasium.utils.env_checker import check_env
        from pettingzoo.test import api_test  # type: ignore[import-untyped]
        from rookery.envs import spiel
        from rookery.envs.aec import RookAECEnv
        from rookery.envs.gym import RookGymEnv
    except ImportError:
        print(_NEEDS_RL, file=sys.stderr)
        return 2
    unknown = [name for name in args.presets if name not in PRESETS]
    if unknown:
        print(
            f"unknown preset(s) {', '.join(unknown)}; valid: {', '.join(PRESETS)}", file=sys.stderr
        )
        return 2
    failures = 0
    for name in args.presets or list(PRESETS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                api_test(RookAECEnv(name), num_cycles=200, verbose_progress=False)
                check_env(RookGymEnv(name), skip_render_check=True)
                game = pyspiel.load_game(spiel.GAME_NAME, {"preset": name})
                pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
            except Exception as error:  # a checker's failure, reported per preset
                failures += 1
                print(f"{name}: FAILED: {type(error).__name__}: {error}")
                continue
        print(f"{name}: PettingZoo api_test, Gymnasium check_env, OpenSpiel random_sim_test passed")
    return 1 if failures else 0
