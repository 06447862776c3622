"""Random-playout throughput of the rules engine through its public per-action API.

Run: ``python bench/engine_bench.py`` (with ``engine/`` on ``PYTHONPATH``). For ``standard``,
plays whole games with a seeded ``random.Random`` choosing uniformly among ``legal_actions()``
(``legal.sample(rng)``) and applying the choice, events on as for any user. Rates are per CPU
second of this process (``time.process_time``), so other load on the machine does not skew
them; prints the median of 5 runs:

    engine.random_playout hands/s=... actions/s=...
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from rookery.engine import Game, Ruleset


def one_run(ruleset: Ruleset, hands_wanted: int, seed: int) -> tuple[float, float]:
    """Play games until ``hands_wanted`` hands are done; return (hands/s, actions/s)."""
    rng = random.Random(seed)
    hands = actions = 0
    game_seed = seed * 1_000_003
    start = time.process_time()
    while hands < hands_wanted:
        game = Game(ruleset, game_seed)
        game_seed += 1
        while not game.is_over:
            game.apply(game.legal_actions().sample(rng))
        hands += len(game.hand_results)
        actions += len(game.actions)
    elapsed = time.process_time() - start
    return hands / elapsed, actions / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--hands", type=int, default=2000, help="hands per run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    ruleset = Ruleset.preset(args.preset)
    results = [one_run(ruleset, args.hands, run) for run in range(args.runs)]
    hands_per_s = statistics.median(hands for hands, _ in results)
    actions_per_s = statistics.median(actions for _, actions in results)
    label = (
        "engine.random_playout"
        if args.preset == "standard"
        else f"engine.random_playout[{args.preset}]"
    )
    print(f"{label} hands/s={hands_per_s:.0f} actions/s={actions_per_s:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
