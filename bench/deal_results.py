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

import argparse
import functools
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("deals", type=Path, help="a deal set file (benchmark/deals/*.txt)")
    parser.add_argument("--out", type=Path, help="the results file (default: beside the set)")
    parser.add_argument("--jobs", type=int, default=1, help="deals solved at once (default 1)")
    parser.add_argument("--first", type=int, help="only the set's first N deals")
    parser.add_argument(
        "--node-limit",
        type=int,
        default=DEFAULT_NODE_LIMIT,
        help=f"the most nodes a deal's solve searches (default {DEFAULT_NODE_LIMIT:,}; 0: none)",
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
    print(f"{len(done)} deals solved before, {len(todo)} to solve", flush=True)
    times: list[float] = []
    with multiprocessing.Pool(args.jobs) as pool, partial.open("a") as log:
        solve = functools.partial(_solve, args.node_limit)
        for result, seconds in pool.imap_unordered(solve, todo):
            done[result.seed] = result
            times.append(seconds)
            log.write(f"{result.line()}\n")
            log.flush()
            print(f"{result.line()}  {seconds:.2f} s  ({len(done)}/{len(deals)})", flush=True)
    results = [done[seed] for seed in deals.seeds]
    write_results(out, results, node_limit=args.node_limit)
    partial.unlink()
    print(f"wrote {out}: {summary(results)}")
    if times:
        times.sort()
        cut = [times[min(len(times) - 1, int(len(times) * share))] for share in (0.9, 0.95)]
        print(
            f"seconds a deal: median {statistics.median(times):.2f}, 90th {cut[0]:.2f}, "
            f"95th {cut[1]:.2f}, slowest {times[-1]:.2f}, total {sum(times):.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
