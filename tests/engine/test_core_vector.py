"""``RookVectorEnv(backend="core")`` (``rookery.engine.TableBatch`` on the native core) returns
what its Python tables return for the same game seeds, step after step, for both rewards."""

from __future__ import annotations

import numpy as np
import pytest
from core_support import core  # noqa: F401  (skips the module where no Rust toolchain is found)
from rookery.engine import PRESETS, TableBatch
from rookery.envs._core import Reward, RookTable
from rookery.envs.vector import RookVectorEnv


def table_seeds(env: RookVectorEnv) -> list[int]:
    """The game seed of each of the env's tables (the core's batch knows them)."""
    native = env._native
    assert native is not None
    return [native.table_seed(index) for index in range(env.n)]


@pytest.mark.parametrize("reward", list(Reward))
@pytest.mark.parametrize("name", ["standard", "five-handed", "cutthroat", "traditional"])
def test_the_core_backend_returns_what_the_python_tables_return(name: str, reward: Reward) -> None:
    env = RookVectorEnv(name, 5, reward=reward, backend="core")
    obs, masks, seats = env.reset(seed=3)
    tables = [RookTable.new(env.ruleset, seed, reward=reward) for seed in table_seeds(env)]
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(200):
        for index, table in enumerate(tables):
            seat = table.current_player
            assert seat is not None and seats[index] == seat
            np.testing.assert_array_equal(obs[index], table.tensor(seat))
            assert np.flatnonzero(masks[index]).tolist() == table.legal_ids()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        obs, masks, seats, rewards, done = env.step(actions)
        assert done.dtype == np.bool_ and rewards.shape == (5, env.ruleset.players)
        seeds = table_seeds(env)
        for index, table in enumerate(tables):
            want = np.array(table.step(int(actions[index])), dtype=np.float32)
            np.testing.assert_array_equal(rewards[index], want)
            assert bool(done[index]) == table.is_over
            if table.is_over:
                finished += 1
                tables[index] = RookTable.new(env.ruleset, seeds[index], reward=reward)
    assert finished >= 5 and env.episodes == finished
    assert env.tables == []


def test_the_arrays_returned_are_the_callers_own() -> None:
    env = RookVectorEnv("standard", 3, backend="core")
    obs, masks, _ = env.reset(seed=1)
    kept_obs, kept_masks = obs.copy(), masks.copy()
    env.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))
    np.testing.assert_array_equal(obs, kept_obs)
    np.testing.assert_array_equal(masks, kept_masks)


def test_the_same_seed_gives_the_same_batch_and_bad_input_is_refused() -> None:
    one, two = (RookVectorEnv("standard", 4, backend="core") for _ in range(2))
    assert np.array_equal(one.reset(seed=7)[0], two.reset(seed=7)[0])
    with pytest.raises(ValueError, match=r"one action per table \(4\)"):
        one.step([0])
    with pytest.raises(ValueError, match="table 0: action id 999 is not legal"):
        one.step([999, 0, 0, 0])
    with pytest.raises(ValueError, match="backend must be"):
        RookVectorEnv("standard", 4, backend="rust")
    with pytest.raises(ValueError, match="at least one table"):
        TableBatch(PRESETS["standard"], 0, 1)
    with pytest.raises(ValueError, match="seed must be"):
        TableBatch(PRESETS["standard"], 2, -1)
    assert TableBatch.available()
