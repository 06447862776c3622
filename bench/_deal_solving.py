"""What the two deal-set solving scripts share (``deal_results.py``, ``deal_pars.py``): their
arguments, solving the deals left in worker processes while each is logged to a partial file
(so a stopped run goes on where it stopped), and the distribution of the times."""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar


class Solved(Protocol):
    """A deal's solved line."""

    @property
    def seed(self) -> int: ...

    def line(self) -> str: ...


SolvedT = TypeVar("SolvedT", bound=Solved)


def arguments(description: str, *, default_limit: int, what: str) -> argparse.ArgumentParser:
    """The scripts' arguments: the deal set, ``--out``, ``--jobs``, ``--first``, ``--node-limit``
    (the most nodes ``what`` searches)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("deals", type=Path, help="a deal set file (benchmark/deals/*.txt)")
    parser.add_argument("--out", type=Path, help="the file written (default: beside the set)")
    parser.add_argument("--jobs", type=int, default=1, help="deals solved at once (default 1)")
    parser.add_argument("--first", type=int, help="only the set's first N deals")
    parser.add_argument(
        "--node-limit",
        type=int,
        default=default_limit,
        help=f"the most nodes {what} searches (default {default_limit:,}; 0: none)",
    )
    return parser


def solve_rest(
    todo: list[int],
    solve: Callable[[int], tuple[SolvedT, float]],
    done: dict[int, SolvedT],
    *,
    jobs: int,
    partial: Path,
    total: int,
) -> list[float]:
    """Solve the deals of the seeds ``todo`` (``solve``: a deal and its seconds) in ``jobs``
    processes into ``done``, each line appended to ``partial`` as it comes; the times."""
    print(f"{len(done)} deals solved before, {len(todo)} to solve", flush=True)
    times: list[float] = []
    with multiprocessing.Pool(jobs) as pool, partial.open("a") as log:
        for solved, seconds in pool.imap_unordered(solve, todo):
            done[solved.seed] = solved
            times.append(seconds)
            log.write(f"{solved.line()}\n")
            log.flush()
            print(f"{solved.line()}  {seconds:.2f} s  ({len(done)}/{total})", flush=True)
    return times


def print_times(times: list[float]) -> None:
    """The distribution of the deals' times."""
    if not times:
        return
    times = sorted(times)
    cut = [times[min(len(times) - 1, int(len(times) * share))] for share in (0.9, 0.95)]
    print(
        f"seconds a deal: median {statistics.median(times):.2f}, 90th {cut[0]:.2f}, "
        f"95th {cut[1]:.2f}, slowest {times[-1]:.2f}, total {sum(times):.0f}"
    )
