"""Time of the native core's double-dummy solver (``rookery_core.DoubleDummy``) per position.

Run: ``python bench/dd_bench.py [--deals N] [--node-limit M]``. Positions: the standard deck
(B1..G14 and the Rook) shuffled by a seeded generator, every seat dealt ``t`` cards, the
nest's and the rest's cards out of play, trump and leader drawn, seats 0 and 2 against 1 and
3; ``t`` = 5, 7, 9, 11 (200 deals each, at most ``N``) and 13 (the whole hand, ``N`` deals:
1,000 by default, as ``make bench`` runs it). Each position is solved from an empty table; a
search past ``M`` nodes (2,000,000 by default) is given up and counted as unsolved. Prints,
per ``t``:

    dd.solve[t tricks] median_ms=... p95_ms=... max_ms=... solved=k/n nodes_median=... nodes_p95=...

and for the whole hand its distribution (``dd.solve[13 tricks] p10_ms=... p25_ms=...``). The
percentiles are over every deal, an unsolved deal counting as slower than any solved one
(``inf`` when more than that fraction of the deals is unsolved; its nodes are the limit's).
The node counts do not depend on the machine's load, the times do.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

try:
    import rookery_core
except ImportError:
    print("dd: rookery_core is not built (no Rust toolchain): nothing to measure")
    sys.exit(0)

DECK = list(range(57))  # the standard deck: every rank of four suits and the Rook


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(tricks: int, deals: int, node_limit: int) -> list[str]:
    rng = random.Random(4400 + tricks)
    times: list[float] = []
    nodes: list[int] = []
    solved = 0
    for _ in range(deals):
        deck = DECK[:]
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[s * tricks : (s + 1) * tricks]) for s in range(4)]
        solver = rookery_core.DoubleDummy(4, rng.randrange(4), 0b0101, node_limit=node_limit)
        start = time.perf_counter()
        try:
            solver.solve(hands, rng.randrange(4))
        except ValueError:
            times.append(float("inf"))
        else:
            times.append(time.perf_counter() - start)
            solved += 1
        nodes.append(solver.nodes)
    lines = [
        f"dd.solve[{tricks} tricks] median_ms={_percentile(times, 0.5) * 1000:.1f} "
        f"p95_ms={_percentile(times, 0.95) * 1000:.1f} "
        f"max_ms={max(times) * 1000:.1f} solved={solved}/{deals} "
        f"nodes_median={int(_percentile([float(n) for n in nodes], 0.5))} "
        f"nodes_p95={int(_percentile([float(n) for n in nodes], 0.95))}"
    ]
    if tricks == 13:
        lines.append(
            f"dd.solve[{tricks} tricks] "
            + " ".join(
                f"p{round(q * 100)}_ms={_percentile(times, q) * 1000:.1f}"
                for q in (0.1, 0.25, 0.75, 0.9, 0.99)
            )
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--node-limit", type=int, default=2_000_000)
    args = parser.parse_args()
    for tricks in (5, 7, 9, 11, 13):
        count = args.deals if tricks == 13 else min(200, args.deals)
        for line in measure(tricks, count, args.node_limit):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
