"""Time of the native core's double-dummy solver (``rookery_core.DoubleDummy``) per position.

Run: ``python bench/dd_bench.py [--deals N] [--node-limit M] [--game-deals G] [--set-deals S]``.
Positions: the standard deck (B1..G14 and the Rook) shuffled by a seeded generator, every
seat dealt ``t`` cards, the nest's and the rest's cards out of play, trump and leader drawn,
seats 0 and 2 against 1 and 3; ``t`` = 5, 7, 9, 11 (200 deals each, at most ``N``) and 13 (the whole
hand, ``N`` deals: 1,000 by default, as ``make bench`` runs it). Each position is solved from
an empty table; a search past ``M`` nodes (2,000,000 by default) is given up and counted as
unsolved. Prints, per ``t``:

    dd.solve[t tricks] median_ms=... p95_ms=... max_ms=... solved=k/n nodes_median=... nodes_p95=...

and for the whole hand its distribution (``dd.solve[13 tricks] p10_ms=... p25_ms=...``). The
percentiles are over every deal, an unsolved deal counting as slower than any solved one
(``inf`` when more than that fraction of the deals is unsolved; its nodes are the limit's).
The node counts do not depend on the machine's load, the times do.

Then the whole hands that an analysis of real games solves (``--game-deals G``, 200 by
default, 0 for none): one ``standard`` hand of the heuristic reference bot at every seat
(deal seeds 5,000,000 on), once the bidder has named trump and buried; the first trick's
leader to play, the bidding side counted. Printed as ``dd.solve[13 tricks, heuristic games]``.

Last the benchmark's own deals (``--set-deals S``, 1,000 by default, 0 for none): the first S
deals of ``benchmark/deals/standard-1000.txt`` with the contract the heuristic reaches on each,
as their double-dummy results are solved (``rookery.client.deal_results``). Printed as
``dd.solve[13 tricks, benchmark deals]``.
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


#: A position: every seat's cards, the leader, trump and the side (a bit mask of seats).
Position = tuple[list[int], int, int, int]


def random_positions(tricks: int, deals: int) -> list[Position]:
    rng = random.Random(4400 + tricks)
    positions: list[Position] = []
    for _ in range(deals):
        deck = DECK[:]
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[s * tricks : (s + 1) * tricks]) for s in range(4)]
        trump = rng.randrange(4)
        positions.append((hands, rng.randrange(4), trump, 0b0101))
    return positions


def game_positions(deals: int) -> list[Position]:
    """The first trick of one ``standard`` hand of the heuristic bot at every seat."""
    from rookery.client.benchmark import BENCHMARK_RULESET, REFERENCES
    from rookery.engine import Game, Phase

    positions: list[Position] = []
    seed = 5_000_000
    while len(positions) < deals:
        game = Game(BENCHMARK_RULESET, seed, events=False)
        policies = [REFERENCES["heuristic"]() for _ in range(4)]
        rngs = [random.Random(f"dd-bench:{seed}:{seat}") for seat in range(4)]
        seed += 1
        while game.phase is not Phase.PLAY and not game.is_over:
            seat = game.current_player
            assert seat is not None
            observation = game.observation_for(seat)
            game.apply(policies[seat](observation, observation.legal_actions(), rngs[seat]))
        view = game.public_view()
        if game.is_over or view.trump is None or view.bidder is None:
            continue  # every seat passed
        side = 0b0101 if view.bidder % 2 == 0 else 0b1010
        positions.append((list(game.hands), view.current_trick.leader, int(view.trump), side))
    return positions


def set_positions(deals: int) -> list[Position]:
    """The first card of the heuristic's contract on each of the benchmark set's first deals."""
    from pathlib import Path

    from rookery.client.benchmark import read_deal_set
    from rookery.client.deal_results import contract_position

    path = Path(__file__).resolve().parents[1] / "benchmark" / "deals" / "standard-1000.txt"
    positions: list[Position] = []
    for seed in read_deal_set(path).seeds[:deals]:
        position = contract_position(seed)
        if position is not None:
            trump = position.result.trump
            assert trump is not None
            positions.append((list(position.hands), position.leader, int(trump), position.side))
    return positions


def measure(label: str, positions: list[Position], node_limit: int) -> list[str]:
    times: list[float] = []
    nodes: list[int] = []
    solved = 0
    for hands, leader, trump, side in positions:
        solver = rookery_core.DoubleDummy(4, trump, side, node_limit=node_limit)
        start = time.perf_counter()
        try:
            solver.solve(hands, leader)
        except ValueError:
            times.append(float("inf"))
        else:
            times.append(time.perf_counter() - start)
            solved += 1
        nodes.append(solver.nodes)
    deals = len(positions)
    lines = [
        f"dd.solve[{label}] median_ms={_percentile(times, 0.5) * 1000:.1f} "
        f"p95_ms={_percentile(times, 0.95) * 1000:.1f} "
        f"max_ms={max(times) * 1000:.1f} solved={solved}/{deals} "
        f"nodes_median={int(_percentile([float(n) for n in nodes], 0.5))} "
        f"nodes_p95={int(_percentile([float(n) for n in nodes], 0.95))}"
    ]
    if label.startswith("13 tricks"):
        lines.append(
            f"dd.solve[{label}] "
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
    parser.add_argument("--game-deals", type=int, default=200)
    parser.add_argument("--set-deals", type=int, default=1000)
    args = parser.parse_args()
    for tricks in (5, 7, 9, 11, 13):
        count = args.deals if tricks == 13 else min(200, args.deals)
        if count <= 0:
            continue
        positions = random_positions(tricks, count)
        for line in measure(f"{tricks} tricks", positions, args.node_limit):
            print(line, flush=True)
    if args.game_deals > 0:
        positions = game_positions(args.game_deals)
        for line in measure("13 tricks, heuristic games", positions, args.node_limit):
            print(line, flush=True)
    if args.set_deals > 0:
        positions = set_positions(args.set_deals)
        for line in measure("13 tricks, benchmark deals", positions, args.node_limit):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
