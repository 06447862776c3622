"""Solve a benchmark deal set's pars (``rookery.client.deal_pars``).

    python bench/deal_pars.py benchmark/deals/standard-1000.txt --jobs 2

writes ``benchmark/deals/standard-1000-par.txt``: each deal's sixteen contracts (every seat
and trump, the heuristic's bury), each a whole hand solved within ``--node-limit`` nodes
(2 million by default; a contract the limit stops keeps the bounds it proved). Solved deals
are kept in ``<out>.partial`` as they come, so a stopped run goes on where it stopped; the
file is written once every deal is solved. Prints each deal's time and, at the end, their
distribution.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from _deal_solving import arguments, print_times, solve_rest
from rookery.client.benchmark import BENCHMARK_RULESET, read_deal_set
from rookery.client.deal_pars import (
    DEFAULT_NODE_LIMIT,
    DealPar,
    pars_path,
    parse_par,
    solve_deal_par,
    write_pars,
)
from rookery.engine import deal_for_hand


def _solve(node_limit: int, seed: int) -> tuple[DealPar, float]:
    # The set's deal of the seed (read_deal_set checked that the engine deals it), dealt here
    # rather than the whole set sent to the worker with every seed.
    started = time.perf_counter()
    deal = deal_for_hand(BENCHMARK_RULESET, seed, 0)
    par = solve_deal_par(seed, deal, node_limit=node_limit)
    return par, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = arguments(
        __doc__.split("\n\n")[0], default_limit=DEFAULT_NODE_LIMIT, what="a contract's solve"
    )
    args = parser.parse_args(argv)
    deals = read_deal_set(args.deals)
    if args.first is not None:
        deals = deals.first(args.first)
    out: Path = args.out or pars_path(args.deals)
    partial = out.with_name(out.name + ".partial")
    done: dict[int, DealPar] = {}
    if partial.exists():
        deal_of = dict(zip(deals.seeds, deals.deals, strict=True))
        for line in partial.read_text(encoding="utf-8").splitlines():
            seed = int(line.split()[0])
            if seed in deal_of:
                done[seed] = parse_par(line, deal_of[seed])
    todo = [seed for seed in deals.seeds if seed not in done]
    solve = functools.partial(_solve, args.node_limit)
    times = solve_rest(todo, solve, done, jobs=args.jobs, partial=partial, total=len(deals))
    write_pars(out, [done[seed] for seed in deals.seeds], node_limit=args.node_limit)
    partial.unlink()
    solved = sum(contract.total.known for par in done.values() for contract in par.contracts)
    print(f"wrote {out}: {len(done)} deals, {solved} of {16 * len(done)} contracts solved")
    print_times(times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
