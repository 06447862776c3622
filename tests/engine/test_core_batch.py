"""The core's batch steps many tables from an array of action ids exactly as ``rookery.envs``'
tables do one by one: the same observation tensors, masks, seats to act, rewards and ends."""

from __future__ import annotations

import numpy as np
import pytest
from core_support import core, core_rules
from rookery.engine import PRESETS, Ruleset
from rookery.envs._core import RookTable
from rookery.envs._encoding import ActionCodec, ObservationEncoder


def arrays(batch: core.Batch, players: int) -> dict[str, np.ndarray]:
    n = batch.n
    return {
        "obs": np.zeros((n, batch.observation_size), dtype=np.float32),
        "masks": np.zeros((n, batch.num_actions), dtype=np.int8),
        "seats": np.zeros(n, dtype=np.int64),
        "rewards": np.zeros((n, players), dtype=np.float32),
        "done": np.zeros(n, dtype=np.uint8),
    }


def expected_rows(tables: list[RookTable], encoder: ObservationEncoder) -> dict[str, np.ndarray]:
    obs = np.zeros((len(tables), encoder.size), dtype=np.float32)
    masks = np.stack([table.mask() for table in tables])
    seats = np.array([table.current_player for table in tables], dtype=np.int64)
    for index, table in enumerate(tables):
        seat = table.current_player
        assert seat is not None
        encoder.encode_into(obs[index], table.observation(seat), table.pending_for(seat))
    return {"obs": obs, "masks": masks, "seats": seats}


def replay_batch(ruleset: Ruleset, n: int, steps: int, seed: int) -> int:
    """Steps a core batch and the envs' tables side by side; returns the games finished."""
    players = ruleset.players
    batch = core.Batch(core_rules(ruleset), n, seed)
    out = arrays(batch, players)
    encoder = ObservationEncoder(ruleset)
    assert batch.num_actions == ActionCodec(ruleset).size
    assert batch.observation_size == encoder.size
    tables = [RookTable.new(ruleset, batch.table(i).seed) for i in range(n)]
    batch.write(out["obs"], out["masks"], out["seats"])
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps):
        want = expected_rows(tables, encoder)
        for key, value in want.items():
            np.testing.assert_array_equal(out[key], value, err_msg=key)
        choice = rng.random(out["masks"].shape) * out["masks"]
        actions = choice.argmax(axis=1).astype(np.int64)
        batch.step(actions, out["obs"], out["masks"], out["seats"], out["rewards"], out["done"])
        for index, table in enumerate(tables):
            rewards = np.array(table.step(int(actions[index])), dtype=np.float32)
            np.testing.assert_array_equal(out["rewards"][index], rewards, err_msg=f"table {index}")
            assert bool(out["done"][index]) == table.is_over
            if table.is_over:
                finished += 1
                tables[index] = RookTable.new(ruleset, batch.table(index).seed)
    assert batch.episodes == finished
    return finished


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_batch_steps_as_the_envs_tables_do(name: str) -> None:
    ruleset = PRESETS[name].replace(max_hands=1)  # an episode of one hand, as RookVectorEnv plays
    finished = replay_batch(ruleset, 6, 150, seed=len(name))
    assert finished >= 6  # every table went through whole hands and was dealt again


def test_a_batch_of_whole_games_steps_as_the_envs_tables_do() -> None:
    assert replay_batch(PRESETS["called-partner"].replace(max_hands=3), 3, 400, seed=9) >= 1


def test_an_illegal_id_moves_no_table_and_names_the_table() -> None:
    ruleset = PRESETS["standard"]
    batch = core.Batch(core_rules(ruleset), 4, 1)
    out = arrays(batch, 4)
    batch.write(out["obs"], out["masks"], out["seats"])
    before = [batch.table(i)._observation_fields(-1, 0) for i in range(4)]
    hands = [batch.table(i).hands for i in range(4)]
    actions = np.zeros(4, dtype=np.int64)
    actions[2] = ActionCodec(ruleset).play0  # a card played during the auction
    with pytest.raises(ValueError, match="table 2: action id"):
        batch.step(actions, out["obs"], out["masks"], out["seats"], out["rewards"], out["done"])
    assert before == [batch.table(i)._observation_fields(-1, 0) for i in range(4)]
    assert hands == [batch.table(i).hands for i in range(4)]
    for bad in (-1, 10_000):
        actions[2] = bad
        with pytest.raises(ValueError, match="is not legal"):
            batch.step(actions, out["obs"], out["masks"], out["seats"], out["rewards"], out["done"])


def test_arrays_of_the_wrong_shape_type_or_flags_are_refused() -> None:
    batch = core.Batch(core_rules(PRESETS["standard"]), 4, 1)
    out = arrays(batch, 4)
    with pytest.raises(ValueError, match="obs: a writable C-contiguous array of 3244"):
        batch.write(out["obs"][:2], out["masks"], out["seats"])
    with pytest.raises(TypeError, match="masks"):
        batch.write(out["obs"], out["masks"].astype(np.float64), out["seats"])
    frozen = out["seats"].copy()
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        batch.write(out["obs"], out["masks"], frozen)
    with pytest.raises(TypeError, match="actions"):
        batch.step(
            np.zeros(4, dtype=np.int32),
            out["obs"],
            out["masks"],
            out["seats"],
            out["rewards"],
            out["done"],
        )
    with pytest.raises(ValueError, match="at least one table"):
        core.Batch(core_rules(PRESETS["standard"]), 0, 1)
    shared = np.zeros(4 * 811 * 4 + 4 * 190, dtype=np.uint8)
    with pytest.raises(ValueError, match="must not share memory"):
        obs = shared[: 4 * 811 * 4].view(np.float32)
        batch.write(obs, shared[:760].view(np.int8), out["seats"])
