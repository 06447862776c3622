"""The native core's view of a table (``rookery.engine.table_view``: the observation and
information-state tensors, legal mask and ids written by the core, steps by action id) gives
exactly what the pure encoder gives on the pure engine's game (the reference), byte for byte,
over many random games of every preset; and it refuses bad ids and bad arrays clearly,
changing nothing."""

from __future__ import annotations

import importlib.util
import random
import shutil

import numpy as np
import pytest
from envs_positions import ALL_PRESETS
from rookery.engine import Game, Partnership, Ruleset, build_info, table_view
from rookery.engine._game import Game as PureGame
from rookery.envs._core import Reward, RookTable, episode_rules

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)
# With the pure engine forced (ROOKERY_PURE_ENGINE=1) no game has a core view to compare.
if build_info().kind == "pure" and build_info().reason.startswith("ROOKERY_PURE_ENGINE"):
    pytest.skip(f"{build_info().reason}: the engine runs pure here", allow_module_level=True)


def _tables(
    ruleset: Ruleset, seed: int, reward: Reward = Reward.ZERO_SUM
) -> tuple[RookTable, RookTable]:
    """The same game as a table on the pure engine and as one on the core's view."""
    pure = RookTable(ruleset, PureGame(ruleset, seed, events=False), reward=reward)
    core = RookTable(ruleset, Game(ruleset, seed, events=False), reward=reward)
    assert table_view(pure.game) is None
    assert table_view(core.game) is not None
    return pure, core


def _assert_same_view(pure: RookTable, core: RookTable) -> None:
    assert core.legal_ids() == pure.legal_ids()
    assert core.mask().tobytes() == pure.mask().tobytes()
    for seat in range(pure.ruleset.players):
        expected = pure.tensor(seat)
        assert core.tensor(seat).tobytes() == expected.tobytes(), f"seat {seat}"
        tensor, mask = core.observe(seat)
        pure_tensor, pure_mask = pure.observe(seat)
        assert tensor.tobytes() == pure_tensor.tobytes()
        assert mask.tobytes() == pure_mask.tobytes()
        out = np.full(expected.size, 7.0, dtype=np.float32)
        core.tensor_into(out, seat)
        assert out.tobytes() == expected.tobytes()
        assert core.info_tensor(seat).tobytes() == pure.info_tensor(seat).tobytes()


def _play_alike(pure: RookTable, core: RookTable, rng: random.Random) -> int:
    """Random legal ids on both tables to the end, every view compared at every step."""
    steps = 0
    while not pure.is_over:
        _assert_same_view(pure, core)
        action_id = rng.choice(pure.legal_ids())
        assert core.step(action_id) == pure.step(action_id)
        assert (core.pending, core.bury_order) == (pure.pending, pure.bury_order)
        assert core.is_over == pure.is_over
        steps += 1
    _assert_same_view(pure, core)
    assert core.game.scores == pure.game.scores
    return steps


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_the_cores_tensors_masks_and_steps_are_the_pure_encoders_over_random_hands(
    name: str,
) -> None:
    ruleset = episode_rules(Ruleset.preset(name), 1)
    steps = 0
    for seed in range(12):
        pure, core = _tables(ruleset, seed * 7919 + 1)
        steps += _play_alike(pure, core, random.Random(seed))
    assert steps > 12 * ruleset.players  # whole hands, not only auctions


@pytest.mark.parametrize("name", ["standard", "called-partner", "cutthroat"])
def test_games_of_three_hands_agree_on_scores_rewards_and_tensors(name: str) -> None:
    ruleset = episode_rules(Ruleset.preset(name), 3)
    for seed, reward in ((3, Reward.ZERO_SUM), (4, Reward.GENERAL_SUM)):
        pure, core = _tables(ruleset, seed, reward)
        _play_alike(pure, core, random.Random(seed))
        assert pure.game.hand_number >= 2  # scores carried from hand to hand


def test_a_nest_of_one_card_is_buried_in_one_step_alike() -> None:
    ruleset = Ruleset(
        name="nest-of-one",
        players=4,
        partnership=Partnership.FIXED,
        lowest_rank=11,
        nest_size=1,
        min_bid=5,
        bid_step=5,
        max_bid=40,
        target=60,
        max_hands=2,
    )
    buried = 0
    for seed in range(6):
        pure, core = _tables(ruleset, seed)
        _play_alike(pure, core, random.Random(seed))
        buried += len(core.bury_order)
    assert buried >= 6  # every hand played has its one-card bury recorded


def test_an_id_outside_the_mask_is_refused_alike_and_changes_nothing() -> None:
    ruleset = episode_rules(Ruleset.preset("standard"), 1)
    pure, core = _tables(ruleset, 21)
    rng = random.Random(21)
    refused = 0
    while not pure.is_over:
        legal = set(pure.legal_ids())
        for action_id in (-1, pure.codec.size, *rng.sample(range(pure.codec.size), 4)):
            if action_id in legal:
                continue
            before = [core.tensor(seat).tobytes() for seat in range(4)]
            with pytest.raises(ValueError) as expected:
                pure.step(action_id)
            with pytest.raises(ValueError) as got:
                core.step(action_id)
            assert str(got.value) == str(expected.value)
            assert [core.tensor(seat).tobytes() for seat in range(4)] == before
            refused += 1
        action_id = rng.choice(sorted(legal))
        assert core.step(action_id) == pure.step(action_id)
    assert refused > 100
    with pytest.raises(ValueError, match="not legal now"):
        core.step(0)  # the game is over


def test_the_view_refuses_arrays_of_the_wrong_type_size_or_flags_and_seats_outside() -> None:
    game = Game(Ruleset.preset("standard"), 5, events=False)
    view = table_view(game)
    assert view is not None
    size, actions = view.observation_size, view.num_actions
    obs, mask = np.zeros(size, np.float32), np.zeros(actions, np.int8)
    with pytest.raises(TypeError, match="obs"):
        view.write(0, 0, np.zeros(size, np.float64))
    with pytest.raises(ValueError, match=f"obs: a writable C-contiguous array of {size} items"):
        view.write(0, 0, np.zeros(size - 1, np.float32))
    read_only = np.zeros(size, np.float32)
    read_only.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        view.write(0, 0, read_only)
    with pytest.raises(ValueError, match="mask: a writable C-contiguous array"):
        view.write(0, 0, obs, np.zeros((actions, 2), np.int8)[:, 0])
    shared = np.zeros(size * 4 + actions, np.uint8)
    with pytest.raises(ValueError, match="must not share memory"):
        view.write(0, 0, shared[: size * 4].view(np.float32), shared[8 : 8 + actions].view(np.int8))
    for seat in (-1, 4):
        with pytest.raises(ValueError, match=f"not a seat: {seat}"):
            view.write(seat, 0, obs, mask)
    info = np.zeros(view.info_size, np.float32)
    with pytest.raises(ValueError, match="bury_order: not a card: 58"):
        view.write_info(0, 0, 0, [58], info)
    with pytest.raises(ValueError, match="picked_up: not a card mask"):
        view.write_info(0, 0, 1 << 60, [], info)
    with pytest.raises(ValueError, match=f"out: a writable C-contiguous array of {info.size}"):
        view.write_info(0, 0, 0, [], obs)
    view.write(1, 0, obs, mask)
    assert obs.any() and mask.any()
