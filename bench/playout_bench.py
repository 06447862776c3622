"""Playouts per second of the search bot's playout model, both builds: what pimc's strength buys.

Run: ``python bench/playout_bench.py`` (``make bench`` runs it). The same fixed positions of
``standard`` (heuristic games stopped at a seeded point of the play, four sampled deals each) are
played out as pimc plays them for a card: ``HandSimulation.from_observation``, then per legal
card ``clone``, ``play``, ``play_out`` with the heuristic on every seat, and ``side_deltas``.
On the native core the same playouts run there (``rookery.engine.HeuristicPlayouts``, every
legal card of a sample in one call), the scores still in Python.
Each run is a fresh process of one build — the pure modules (``ROOKERY_PURE_ENGINE=1``), the
core (built by ``make setup``), and with
``--baseline REF`` the bots of git REF (exported to a temporary folder) on today's engine —
interleaved so that the machine's load weighs on all alike; rates are per CPU second, medians
of ``--runs``, the ratios of those medians (``bench/build_runs.py``, shared with the engine's):

    bots.playouts[pure] playouts/s=...
    bots.playouts[core] playouts/s=... (x.xx× pure)
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from build_runs import export, interleaved, median, parser, versus, worker

if TYPE_CHECKING:
    from rookery.engine import Observation

ROOT = Path(__file__).resolve().parent.parent
PURE_ENV = "ROOKERY_PURE_ENGINE"
#: A folder put first on a worker's path (``--baseline``: the exported ``clients/python``).
BOTS_ENV = "ROOKERY_BENCH_BOTS"
if os.environ.get(BOTS_ENV):
    sys.path.insert(0, os.environ[BOTS_ENV])


def one_run(positions: int, deals: int, seed: int) -> dict[str, object]:
    """Play out every legal card of ``positions`` positions on ``deals`` sampled deals each."""
    from rookery.client.bots import HeuristicPolicy
    from rookery.client.bots._sampling import sample_hands
    from rookery.client.bots._simulate import HandSimulation
    from rookery.engine import PRESETS, Game, HeuristicPlayouts, Phase

    build = "core" if HeuristicPlayouts.available() else "pure"
    rules = PRESETS["standard"]
    heuristic = HeuristicPolicy()
    work: list[tuple[Observation, list[int]]] = []
    for index in range(positions):
        rng = random.Random(seed * 100_003 + index)
        game = Game(rules, rng.randrange(1 << 64), events=False)
        stop = rng.randrange(rules.hand_size * rules.players - 8)
        plays = 0
        while True:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if obs.phase is Phase.PLAY:
                if plays == stop:
                    break
                plays += 1
            game.apply(heuristic(obs, obs.legal_actions(), rng))
        work.extend((obs, sample_hands(obs, rng).hands) for _ in range(deals))
    if build == "core":
        return _core_run(work)
    playouts = 0
    start = time.process_time()
    for obs, hands in work:
        base = HandSimulation.from_observation(obs, hands)
        legal = base.legal()
        for card in range(58):
            if legal >> card & 1:
                sim = base.clone()
                sim.play(card)
                sim.play_out()
                sim.side_deltas()
                playouts += 1
    elapsed = time.process_time() - start
    return {"build": build, "playouts_per_s": playouts / elapsed, "playouts": playouts}


def _core_run(work: list[tuple[Observation, list[int]]]) -> dict[str, object]:
    """The same playouts on the native core, and each one's score changes in Python."""
    from rookery.client.bots._simulate import (
        bidding_mask,
        called_partner,
        core_playouts,
        side_deltas,
    )

    playouts = 0
    start = time.process_time()
    for obs, hands in work:
        position = core_playouts(obs)
        legal = obs.legal_actions().play
        cards = [card for card in range(58) if legal >> card & 1]
        partner = called_partner(obs, hands)
        mask = bidding_mask(obs.ruleset, obs.bidder, partner)
        for won in position.play_out(hands, partner, mask, cards):
            side_deltas(obs.ruleset, won, obs.bidder, partner, obs.bid, 0)
            playouts += 1
    elapsed = time.process_time() - start
    return {"build": "core", "playouts_per_s": playouts / elapsed, "playouts": playouts}


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, baseline="the bots")
    options.add_argument("--positions", type=int, default=40, help="positions per run")
    options.add_argument("--deals", type=int, default=4, help="sampled deals per position")
    args = options.parse_args(argv)
    if args.worker:
        print(json.dumps(one_run(args.positions, args.deals, args.seed)))
        return 0

    me = [sys.executable, __file__, "--worker", "--positions", str(args.positions)]
    me += ["--deals", str(args.deals)]
    plain = {k: v for k, v in os.environ.items() if k not in (PURE_ENV, BOTS_ENV)}
    builds: dict[str, dict[str, str]] = {}
    exported = tempfile.TemporaryDirectory(prefix="rookery-baseline-")
    if args.baseline:
        folder = export(ROOT, args.baseline, "clients/python/rookery", exported.name).parent
        builds[f"{args.baseline}"] = dict(plain, **{BOTS_ENV: str(folder)})
    builds["pure"] = dict(plain, **{PURE_ENV: "1"})
    probe = [*me, "--positions", "1", "--deals", "1"]
    if worker(probe, plain)["build"] == "core":
        builds["core"] = plain
    else:
        print("bots: the native core is not in use here (make setup builds it)")

    results = interleaved(builds, me, args.runs)
    base = next(iter(results))  # the baseline when given, else the pure build
    base_rate = median(results[base], "playouts_per_s")
    for name, runs in results.items():
        rate = median(runs, "playouts_per_s")
        print(f"bots.playouts[{name}] playouts/s={rate:.0f}{versus(rate, base_rate, name, base)}")
    exported.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
