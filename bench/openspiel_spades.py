"""OpenSpiel's C++ ``spades`` through pyspiel: the reference rate of ``bench/engine_bench.py``.

Runs in the benchmark's side venv (``make bench`` creates ``build/openspiel-venv`` with
``bench/openspiel-requirements.txt``), never in Rookery's own: Rookery does not depend on
OpenSpiel. Plays ``--hands`` hands (a spades game is one hand: 52 chance actions deal, then 4 bids
and 52 card plays), each decision drawn uniformly with a seeded ``random.Random`` from
``state.legal_actions()``, as Rookery's bench draws from ``legal_actions()``. Prints one JSON line:
hands per CPU second of the play alone (the 56 decisions: legal actions, choice, apply) and of
whole hands (new state and deal included).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game("spades")
    rng = random.Random(args.seed)
    clock = time.process_time
    play = 0.0
    decisions = 0
    start = clock()
    for _ in range(args.hands):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        began = clock()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            decisions += 1
        play += clock() - began
    total = clock() - start
    print(
        json.dumps(
            {
                "play_only_hands_per_s": args.hands / play,
                "hands_per_s": args.hands / total,
                "decisions_per_s": decisions / play,
                "version": pyspiel.__version__ if hasattr(pyspiel, "__version__") else "",
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
