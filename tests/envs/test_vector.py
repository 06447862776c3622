"""The batch of tables: arrays of observations, masks and rewards; finished tables dealt again."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import rookery.envs.vector
from rookery.envs._core import RookTable
from rookery.envs.vector import RookVectorEnv


def test_the_module_examples_run() -> None:
    assert doctest.testmod(rookery.envs.vector).failed == 0


def test_a_batch_matches_its_tables_and_deals_finished_ones_again() -> None:
    batch = RookVectorEnv("five-handed", 6, backend="python")  # its tables, one per game
    obs, masks, seats = batch.reset(seed=9)
    rng = np.random.default_rng(9)
    finished = 0
    for _ in range(400):
        for i, table in enumerate(batch.tables):
            assert seats[i] == table.current_player
            assert np.array_equal(obs[i], table.tensor(int(seats[i])))
            assert np.flatnonzero(masks[i]).tolist() == table.legal_ids()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before: list[RookTable] = list(batch.tables)
        obs, masks, seats, rewards, done = batch.step(actions)
        assert rewards.shape == (6, 5)
        for index in np.flatnonzero(done).tolist():
            assert before[index].is_over and batch.tables[index] is not before[index]
        finished += int(done.sum())
    assert finished >= 6
    assert batch.episodes == finished


def test_a_batch_needs_one_action_per_table() -> None:
    batch = RookVectorEnv("standard", 2)
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"one action per table \(2\)"):
        batch.step([0])
