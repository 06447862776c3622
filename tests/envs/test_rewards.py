"""The reward: zero-sum by default (own side's score change minus the other sides'), the side's own
change as the option named general-sum, on every env and on the OpenSpiel game."""

from __future__ import annotations

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import pytest
from envs_positions import ALL_PRESETS
from rookery.envs._core import Reward
from rookery.envs.aec import RookAECEnv
from rookery.envs.gym import RookGymEnv
from rookery.envs.spiel import GAME_NAME
from rookery.envs.vector import RookVectorEnv


def _random_hand(env: RookAECEnv, seed: int) -> dict[str, float]:
    """Every seat's total reward over one hand of random legal moves."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_the_default_reward_is_own_sides_change_minus_the_mean_of_the_other_sides(
    name: str,
) -> None:
    env = RookAECEnv(name)
    assert env.reward is Reward.ZERO_SUM
    scored = 0
    for seed in range(6):
        totals = _random_hand(env, seed)
        assert env.table is not None
        scores, rules = env.table.game.scores, env.ruleset
        for seat, agent in enumerate(env.possible_agents):
            own = scores[rules.sides[seat]]
            others = [s for side, s in enumerate(scores) if side != rules.sides[seat]]
            expected = (own - sum(others) / len(others)) / rules.deck_points
            assert totals[agent] == pytest.approx(expected)
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
        scored += any(scores)
    assert scored


def test_general_sum_pays_each_seat_its_own_sides_change() -> None:
    env = RookAECEnv("six-handed", reward="general-sum")
    totals = _random_hand(env, 5)
    assert env.table is not None
    scores, rules = env.table.game.scores, env.ruleset
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(scores[rules.sides[seat]] / rules.deck_points)
    assert any(totals.values())


def test_an_unknown_reward_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown reward 'zerosum'.*'zero-sum', 'general-sum'"):
        RookGymEnv("standard", reward="zerosum")
    with pytest.raises(ValueError, match="unknown reward"):
        RookVectorEnv("standard", 2, reward="win")


def _always_pass_rewards(reward: str, seeds: range) -> list[float]:
    """The learner's reward per hand at seat 0 when it passes whenever it may (else the lowest
    id) against three heuristic seats, on the engine's deals ``seeds``."""
    env = RookGymEnv("standard", seat=0, opponents="heuristic", reward=reward)
    out = []
    for seed in seeds:
        env.reset(options={"game_seed": seed})
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, step_reward, done, _, _ = env.step(0 if legal[0] == 0 else int(legal[0]))
            total += step_reward
        out.append(total)
    return out


def test_never_bidding_looks_free_on_general_sum_and_costs_on_the_default_reward() -> None:
    seeds = range(200, 260)
    general = _always_pass_rewards("general-sum", seeds)
    zero_sum = _always_pass_rewards("zero-sum", seeds)
    # (standard's dealer must bid when everybody passes: the only hands it can lose.)
    assert np.mean(general) > 0.1, np.mean(general)
    assert np.mean(zero_sum) < -0.1, np.mean(zero_sum)


def test_the_vector_envs_rewards_sum_to_zero_per_table() -> None:
    batch = RookVectorEnv("called-partner", 4)
    _, masks, _ = batch.reset(seed=3)
    paid = 0.0
    for _ in range(300):
        actions = [int(np.flatnonzero(m)[-1]) for m in masks]
        _, masks, _, rewards, _ = batch.step(actions)
        assert np.allclose(rewards.sum(axis=1), 0.0, atol=1e-6)
        paid += float(np.abs(rewards).sum())
    assert paid > 0


@pytest.mark.parametrize("name", ["standard", "five-handed", "cutthroat"])
def test_the_openspiel_game_is_zero_sum_by_default_and_general_sum_on_request(name: str) -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": name})
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.utility_sum() == 0.0
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    general = pyspiel.load_game(GAME_NAME, {"preset": name, "reward": "general-sum"})
    assert general.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(general, num_sims=2, serialize=False, verbose=False)
