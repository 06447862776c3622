"""Random-playout throughput of the rules engine through its public per-action API, every build.

Run: ``python bench/engine_bench.py`` (``make bench`` runs it). For ``standard``, plays whole
games with a seeded ``random.Random`` choosing uniformly among ``legal_actions()``
(``legal.sample(rng)``) and applying the choice, events on as for any user: every deal, auction,
bury and trick of every hand is in the figure (the counting of hands and actions after each game
is not, as OpenSpiel's figure times its decisions alone). Each run is a fresh process of one
build: the pure engine (``ROOKERY_PURE_ENGINE=1``), ``Game`` on the native core (``core``, where
``make setup`` built it), and OpenSpiel's C++ ``spades`` through pyspiel for reference
(``bench/openspiel_spades.py``, in the side venv ``make bench`` sets up; its play alone, without
its deal); ``--baseline REF`` adds the pure engine of a git ref, ``--compiled-baseline DIR`` an
engine folder of an older ref with its own mypyc build. The runs are interleaved — pure, core,
spades, then again — so that the machine's load weighs on all alike; rates are per CPU second of
the process, medians of ``--runs``; the ratios are of those medians (``bench/build_runs.py``,
shared with ``bench/playout_bench.py``):

    engine.random_playout[pure] hands/s=... actions/s=...
    engine.random_playout[core] hands/s=... actions/s=... (x.xx× pure)
    openspiel.spades[play only] hands/s=... (pyspiel x.y.z; with its deal: ...)
    engine.core_vs_spades_play_only ratio=x.xx
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from build_runs import Result, add_compiled, export, interleaved, median, parser, versus, worker

ROOT = Path(__file__).resolve().parent.parent
#: The engine folder a worker imports (``--baseline`` points its workers at an exported one).
ENGINE_ENV = "ROOKERY_BENCH_ENGINE"
sys.path.insert(0, os.environ.get(ENGINE_ENV, str(ROOT / "engine")))

#: The side venv with pyspiel (``make bench`` creates it from ``openspiel-requirements.txt``).
OPENSPIEL_PYTHON = ROOT / "build" / "openspiel-venv" / "bin" / "python"
PURE_ENV = "ROOKERY_PURE_ENGINE"


def one_run(preset: str, hands_wanted: int, seed: int) -> dict[str, object]:
    """Play games until ``hands_wanted`` hands are done, in this process's engine build."""
    from rookery.engine import Game, Ruleset

    try:
        from rookery.engine import build_info

        info = build_info()
        build = "core" if getattr(info, "core", "") else info.kind
    except ImportError:  # an engine older than its compiled build (``--baseline``)
        build = "pure"
    ruleset = Ruleset.preset(preset)
    rng = random.Random(seed)
    hands = actions = 0
    game_seed = seed * 1_000_003
    clock = time.process_time
    elapsed = 0.0
    while hands < hands_wanted:
        start = clock()
        game = Game(ruleset, game_seed)
        while not game.is_over:
            game.apply(game.legal_actions().sample(rng))
        elapsed += clock() - start
        game_seed += 1
        hands += len(game.hand_results)  # counted off the clock, as the play alone is timed
        actions += len(game.actions)
    return {
        "build": build,
        "hands_per_s": hands / elapsed,
        "actions_per_s": actions / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, baseline="the pure engine")
    options.add_argument("--preset", default="standard")
    options.add_argument("--hands", type=int, default=3000, help="hands per run")
    options.add_argument(
        "--compiled-baseline",
        metavar="DIR",
        help="also run the engine folder DIR with its own compiled build (e.g. an export of an "
        "older ref built by its engine/compile_engine.py), as compiled@DIR",
    )
    args = options.parse_args(argv)
    if args.worker:
        print(json.dumps(one_run(args.preset, args.hands, args.seed)))
        return 0

    me = [sys.executable, __file__, "--worker", "--preset", args.preset, "--hands", str(args.hands)]
    plain = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    builds: dict[str, dict[str, str]] = {"pure": dict(plain, **{PURE_ENV: "1"})}
    exported = tempfile.TemporaryDirectory(prefix="rookery-baseline-")
    if args.baseline:
        engine = str(export(ROOT, args.baseline, "engine", exported.name))
        builds = {f"pure@{args.baseline}": dict(plain, **{ENGINE_ENV: engine}), **builds}
    if args.compiled_baseline:
        env = dict(plain, **{ENGINE_ENV: str(Path(args.compiled_baseline).resolve())})
        if worker([*me, "--hands", "1"], env)["build"] != "compiled":
            print(f"engine: {args.compiled_baseline} has no compiled build in use: not run")
        else:
            builds[f"compiled@{args.compiled_baseline}"] = env
    probe = worker([*me, "--hands", "1"], plain)["build"]
    if probe == "core":
        builds["core"] = plain
    else:
        add_compiled(builds, [*me, "--hands", "1"], plain, "engine: the core is not built here")
    spades = OPENSPIEL_PYTHON.exists() and args.preset == "standard"
    if not spades and args.preset == "standard":
        print(f"openspiel: {OPENSPIEL_PYTHON} is missing (make bench sets it up)")

    spades_results: list[Result] = []

    def spades_run(run: int) -> None:  # in the same turn as the builds' runs
        if spades:
            script = str(ROOT / "bench" / "openspiel_spades.py")
            command = [str(OPENSPIEL_PYTHON), script, "--hands", str(args.hands)]
            spades_results.append(worker([*command, "--seed", str(run)], plain))

    results = interleaved(builds, me, args.runs, after_each=spades_run)
    label = "engine.random_playout" + ("" if args.preset == "standard" else f"-{args.preset}")
    base = next(iter(results))  # the baseline when given, else the pure build
    pure_rate = median(results[base], "hands_per_s")
    for name, runs in results.items():
        rate, actions = median(runs, "hands_per_s"), median(runs, "actions_per_s")
        against = versus(rate, pure_rate, name, base)
        print(f"{label}[{name}] hands/s={rate:.0f} actions/s={actions:.0f}{against}")
    if spades_results:
        play_only = median(spades_results, "play_only_hands_per_s")
        whole = median(spades_results, "hands_per_s")
        version = spades_results[0]["version"]
        print(
            f"openspiel.spades[play only] hands/s={play_only:.0f} "
            f"(pyspiel {version}; with its deal: {whole:.0f})"
        )
        best = next((name for name in ("core", "compiled") if name in results), "pure")
        ours = median(results[best], "hands_per_s")
        print(f"engine.{best}_vs_spades_play_only ratio={ours / play_only:.2f}")
    exported.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
