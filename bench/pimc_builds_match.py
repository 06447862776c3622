"""pimc on the native core against pimc on the pure engine, at the same time budget.

The question of issue 42: does pimc, at its default budget (0.2 s a card), play better when its
samples are drawn and played out on the native core (``rookery.engine.sample_deal`` and
``HeuristicPlayouts``)? The pure side is the same pimc on the pure engine and the Python playout
model (``ROOKERY_PURE_ENGINE=1``); the core side is what ``make setup`` builds. Each runs in
processes of its own, answering the decisions of the seats it holds; the games are played here,
on the engine.

A match is duplicate pairs of single ``standard`` hands: each deal is played twice, the core
pimc holding one side and then the other, so that the cards cancel out. A pair's figure is the
core side's hand score minus the pure side's, the mean of its two hands; the match reports
the mean over pairs with a 95 % bootstrap interval (over pairs), and the share of the hands'
points the core side won. Every pair is appended to ``--out`` (JSON lines) as it ends, and
a run given the same file goes on from where it stopped.

    .venv/bin/python bench/pimc_builds_match.py --pairs 600 --jobs 2 --out runs/pimc-builds.jsonl

``--jobs`` games are played at once (each one thinking seat at a time); on a 2-core machine, 2
gives each thinking seat about a core.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

PURE_ENV = "ROOKERY_PURE_ENGINE"
BUILDS = ("core", "pure")
SEED_BASE = 3_000_000
#: What each side's workers must run: (the engine's build, where the playouts run).
EXPECTED = {"core": ("core", "core"), "pure": ("pure", "pure")}


def _decider(connection: Connection, pure: bool, budget: float) -> None:
    """A worker of one build: answers ``(key, observation, legal)`` with an action, one pimc and
    one generator per key (a seat of a game)."""
    if pure:
        os.environ[PURE_ENV] = "1"
    else:
        os.environ.pop(PURE_ENV, None)
    from rookery.client.bots import PimcParameters, PimcPolicy
    from rookery.engine import HeuristicPlayouts, build_info

    kind = (build_info().kind, "core" if HeuristicPlayouts.available() else "pure")
    connection.send(kind)
    players: dict[str, tuple[Any, random.Random]] = {}
    while True:
        message = connection.recv()
        if message is None:
            return
        key, observation, legal = message
        if key not in players:
            players[key] = (PimcPolicy(PimcParameters(time_budget=budget)), random.Random(key))
        policy, rng = players[key]
        connection.send(policy(observation, legal, rng))
        if observation.phase.name == "PLAY" and observation.hand.bit_count() == 1:
            players.pop(key, None)  # its last card: the hand is over for this seat


@dataclass(frozen=True)
class PairResult:
    """One deal played twice: the core side's score minus the pure side's in each hand, and
    each side's points (for the share of points)."""

    seed: int
    margins: tuple[int, int]
    points: tuple[tuple[int, int], tuple[int, int]]

    @property
    def margin(self) -> float:
        return sum(self.margins) / 2


class Deciders:
    """One process of each build for one game at a time."""

    def __init__(self, budget: float) -> None:
        context = multiprocessing.get_context("spawn")
        self.connections: dict[str, Connection] = {}
        self.processes = []
        for build in BUILDS:
            here, there = context.Pipe()
            # Daemons: a side refused below must not keep the run waiting for its worker.
            process = context.Process(
                target=_decider, args=(there, build == "pure", budget), daemon=True
            )
            process.start()
            self.processes.append(process)
            engine, playouts = here.recv()
            if (engine, playouts) != EXPECTED[build]:
                raise SystemExit(
                    f"the {build} side runs the {engine} engine and {playouts} playouts "
                    "(run `make setup` first)"
                )
            print(f"{build} side: engine {engine}, playouts {playouts}", file=sys.stderr)
            self.connections[build] = here

    def decide(self, build: str, key: str, observation: Any, legal: Any) -> Any:
        connection = self.connections[build]
        connection.send((key, observation, legal))
        return connection.recv()

    def close(self) -> None:
        for connection in self.connections.values():
            connection.send(None)
        for process in self.processes:
            process.join(10)


