"""Throughput of the learning environments (``rookery.envs``), with OpenSpiel's C++ ``spades``
stepped by the same loop in the same run for scale.

Run: ``python bench/envs_bench.py`` (the ``rl`` extra installed). Each figure is env steps per CPU
second of this process (``time.process_time``), the median of 3 runs interleaved, random legal
actions drawn by ``random.Random(seed).choice`` from the legal ids (the mask's, for the AEC):

    envs.aec steps/s=...            PettingZoo AEC (standard): last() (tensor + mask), then step()
    envs.aec[pure] steps/s=...      the same on the pure engine (ROOKERY_PURE_ENGINE=1, a child
                                    process): the Python encoder, the fallback without the core
    envs.vector steps/s=... n=32    the batch on its default backend (the core where the engine
                                    runs on it): one step of 32 tables = 32 steps
    envs.openspiel.python_rook steps/s=...   legal_actions() + apply_action(), chance included
    envs.openspiel.spades steps/s=...        the same loop on pyspiel's C++ spades
    envs.openspiel.spades+obs steps/s=...    the same, with observation_tensor() at each decision
                                             (the work the AEC's last() does)
    envs.aec ratio=... / ...        the AEC over spades, and over spades with its tensors
    envs.openspiel ratio=...        python_rook over spades
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from rookery.envs import spiel
from rookery.envs.aec import RookAECEnv
from rookery.envs.vector import RookVectorEnv

STEPS = 30000


def _medians(runs: dict[str, Callable[[int], float]]) -> dict[str, float]:
    """Each run's median over seeds 0, 1, 2, the runs interleaved seed by seed."""
    figures: dict[str, list[float]] = {name: [] for name in runs}
    for seed in range(3):
        for name, run in runs.items():
            figures[name].append(run(seed))
    return {name: statistics.median(values) for name, values in figures.items()}


def aec(seed: int) -> float:
    env = RookAECEnv("standard")
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    while steps < STEPS:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(rng.choice(obs["action_mask"].nonzero()[0].tolist()))
        steps += 1
    return steps / (time.process_time() - start)


def aec_pure() -> float:
    """``aec``'s median on the pure engine, in a child process (the engine is chosen at import)."""
    code = "import bench.envs_bench as b; print(statistics.median(b.aec(s) for s in range(3)))"
    env = dict(os.environ, ROOKERY_PURE_ENGINE="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run(
        [sys.executable, "-c", f"import statistics; {code}"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(done.stdout.split()[-1])


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


def openspiel(
    name: str, params: dict[str, str], *, tensors: bool = False
) -> Callable[[int], float]:
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
                    if tensors:
                        state.observation_tensor()
                    state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps / (time.process_time() - start)

    return run


def main() -> None:
    warnings.simplefilter("ignore")
    figures = _medians(
        {
            "aec": aec,
            "python_rook": openspiel(spiel.GAME_NAME, {"preset": "standard"}),
            "spades": openspiel("spades", {}),
            "spades+obs": openspiel("spades", {}, tensors=True),
        }
    )
    rook, spades, spades_obs = figures["python_rook"], figures["spades"], figures["spades+obs"]
    print(f"envs.aec steps/s={figures['aec']:,.0f}", flush=True)
    print(f"envs.aec[pure] steps/s={aec_pure():,.0f}", flush=True)
    print(f"envs.vector steps/s={statistics.median(vector(s) for s in range(3)):,.0f} n=32")
    print(f"envs.openspiel.python_rook steps/s={rook:,.0f}", flush=True)
    print(f"envs.openspiel.spades steps/s={spades:,.0f}", flush=True)
    print(f"envs.openspiel.spades+obs steps/s={spades_obs:,.0f}", flush=True)
    print(
        f"envs.aec ratio={figures['aec'] / spades:.3f} (AEC / C++ spades) "
        f"{figures['aec'] / spades_obs:.3f} (AEC / C++ spades with tensors)",
        flush=True,
    )
    print(f"envs.openspiel ratio={rook / spades:.3f} (python_rook / C++ spades)", flush=True)


if __name__ == "__main__":
    main()
