"""The vector env's two backends deal the same games from the same seed: the Python tables draw
their game seeds as the native core's ``TableBatch`` does (SplitMix64, ``next_u64() >> 1``), so
observations, masks, seats, rewards and ends are byte-equal step for step, re-deals included;
and ``backend="auto"`` (the default) runs on the core wherever the engine does."""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np
import pytest
from rookery.engine import build_info
from rookery.envs._core import TableSeeds
from rookery.envs.vector import RookVectorEnv

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
needs_core = pytest.mark.skipif(
    shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None,
    reason="no Rust toolchain here: the native core is not built",
)


def test_table_seeds_are_splitmix64() -> None:
    # SplitMix64's published outputs for seed 0 (Vigna's splitmix64.c), then the core's shift.
    seeds = TableSeeds(0)
    assert [seeds.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert TableSeeds(0).next_seed() == 0xE220A8397B1DCDAF >> 1
    assert TableSeeds(2**64 + 5).next_u64() == TableSeeds(5).next_u64()


def _pair(preset: str, n: int, reward: str) -> tuple[RookVectorEnv, RookVectorEnv]:
    python = RookVectorEnv(preset, n, reward=reward, backend="python")
    core = RookVectorEnv(preset, n, reward=reward, backend="core")
    assert python.backend == "python" and core.backend == "core"
    return python, core


def _same(left: tuple[np.ndarray, ...], right: tuple[np.ndarray, ...]) -> None:
    assert len(left) == len(right)
    for a, b in zip(left, right, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


@needs_core
@pytest.mark.parametrize(
    ("preset", "reward"),
    [("standard", "zero-sum"), ("five-handed", "zero-sum"), ("cutthroat", "general-sum")],
)
def test_both_backends_deal_and_play_the_same_games(preset: str, reward: str) -> None:
    n = 16
    python, core = _pair(preset, n, reward)
    first = python.reset(seed=42)
    _same(first, core.reset(seed=42))
    rng = np.random.default_rng(7)
    masks = first[1]
    redealt = 0
    for step in range(300):
        if step == 150:  # a reset without a seed draws the next batch seed from the same stream
            after = python.reset()
            _same(after, core.reset())
            masks = after[1]
            redealt = 0
            continue
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        out = python.step(actions)
        _same(out, core.step(actions))
        masks = out[1]
        redealt += int(out[4].sum())
        assert python.episodes == core.episodes == redealt
        if step == 149:
            assert redealt >= n, redealt  # every table finished a game about once by now
    assert redealt >= n, redealt
    # The Python tables' games are the core's: the same game seed at every table.
    assert core._native is not None
    seeds = [core._native.table_seed(index) for index in range(n)]
    assert [table.game.seed for table in python.tables] == seeds


@needs_core
def test_different_seeds_deal_different_games() -> None:
    python, core = _pair("standard", 4, "zero-sum")
    assert python.reset(seed=1)[0].tobytes() != python.reset(seed=2)[0].tobytes()
    assert core.reset(seed=1)[0].tobytes() != core.reset(seed=2)[0].tobytes()


def test_auto_runs_on_the_core_wherever_the_engine_does() -> None:
    batch = RookVectorEnv("standard", 3)
    expected = "core" if build_info().kind == "core" else "python"
    assert batch.backend == expected
    obs, masks, _ = batch.reset(seed=5)
    assert obs.shape == (3, 811) and masks.sum(axis=1).min() > 0
    # On the core no Python table is made; in Python there is one per table.
    assert len(batch.tables) == (0 if expected == "core" else 3)
    assert RookVectorEnv("standard", 3, backend="python").backend == "python"


def test_an_unknown_backend_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"'auto', 'python' or 'core', got 'rust'"):
        RookVectorEnv("standard", 2, backend="rust")