def play_pair(deciders: Deciders, seed: int) -> PairResult:
    """Deal ``seed`` twice: the core pimc on side 0, then on side 1."""
    from rookery.engine import Game, Ruleset

    ruleset = Ruleset.preset("standard").replace(max_hands=1)
    margins: list[int] = []
    points: list[tuple[int, int]] = []
    for core_side in (0, 1):
        game = Game(ruleset, seed, events=False)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            build = BUILDS[0] if ruleset.side_of(seat) == core_side else BUILDS[1]
            observation = game.observation_for(seat)
            key = f"{seed}:{core_side}:{seat}"
            game.apply(deciders.decide(build, key, observation, observation.legal_actions()))
        (hand,) = game.hand_results
        ours, theirs = hand.score_deltas[core_side], hand.score_deltas[1 - core_side]
        margins.append(ours - theirs)
        points.append((hand.points_per_side[core_side], hand.points_per_side[1 - core_side]))
    return PairResult(seed, (margins[0], margins[1]), (points[0], points[1]))


def _play_seeds(args: tuple[Sequence[int], float, str]) -> None:
    seeds, budget, out = args
    deciders = Deciders(budget)
    try:
        for seed in seeds:
            pair = play_pair(deciders, seed)
            with open(out, "a", encoding="utf-8") as file:
                file.write(json.dumps({"seed": pair.seed, "margins": pair.margins,
                                       "points": pair.points}) + "\n")  # fmt: skip
    finally:
        deciders.close()


def load(out: Path) -> list[PairResult]:
    """The pairs recorded in ``out`` (a torn last line, from a run killed mid-write, is left)."""
    pairs = []
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            points = tuple(tuple(side) for side in row["points"])
            pairs.append(PairResult(row["seed"], tuple(row["margins"]), points))  # type: ignore[arg-type]
    return pairs


def summary(pairs: Sequence[PairResult], rounds: int = 4000) -> str:
    """The mean margin a hand, its 95 % bootstrap interval, and the core side's share."""
    margins = [pair.margin for pair in pairs]
    rng = random.Random(0)
    means = sorted(statistics.fmean(rng.choices(margins, k=len(margins))) for _ in range(rounds))
    low, high = means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]
    ours = sum(p[0] for pair in pairs for p in pair.points)
    total = ours + sum(p[1] for pair in pairs for p in pair.points)
    return (
        f"pimc core vs pure: {len(pairs)} pairs ({2 * len(pairs)} hands): "
        f"{statistics.fmean(margins):+.1f} points a hand, 95 % interval [{low:+.1f}, {high:+.1f}]; "
        f"share of the points {ours / max(total, 1):.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=200, help="duplicate pairs in all")
    parser.add_argument("--jobs", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--budget", type=float, default=0.2, help="seconds a card (default 0.2)")
    parser.add_argument("--seed", type=int, default=SEED_BASE, help="the first deal seed")
    parser.add_argument("--out", type=Path, default=Path("runs/pimc-builds.jsonl"))
    parser.add_argument("--summary", action="store_true", help="print the file's figures only")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {pair.seed for pair in load(args.out)}
    if not args.summary:
        seeds = [s for s in range(args.seed, args.seed + args.pairs) if s not in done]
        began = time.monotonic()
        chunks = [seeds[i :: args.jobs] for i in range(args.jobs)]
        # Processes of their own, not a pool's (a pool's workers may not start the deciders).
        context = multiprocessing.get_context("spawn")
        players = [
            context.Process(target=_play_seeds, args=((chunk, args.budget, str(args.out)),))
            for chunk in chunks
        ]
        for player in players:
            player.start()
        for player in players:
            player.join()
        print(f"played {len(seeds)} pairs in {time.monotonic() - began:.0f} s", file=sys.stderr)
    pairs = load(args.out)
    if not pairs:
        print("no pairs played")
        return 1
    print(summary(pairs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
