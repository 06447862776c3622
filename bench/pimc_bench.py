"""pimc's playouts per decision at its default budget (0.2 s a card), in every build present.

Run: ``python bench/pimc_bench.py`` (``make bench`` runs it). The same fixed positions of
``standard`` (heuristic games stopped at a seeded point of the play, the seat to play holding
at least two distinct cards) are searched by ``PimcPolicy`` with its default parameters, and
each decision's ``SearchStats.playouts`` is counted: one playout per candidate card on each
completed sample. Each run is a fresh process of one build — the pure modules
(``ROOKERY_PURE_ENGINE=1``), the compiled ones (built by ``make setup``), and with
``--baseline REF`` the bots of git REF on today's engine, with ``--tree TREE`` the engine and
bots of a built source tree (issue 42's base commit with its mypyc-compiled engine, say: that
tree's packages first on ``PYTHONPATH``) — interleaved so that the machine's load weighs on all
alike; a figure is the median over the runs of the median decision:

    bots.pimc[pure] playouts/decision=... samples/decision=... playouts/cpu-s=... sampling=..%
    bots.pimc[compiled] playouts/decision=... samples/decision=... playouts/cpu-s=... sampling=..%
    (x.xx× pure)

    python bench/baseline_tree.py d917ed0    # builds build/baseline-d917ed0/ as it was, once
    python bench/pimc_bench.py --tree build/baseline-d917ed0 --runs 7

A pimc that counts no playouts (before ``SearchStats.playouts``) is counted from the outside:
its calls of ``PimcPolicy._utility`` (one a candidate card a sample), less those of a last sample
the deadline cut short, as the count does today.

The budget is wall-clock time, as in play: on a loaded machine every build gets fewer, so the
search's playouts per CPU second (sampling included) are printed too, and the share of a card
search's CPU that drawing the samples takes (the rest: the playouts). At the default
``samples = 128`` an unloaded core often reaches the sample cap before 0.2 s: more playouts
a decision then needs a higher cap as well as faster playouts.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from build_runs import export, interleaved, median, parser, tree_environment, versus, worker

if TYPE_CHECKING:
    from rookery.client.bots import PimcPolicy
    from rookery.engine import Observation

ROOT = Path(__file__).resolve().parent.parent
PURE_ENV = "ROOKERY_PURE_ENGINE"
#: A folder put first on a worker's path (``--baseline``: the exported ``clients/python``).
BOTS_ENV = "ROOKERY_BENCH_BOTS"
if os.environ.get(BOTS_ENV):
    sys.path.insert(0, os.environ[BOTS_ENV])


def positions(count: int, seed: int) -> list[Observation]:
    """``count`` observations of ``standard`` with a card to choose among distinct ones."""
    from rookery.client.bots import HeuristicPolicy
    from rookery.client.bots.pimc import distinct_cards
    from rookery.engine import PRESETS, Game, Phase

    rules = PRESETS["standard"]
    heuristic = HeuristicPolicy()
    found: list[Observation] = []
    index = 0
    while len(found) < count:
        rng = random.Random(seed * 100_003 + index)
        index += 1
        game = Game(rules, rng.randrange(1 << 64), events=False)
        stop = rng.randrange(rules.hand_size * rules.players - 8)
        plays = 0
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if obs.phase is Phase.PLAY:
                if plays == stop:
                    if len(distinct_cards(obs, obs.legal_actions().play)) > 1:
                        found.append(obs)
                    break
                plays += 1
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


def _build() -> str:
    """``core``, ``pure``, or ``compiled`` (an older tree's mypyc engine and its bots' playout
    model, ``_play`` and ``_simulate``, as its ``make setup`` built them) in this process; an
    older tree with only some of those compiled is ``partly compiled``, not today's build."""
    import importlib

    import rookery.engine
    from rookery.engine import build_info

    kind = build_info().kind
    if kind in ("core", "pure"):
        playouts = getattr(rookery.engine, "HeuristicPlayouts", None)
        return "core" if playouts is not None and playouts.available() else "pure"
    names = ("rookery.engine._game", "rookery.client.bots._play", "rookery.client.bots._simulate")
    compiled = {str(importlib.import_module(name).__file__).endswith(".so") for name in names}
    return {frozenset({True}): "compiled", frozenset({False}): "pure"}.get(
        frozenset(compiled), "partly compiled"
    )


class _PlayoutCount:
    """The playouts of an older pimc that counts none, counted as today's count does: each
    ``_utility`` call is one candidate card of a sample, and a sample starts with a
    ``HandSimulation.from_observation``; the calls of a last sample the deadline cut short (the
    samples started outnumber the completed ones) are left out."""

    def __init__(self, pimc: PimcPolicy) -> None:
        import importlib

        # An older tree's names, not this one's: typed as what they are to this tree, unknown.
        module: Any = importlib.import_module("rookery.client.bots.pimc")
        policy: Any = pimc
        self.calls = self.started = self.in_sample = 0
        utility = policy._utility
        simulation = module.HandSimulation
        count = self

        def counted_utility(*args: object) -> float:
            count.calls += 1
            count.in_sample += 1
            return float(utility(*args))

        class Counted:
            @staticmethod
            def from_observation(*args: object) -> object:
                count.started += 1
                count.in_sample = 0
                return simulation.from_observation(*args)

        policy._utility = counted_utility
        module.HandSimulation = Counted

    def take(self, completed: int) -> int:
        """The playouts of the search just done (``completed`` samples), and a fresh count."""
        playouts = self.calls - (self.in_sample if self.started > completed else 0)
        self.calls = self.started = self.in_sample = 0
        return playouts


