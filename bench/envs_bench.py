"""Throughput of the learning environments (``rookery.envs``), with OpenSpiel's C++ ``spades``
stepped by the same loop in the same run for scale.

Run: ``python bench/envs_bench.py`` (the ``rl`` extra installed). Each figure is env steps per CPU
second of this process (``time.process_time``), the median of 3 runs, random legal actions from a
seeded generator:

    envs.aec steps/s=...            PettingZoo AEC (standard): last() (tensor + mask), then step()
    envs.vector steps/s=... n=32    the batch: one step of 32 tables = 32 steps
    envs.openspiel.python_rook steps/s=...   legal_actions() + apply_action(), chance included
    envs.openspiel.spades steps/s=...        the same loop on pyspiel's C++ spades
    envs.openspiel ratio=...        python_rook over spades
"""

from __future__ import annotations

import random
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from rookery.envs import spiel
from rookery.envs.aec import RookAECEnv
from rookery.envs.vector import RookVectorEnv

STEPS = 6000


def _median(run: Callable[[int], float]) -> float:
    return statistics.median(run(seed) for seed in range(3))


def aec(seed: int) -> float:
    env = RookAECEnv("standard")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    while steps < STEPS:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps / (time.process_time() - start)


def vector(seed: int, n: int = 32) -> float:
    batch = RookVectorEnv("standard", n)
    _, masks, _ = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    while steps < STEPS:
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        _, masks, _, _, _ = batch.step(actions)
        steps += n
    return steps / (time.process_time() - start)


def openspiel(name: str, params: dict[str, str]) -> Callable[[int], float]:
    game = pyspiel.load_game(name, params)

    def run(seed: int) -> float:
        rng = random.Random(seed)
        steps = 0
        start = time.process_time()
        while steps < STEPS:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choice(outcomes)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps / (time.process_time() - start)

    return run


def main() -> None:
    warnings.simplefilter("ignore")
    print(f"envs.aec steps/s={_median(aec):,.0f}", flush=True)
    print(f"envs.vector steps/s={_median(vector):,.0f} n=32", flush=True)
    rook = _median(openspiel(spiel.GAME_NAME, {"preset": "standard"}))
    print(f"envs.openspiel.python_rook steps/s={rook:,.0f}", flush=True)
    spades = _median(openspiel("spades", {}))
    print(f"envs.openspiel.spades steps/s={spades:,.0f}", flush=True)
    print(f"envs.openspiel ratio={rook / spades:.3f} (python_rook / C++ spades)", flush=True)


if __name__ == "__main__":
    main()
