"""The Gymnasium single-agent environment passes Gymnasium's checker against every kind of bot."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from envs_positions import ALL_PRESETS
from gymnasium.utils.env_checker import check_env
from rookery.client.bots import random_policy
from rookery.engine import Action, LegalActions, Observation
from rookery.envs.gym import RookGymEnv


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_gymnasiums_check_env_passes_against_the_heuristic(name: str) -> None:
    # Made by id, so that the checker also renders in every other mode (human, ansi).
    check_env(gymnasium.make("Rook-v0", preset=name, seat=1, opponents="heuristic").unwrapped)


def test_human_mode_prints_the_view_after_reset_and_render_returns_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = RookGymEnv("standard", seat=2, opponents="random", render_mode="human")
    env.reset(seed=1)
    assert env.render() is None
    assert "You are seat 2 of 4" in capsys.readouterr().out


def test_gymnasium_makes_rook_v0_by_its_id() -> None:
    made = gymnasium.make("Rook-v0", preset="five-handed", seat=3, opponents="random")
    assert isinstance(made.unwrapped, RookGymEnv) and made.unwrapped.seat == 3
    obs, _ = made.reset(seed=1)
    assert obs.shape == made.observation_space.shape
    by_module = gymnasium.make("rookery.envs.gym:Rook-v0")
    assert isinstance(by_module.unwrapped, RookGymEnv)
    assert by_module.unwrapped.ruleset.name == "standard"


def test_check_env_passes_against_pimc_and_a_callable() -> None:
    calls: list[int] = []

    def first_legal(obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        calls.append(obs.seat)
        return legal[0]

    check_env(
        RookGymEnv("standard", opponents=["pimc", first_legal, random_policy]),
        skip_render_check=True,
    )
    assert set(calls) == {2}


def test_action_masks_match_the_info_mask_and_a_masked_agent_finishes_the_hand() -> None:
    env = RookGymEnv("standard", seat=0, opponents="random")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    total, done, steps = 0.0, False, 0
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        _, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert "illegal_action" not in info
        total += reward
        steps += 1
    assert env.table is not None and env.table.is_over
    rules = env.ruleset
    mine, theirs = env.table.game.scores[rules.sides[0]], env.table.game.scores[rules.sides[1]]
    assert total == pytest.approx((mine - theirs) / rules.deck_points)
    assert not env.action_masks().any()


def test_an_illegal_id_changes_nothing_and_costs_the_penalty() -> None:
    env = RookGymEnv("standard", opponents="random")
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    after, reward, done, _, info = env.step(illegal)
    assert info["illegal_action"] and reward == -0.1 and not done
    assert np.array_equal(after, obs)


def test_illegal_raise_refuses_an_illegal_id() -> None:
    env = RookGymEnv("standard", opponents="random", illegal="raise")
    env.reset(seed=4)
    with pytest.raises(ValueError, match="not legal now"):
        env.step(int(np.flatnonzero(~env.action_masks())[0]))


def test_an_unknown_bot_name_is_refused_with_the_names() -> None:
    with pytest.raises(ValueError, match=r"unknown bot 'nobody'.*heuristic"):
        RookGymEnv("standard", opponents="nobody")


def test_the_ansi_render_is_the_agents_view_when_it_is_to_act() -> None:
    env = RookGymEnv("cutthroat", seat=2, opponents="random", render_mode="ansi")
    env.reset(seed=8)
    text = env.render()
    assert text is not None and text.startswith("You are seat 2 of 3")


def test_gymnasiums_vector_env_steps_several_tables() -> None:
    from gymnasium.vector import SyncVectorEnv

    envs = SyncVectorEnv([lambda: RookGymEnv("standard", opponents="random")] * 4)
    obs, infos = envs.reset(seed=5)
    assert obs.shape == (4, 811)
    finished = 0
    for _ in range(60):
        masks = infos["action_mask"]
        # A finished table's mask is empty: its next action is ignored (Gymnasium resets it).
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])
        obs, _, terminated, _, infos = envs.step(actions)
        assert "illegal_action" not in infos
        finished += int(terminated.sum())
    assert finished >= 1
    envs.close()


def test_autoplay_leaves_the_agent_only_the_phases_it_does_not_name() -> None:
    helpers = dict.fromkeys(("name_trump", "bury", "call", "play"), "heuristic")
    env = RookGymEnv("standard", seat=0, opponents="heuristic", autoplay=helpers)
    decisions = 0
    for seed in range(20):
        env.reset(options={"game_seed": seed})
        done = False
        while not done:
            assert env.table is not None and env.table.game.phase.name == "BIDDING"
            legal = np.flatnonzero(env.action_masks())
            _, _, done, _, _ = env.step(int(legal[min(1, len(legal) - 1)]))
            decisions += 1
    assert 20 <= decisions < 80


def test_autoplay_refuses_an_unknown_phase_and_leaving_the_agent_nothing() -> None:
    with pytest.raises(ValueError, match=r"unknown phase 'trick' to autoplay; choose from BIDDING"):
        RookGymEnv("standard", autoplay={"trick": "heuristic"})
    every = dict.fromkeys(("bidding", "name_trump", "bury", "call", "play"), "random")
    with pytest.raises(ValueError, match="no phase to decide"):
        RookGymEnv("standard", autoplay=every)
