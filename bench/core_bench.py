"""Throughput of the native Rook core (``rookery_core``, built from ``core/`` by ``make setup``),
against the Python paths it is to replace, measured in the same run.

Run: ``python bench/core_bench.py``. Figures are per CPU second of this process
(``time.process_time``), medians of 3 runs of about a second each (the baselines: a fixed,
smaller number of steps), standard preset:

    core.vector[python] table_steps/s=... n=1024     RookVectorEnv(backend="python"): reset,
                                                     then step() with random legal ids chosen
                                                     with numpy from the masks (observations
                                                     and masks made)
    core.vector[core] table_steps/s=... n=1024       rookery_core.Batch: the same loop into
                                                     preallocated arrays (observations, masks,
                                                     seats, rewards, done)
    core.vector[env core] table_steps/s=... n=1024   RookVectorEnv(backend="core"): the first
                                                     loop on the core (it returns copies)
    core.vector ratio=...                            core over python, env core over python
    core.playout[engine] hands/s=...                 rookery.engine.random_playout, events off
                                                     (the build in use: the core or pure)
    core.playout[core] hands/s=...                   rookery_core.EngineGame.random_playout
    core.playout ratio=...
    core.api_playout[pure] actions/s=...             game.apply(game.legal_actions().sample(rng))
                                                     on the pure Game (_game.py), events off
    core.api_playout[Game] actions/s=...             the same loop on rookery.engine.Game (on
                                                     the core where it is built)
    core.api_playout ratio=...
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from rookery.engine import Game, Ruleset, build_info, random_playout
from rookery.engine._game import Game as PureGame

try:
    import rookery_core
except ImportError:
    print("core: rookery_core is not built (no Rust toolchain): nothing to measure")
    sys.exit(0)

import rookery.engine._core_game  # noqa: F401  (binds the engine's values to the core)
from rookery.envs.vector import RookVectorEnv

TABLES = 1024
RULES = Ruleset.preset("standard").replace(max_hands=1)  # RookVectorEnv's one-hand episodes


def _median(run: Callable[[int], float]) -> float:
    return statistics.median(run(seed) for seed in range(3))


def _choose(rng: np.random.Generator, masks: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """A random legal id per row, chosen with numpy from the masks."""
    scores: npt.NDArray[np.float32] = rng.random(masks.shape, dtype=np.float32) * masks
    chosen: npt.NDArray[np.int64] = scores.argmax(axis=1).astype(np.int64)
    return chosen


def vector_python(seed: int) -> float:
    batch = RookVectorEnv(RULES, TABLES, backend="python")
    _, masks, _ = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    while steps < 6 * TABLES:
        _, masks, _, _, _ = batch.step(_choose(rng, masks))
        steps += TABLES
    return steps / (time.process_time() - start)


def vector_env_core(seed: int) -> float:
    batch = RookVectorEnv(RULES, TABLES, backend="core")
    _, masks, _ = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < 1.0:
        _, masks, _, _, _ = batch.step(_choose(rng, masks))
        steps += TABLES
    return steps / (time.process_time() - start)


def vector_core(seed: int) -> float:
    batch = rookery_core.Batch(rookery_core.Rules.from_dict(RULES.to_dict()), TABLES, seed)
    obs = np.zeros((TABLES, batch.observation_size), dtype=np.float32)
    masks = np.zeros((TABLES, batch.num_actions), dtype=np.int8)
    seats = np.zeros(TABLES, dtype=np.int64)
    rewards = np.zeros((TABLES, RULES.players), dtype=np.float32)
    done = np.zeros(TABLES, dtype=np.uint8)
    batch.write(obs, masks, seats)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < 1.0:
        batch.step(_choose(rng, masks), obs, masks, seats, rewards, done)
        steps += TABLES
    return steps / (time.process_time() - start)


def playout_pure(seed: int) -> float:
    rules = Ruleset.preset("standard")
    rng = random.Random(seed)
    hands = 0
    start = time.process_time()
    for game_seed in range(seed * 1000, seed * 1000 + 20):
        hands += len(random_playout(rules, game_seed, rng, events=False).hand_results)
    return hands / (time.process_time() - start)


def playout_core(seed: int) -> float:
    rules = rookery_core.Rules.from_dict(Ruleset.preset("standard").to_dict())
    hands = 0
    game_seed = seed * 100_000
    start = time.process_time()
    while time.process_time() - start < 1.0:
        game = rookery_core.EngineGame(rules, game_seed, events=False)
        game.random_playout(game_seed)
        hands += len(game._hand_results_plain(0))
        game_seed += 1
    return hands / (time.process_time() - start)


def api_playout(maker: Callable[..., Any]) -> Callable[[int], float]:
    def run(seed: int) -> float:
        rules = Ruleset.preset("standard")
        rng = random.Random(seed)
        actions = 0
        game_seed = seed * 100_000
        start = time.process_time()
        while time.process_time() - start < 1.0:
            game = maker(rules, game_seed, events=False)
            while not game.is_over:
                game.apply(game.legal_actions().sample(rng))
                actions += 1
            game_seed += 1
        return actions / (time.process_time() - start)

    return run


def main() -> None:
    python = _median(vector_python)
    print(f"core.vector[python] table_steps/s={python:,.0f} n={TABLES}", flush=True)
    native = _median(vector_core)
    print(f"core.vector[core] table_steps/s={native:,.0f} n={TABLES}", flush=True)
    env = _median(vector_env_core)
    print(f"core.vector[env core] table_steps/s={env:,.0f} n={TABLES}", flush=True)
    print(
        f"core.vector ratio={native / python:.1f} (core / python), "
        f"{env / python:.1f} (env core / python)",
        flush=True,
    )
    pure = _median(playout_pure)
    print(f"core.playout[engine] hands/s={pure:,.0f} ({build_info()})", flush=True)
    fast = _median(playout_core)
    print(f"core.playout[core] hands/s={fast:,.0f}", flush=True)
    print(f"core.playout ratio={fast / pure:.1f} (core / engine)", flush=True)
    pure_game = _median(api_playout(PureGame))
    print(f"core.api_playout[pure] actions/s={pure_game:,.0f}", flush=True)
    game = _median(api_playout(Game))
    print(f"core.api_playout[Game] actions/s={game:,.0f} ({build_info()})", flush=True)
    print(f"core.api_playout ratio={game / pure_game:.2f} (Game / pure)", flush=True)


if __name__ == "__main__":
    main()