def one_run(count: int, seed: int) -> dict[str, object]:
    """pimc's playouts and samples per decision on ``count`` positions (medians)."""
    from rookery.client.bots import PimcPolicy

    build = _build()
    pimc = PimcPolicy()
    counted = hasattr(pimc.last_search, "playouts")
    outside = None if counted else _PlayoutCount(pimc)
    playouts: list[int] = []
    samples: list[int] = []
    cpu = 0.0
    for index, obs in enumerate(positions(count, seed)):
        if outside is not None:
            outside.take(0)
        start = time.process_time()
        pimc.play(obs, obs.legal_actions().play, random.Random(index))
        cpu += time.process_time() - start
        search = pimc.last_search
        if outside is None:
            playouts.append(search.playouts)
        else:
            playouts.append(outside.take(search.samples))
        samples.append(search.samples)
    if not hasattr(pimc, "_card_values"):  # an older pimc: no split of its card search
        share: float | None = None
    else:
        sampling, playing = _split(pimc, positions(count, seed))
        share = sampling / (sampling + playing)
    return {
        "sampling_share": share,
        "build": build,
        "playouts": statistics.median(playouts),
        "samples": statistics.median(samples),
        "playouts_per_cpu_s": sum(playouts) / cpu,
    }


def _split(pimc: PimcPolicy, found: list[Observation]) -> tuple[float, float]:
    """CPU seconds of a card search's two parts on ``found``, 10 samples each: drawing the
    samples (``read_play_tries`` deals each, the likeliest kept) and valuing every candidate
    card on them (the playouts, on the core where it runs)."""
    from rookery.client.bots.pimc import _Budget, distinct_cards

    sampling = playing = 0.0
    for index, obs in enumerate(found):
        rng = random.Random(index)
        sampler = pimc._play_sampler(obs)
        cards = distinct_cards(obs, obs.legal_actions().play)
        values = pimc._card_values(obs)
        budget = _Budget(1 << 30, None)
        for _ in range(10):
            start = time.process_time()
            sample = sampler(rng)
            drawn = time.process_time()
            values(sample, cards, budget)
            sampling += drawn - start
            playing += time.process_time() - drawn
    return sampling, playing


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, baseline="the bots")
    options.add_argument("--positions", type=int, default=20, help="decisions per run")
    options.add_argument(
        "--tree", type=Path, metavar="TREE",
        help="also run the engine and bots of this built source tree (on its PYTHONPATH)",
    )  # fmt: skip
    args = options.parse_args(argv)
    if args.worker:
        print(json.dumps(one_run(args.positions, args.seed)))
        return 0

    me = [sys.executable, __file__, "--worker", "--positions", str(args.positions)]
    plain = {k: v for k, v in os.environ.items() if k not in (PURE_ENV, BOTS_ENV)}
    builds: dict[str, dict[str, str]] = {}
    exported = tempfile.TemporaryDirectory(prefix="rookery-baseline-")
    if args.baseline:
        folder = export(ROOT, args.baseline, "clients/python/rookery", exported.name).parent
        builds[f"{args.baseline}"] = dict(plain, **{BOTS_ENV: str(folder)})
    if args.tree:
        tree = dict(plain, **tree_environment(args.tree))
        probe_tree = [sys.executable, __file__, "--worker", "--positions", "1"]
        kind = worker(probe_tree, tree)["build"]
        if kind != "compiled":
            raise SystemExit(
                f"--tree {args.tree}: its build is {kind}, not a compiled engine and playout"
                " model (bench/baseline_tree.py builds a ref as it was)"
            )
        builds[f"tree {args.tree}"] = tree
    builds["pure"] = dict(plain, **{PURE_ENV: "1"})
    probe = [sys.executable, __file__, "--worker", "--positions", "1"]
    if worker(probe, plain)["build"] == "core":
        builds["core"] = plain
    else:
        print("bots: the native core is not in use here (make setup builds it)")

    results = interleaved(builds, me, args.runs)
    base = next(iter(results))  # the baseline or the tree when given, else the pure build
    base_rate = median(results[base], "playouts")
    for name, runs in results.items():
        rate = median(runs, "playouts")
        samples = median(runs, "samples")
        per_cpu = median(runs, "playouts_per_cpu_s")
        shares = [run for run in runs if run["sampling_share"] is not None]
        share = f" sampling={median(shares, 'sampling_share'):.0%}" if shares else ""
        print(
            f"bots.pimc[{name}] playouts/decision={rate:.0f} samples/decision={samples:.0f}"
            f" playouts/cpu-s={per_cpu:.0f}{share}"
            f"{versus(rate, base_rate, name, base)}"
        )
    named = f"tree {args.tree}"
    if "core" in results and named in results:
        # Issue 42's figure, measured: the core against today's pimc a decision and a CPU second.
        core, today = results["core"], results[named]
        print(
            f"bots.pimc[core] vs {named}:"
            f" {median(core, 'playouts') / median(today, 'playouts'):.1f}x playouts/decision,"
            f" {median(core, 'playouts_per_cpu_s') / median(today, 'playouts_per_cpu_s'):.1f}x"
            " playouts/cpu-s"
        )
    elif "core" in results and "pure" in results:
        # The compiled (mypyc) pimc that the core replaced did 4.3x the pure playouts (R2);
        # --tree measures it instead.
        ratio = median(results["core"], "playouts") / median(results["pure"], "playouts")
        print(f"bots.pimc[core] vs the former compiled pimc (4.3x pure): {ratio / 4.3:.1f}x")
    exported.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
