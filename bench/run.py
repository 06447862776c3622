"""Run every benchmark of Rookery in turn: what `make bench` does.

Each ``bench/*_bench.py`` script is self-contained, bounded in time, and prints one figure per line.
They run one after the other (never in parallel), each in its own process, so that one's load does
not skew another's figures.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

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


def main() -> int:
    failures = 0
    for script in scripts():
        print(f"== {script.stem}", flush=True)
        started = time.monotonic()
        done = subprocess.run([sys.executable, str(script)], check=False)
        print(f"   ({script.stem} took {time.monotonic() - started:.1f} s)", flush=True)
        if done.returncode != 0:
            print(f"!! {script.stem} failed with exit code {done.returncode}", flush=True)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
