"""The PettingZoo AEC environment passes PettingZoo's own API and seed tests, every preset."""

from __future__ import annotations

import numpy as np
import pytest
from envs_positions import ALL_PRESETS
from pettingzoo.test import api_test, render_test, seed_test  # type: ignore[import-untyped]
from rookery.engine import NUM_CARDS, Game, Ruleset
from rookery.envs.aec import RookAECEnv, env


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("name", ALL_PRESETS)
def test_pettingzoos_api_test_passes(name: str) -> None:
    api_test(RookAECEnv(name), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_pettingzoos_seed_test_passes(name: str) -> None:
    seed_test(lambda: RookAECEnv(name), num_cycles=60)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_pettingzoos_render_test_passes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: RookAECEnv(name, render_mode=render_mode))
    assert "You are seat" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("name", ["standard", "five-handed", "cutthroat"])
def test_the_wrapped_env_passes_the_api_test_too(name: str) -> None:
    api_test(env(name), num_cycles=200, verbose_progress=False)


def test_human_rendering_prints_the_seat_to_acts_view_after_reset_and_each_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    aec = RookAECEnv("standard", render_mode="human")
    aec.reset(seed=2)
    assert aec.render() is None
    first = capsys.readouterr().out
    assert first.count(f"You are seat {aec.agent_selection[-1]} of 4") == 2
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out.startswith(f"You are seat {aec.agent_selection[-1]} of 4")


def test_an_unknown_render_mode_is_refused_with_the_modes() -> None:
    with pytest.raises(ValueError, match=r"one of \['human', 'ansi'\], got 'rgb_array'"):
        RookAECEnv("standard", render_mode="rgb_array")


def test_the_wrapped_env_ends_the_episode_on_an_illegal_id_and_charges_its_seat() -> None:
    wrapped = env("standard", illegal_reward=-2.0)
    wrapped.reset(seed=1)
    cheat = wrapped.agent_selection
    wrapped.step(wrapped.unwrapped.codec.play0)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[cheat] == -2.0
    assert all(r == 0.0 for agent, r in wrapped.rewards.items() if agent != cheat)


def test_the_state_is_every_seats_view_then_the_nest_and_dead_cards() -> None:
    aec = RookAECEnv("nest-4")
    aec.reset(seed=9)
    state = aec.state()
    assert aec.state_space.contains(state)
    assert aec.table is not None
    size, deal = aec.encoder.size, aec.table.game.deal
    for seat, agent in enumerate(aec.possible_agents):
        view = state[seat * size : (seat + 1) * size]
        assert np.array_equal(view, aec.observe(agent)["observation"])
    tail = state[4 * size :]
    assert {int(c) for c in np.flatnonzero(tail[:NUM_CARDS])} == {
        c for c in range(NUM_CARDS) if deal.nest >> c & 1
    }
    assert {int(c) for c in np.flatnonzero(tail[NUM_CARDS:])} == {
        c for c in range(NUM_CARDS) if deal.dead >> c & 1
    }


def test_the_game_seed_option_deals_the_engines_game() -> None:
    env = RookAECEnv("standard")
    env.reset(options={"game_seed": 42})
    game = Game(Ruleset.preset("standard"), 42)
    assert env.table is not None
    assert env.table.game.hands == game.hands
    assert env.agent_selection == f"seat_{game.current_player}"


def test_an_illegal_id_is_refused_with_the_legal_ids() -> None:
    env = RookAECEnv("standard")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not legal now; legal ids"):
        env.step(env.codec.play0)


def test_the_ansi_render_shows_the_seat_to_act() -> None:
    env = RookAECEnv("standard", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text is not None and text.startswith(f"You are seat {env.agent_selection[-1]} of 4")
