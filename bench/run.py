"""Run every benchmark of Rookery in turn: what `make bench` does.

Each ``bench/*_bench.py`` script is self-contained, bounded in time, and prints one figure per line.
They run one after the other (never in parallel), each in its own process, so that one's load does
not skew another's figures.

Some figures are against "today's" build: a git ref (issue 42's base commit ``d917ed0`` by
default) built as it was, once, by ``bench/baseline_tree.py`` into ``build/baseline-<commit>/``.
The benchmarks that compare with it get its tree (``WITH_BASELINE``), so that both sides are
measured in the same run. ``--baseline REF`` (``make bench BASELINE=REF``) names another ref,
``--baseline none`` skips it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from baseline_tree import DEFAULT_REF, BaselineError, build

HERE = Path(__file__).resolve().parent
#: The order in which the benchmarks run; scripts not listed run after these, by name.
ORDER = (
    "engine_bench",
    "playout_bench",
    "server_bench",
    "arena_bench",
    "ray_bench",
    "league_ray_bench",
)


def scripts() -> list[Path]:
    """The benchmark scripts present, in run order."""
    found = {p.stem: p for p in HERE.glob("*_bench.py")}
    ordered = [found.pop(name) for name in ORDER if name in found]
    return ordered + [found[name] for name in sorted(found)]


#: The benchmarks measured against the baseline tree: the option that hands it over, and whether
#: it is a run of its own after the usual one (``True``: the option makes the script compare the
#: two trees instead of printing its usual figures) or is added to the usual run.
WITH_BASELINE = {
    "server_bench": ("--baseline", True),
    "arena_bench": ("--baseline", True),
    "pimc_bench": ("--tree", False),
}


def commands(script: Path, tree: Path | None) -> list[list[str]]:
    """The runs of ``script``: its usual one, and what compares it with the baseline ``tree``."""
    usual = [sys.executable, str(script)]
    if tree is None or script.stem not in WITH_BASELINE:
        return [usual]
    option, separate = WITH_BASELINE[script.stem]
    compared = [*usual, option, str(tree)]
    return [usual, compared] if separate else [compared]


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    options.add_argument(
        "--baseline",
        default=DEFAULT_REF,
        metavar="REF",
        help=f"the git ref built as it was to compare with (default {DEFAULT_REF}; none: skip)",
    )
    args = options.parse_args(argv)
    tree = None
    if args.baseline != "none":
        try:
            tree = build(args.baseline)
        except BaselineError as error:
            print(f"!! baseline: {error}", file=sys.stderr)
            print("!! (make bench BASELINE=none runs without it)", file=sys.stderr, flush=True)
            return 2
    failures = 0
    for script in scripts():
        for command in commands(script, tree):
            name = " ".join([script.stem, *command[2:]])
            print(f"== {name}", flush=True)
            started = time.monotonic()
            done = subprocess.run(command, check=False)
            print(f"   ({name} took {time.monotonic() - started:.1f} s)", flush=True)
            if done.returncode != 0:
                print(f"!! {name} failed with exit code {done.returncode}", flush=True)
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
