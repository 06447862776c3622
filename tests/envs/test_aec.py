"""The PettingZoo AEC environment passes PettingZoo's own API and seed tests, every preset."""

from __future__ import annotations

import pytest
from envs_positions import ALL_PRESETS
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]
from rookery.engine import Game, Ruleset
from rookery.envs.aec import RookAECEnv


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("name", ALL_PRESETS)
def test_pettingzoos_api_test_passes(name: str) -> None:
    api_test(RookAECEnv(name), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_pettingzoos_seed_test_passes(name: str) -> None:
    seed_test(lambda: RookAECEnv(name), num_cycles=60)


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
