"""What the build benchmarks share: runs in fresh worker processes, interleaved, and medians.

``bench/engine_bench.py`` and ``bench/playout_bench.py`` each time one thing in several builds
(the pure modules, the compiled ones, a git ref's). Every run is a fresh process of one build,
and the builds take turns — one run of each, then again — so that the machine's load weighs on
all alike; a figure is the median of the runs, and a ratio is of those medians.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import tarfile
from collections.abc import Callable, Mapping
from pathlib import Path

#: What a worker prints as its last line, decoded.
Result = dict[str, object]


def parser(doc: str | None, baseline: str) -> argparse.ArgumentParser:
    """The options every build benchmark takes (``doc``: its docstring, the first line the
    description; ``baseline``: what ``--baseline REF`` runs of git REF), and its worker's."""
    parser = argparse.ArgumentParser(description=(doc or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--baseline",
        metavar="REF",
        help=f"also run {baseline} of git REF (e.g. main), exported to a temporary folder",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    return parser


def worker(command: list[str], env: Mapping[str, str]) -> Result:
    """Run one worker process; its last line of output is the JSON of its result."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
    result: Result = json.loads(done.stdout.splitlines()[-1])
    return result


def export(root: Path, ref: str, path: str, into: str) -> Path:
    """``path`` of git ``ref`` of the repository at ``root``, extracted below ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", ref, path], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return Path(into) / path


#: A source tree's package folders (those that exist go first on its workers' ``PYTHONPATH``).
TREE_PACKAGES = (
    "engine", "wire", "server", "clients/python", "arena", "cli", "web", "envs", "gen/python",
)  # fmt: skip


def tree_environment(tree: Path) -> dict[str, str]:
    """What runs the packages of the built source tree ``tree`` (``{"PYTHONPATH": ...}``)."""
    folders = [str(tree / folder) for folder in TREE_PACKAGES if (tree / folder).is_dir()]
    if not folders:
        raise SystemExit(f"{tree}: not a source tree (none of {', '.join(TREE_PACKAGES)})")
    return {"PYTHONPATH": ":".join(folders)}


def add_compiled(
    builds: dict[str, dict[str, str]], probe: list[str], env: dict[str, str], missing: str
) -> None:
    """Add the build ``make setup`` compiled, as ``compiled``, if a small ``probe`` run in
    ``env`` finds it in use; else say so (``missing``)."""
    if worker(probe, env)["build"] == "compiled":
        builds["compiled"] = env
    else:
        print(missing)


def interleaved(
    builds: Mapping[str, Mapping[str, str]],
    command: list[str],
    runs: int,
    after_each: Callable[[int], None] | None = None,
) -> dict[str, list[Result]]:
    """``runs`` rounds of one worker per build (``command --seed <round>`` in its environment);
    ``after_each(round)`` runs at the end of each round (another reference in the same turn)."""
    results: dict[str, list[Result]] = {name: [] for name in builds}
    for run in range(runs):
        for name, env in builds.items():
            results[name].append(worker([*command, "--seed", str(run)], env))
        if after_each is not None:
            after_each(run)
    return results


def median(results: list[Result], key: str) -> float:
    """The median of one figure over the runs."""
    return statistics.median(float(str(result[key])) for result in results)


def versus(rate: float, base_rate: float, name: str, base: str) -> str:
    """`` (1.23× base)``, or nothing for the base itself."""
    return f" ({rate / base_rate:.2f}× {base})" if name != base else ""
