"""Solve a benchmark deal set's double-dummy results (``rookery.client.deal_results``).

    python bench/deal_results.py benchmark/deals/standard-1000.txt --jobs 2

writes ``benchmark/deals/standard-1000-dd.txt``. Each deal is a whole hand solved within
``--node-limit`` nodes (10 million by default: about 2.5 s; 0 for none, and then a deal can take
minutes); a deal the limit stops keeps the bounds it proved. Solved deals are kept in
``<out>.partial`` as they come, so a stopped run goes on where it stopped; the results file is
written once every deal is solved. Prints each deal's time and, at the end, the distribution
of the times.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from _deal_solving import arguments, print_times, solve_rest
from rookery.client.benchmark import read_deal_set
from rookery.client.deal_results import (
    DEFAULT_NODE_LIMIT,
    DealResult,
    read_results,
    results_path,
    solve_deal,
    summary,
    write_results,
)


def _solve(node_limit: int, seed: int) -> tuple[DealResult, float]:
    started = time.perf_counter()
    result = solve_deal(seed, node_limit=node_limit)
    return result, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = arguments(
        __doc__.split("\n\n")[0], default_limit=DEFAULT_NODE_LIMIT, what="a deal's solve"
    )
    args = parser.parse_args(argv)
    deals = read_deal_set(args.deals)
    if args.first is not None:
        deals = deals.first(args.first)
    out: Path = args.out or results_path(args.deals)
    partial = out.with_name(out.name + ".partial")
    done: dict[int, DealResult] = {}
    if partial.exists():
        done = {result.seed: result for result in read_results(partial)}
    todo = [seed for seed in deals.seeds if seed not in done]
    solve = functools.partial(_solve, args.node_limit)
    times = solve_rest(todo, solve, done, jobs=args.jobs, partial=partial, total=len(deals))
    results = [done[seed] for seed in deals.seeds]
    write_results(out, results, node_limit=args.node_limit)
    partial.unlink()
    print(f"wrote {out}: {summary(results)}")
    print_times(times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
