"""The OpenSpiel Python game passes OpenSpiel's random-simulation test on every preset."""

from __future__ import annotations

import random

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import pytest
from envs_positions import ALL_PRESETS
from rookery.envs.spiel import GAME_NAME, RookSpielState


def _load(name: str) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, {"preset": name})


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_openspiels_random_simulation_test_passes(name: str) -> None:
    pyspiel.random_sim_test(_load(name), num_sims=2, serialize=False, verbose=False)


def _played(name: str, seed: int, moves: int) -> RookSpielState:
    game = _load(name)
    state = game.new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", ["standard", "called-partner", "five-handed", "traditional"])
def test_resampling_keeps_the_players_information_state_and_redraws_the_others(name: str) -> None:
    state = _played(name, 7, 30)
    assert not state.is_terminal()
    changed = 0
    for player in range(state.num_players()):
        info = state.information_state_tensor(player)
        for draw in range(3):
            sample = state.resample_from_infostate(player, random.Random(draw).random)
            assert sample.information_state_tensor(player) == info
            assert sample.observation_tensor(player) == state.observation_tensor(player)
            assert sample.current_player() == state.current_player()
            if state.current_player() == player:
                assert sample.legal_actions() == state.legal_actions()
            changed += sample.table.game.hands != state.table.game.hands  # type: ignore[union-attr]
    assert changed > 0


def test_a_clone_is_independent() -> None:
    state = _played("standard", 3, 10)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()
    assert len(state.history()) + 1 == len(clone.history())


def test_the_tensors_have_the_games_sizes() -> None:
    game = _load("six-handed")
    state = _played("six-handed", 1, 12)
    assert len(state.observation_tensor(0)) == game.observation_tensor_size() == 1065
    assert len(state.information_state_tensor(3)) == game.information_state_tensor_size()
    assert np.array(state.observation_tensor(0)).max() <= 1.0


def test_openspiels_mcts_plays_a_hand_against_the_heuristic() -> None:
    from rookery.client.bots import HeuristicPolicy
    from rookery.envs.spiel import deal_state, engine_chooser, mcts_chooser, play_hand

    game = _load("standard")
    state = deal_state(game, 21)
    mcts = mcts_chooser(game, simulations=8, seed=1)
    heuristic = engine_chooser(HeuristicPolicy(), seed=1)
    returns = play_hand(state, [mcts, heuristic, mcts, heuristic])
    assert state.is_terminal() and state.table is not None
    rules = state.ruleset
    scores = state.table.game.scores
    margin = (scores[0] - scores[1]) / rules.deck_points
    assert returns == pytest.approx([margin, -margin, margin, -margin])
    assert len(state.table.game.actions) > 40


def test_openspiels_mcts_plays_a_whole_game_against_the_heuristic_from_observations() -> None:
    from rookery.client.bots import HeuristicPolicy, play_game
    from rookery.engine import Ruleset
    from rookery.envs.bridge import MctsBot

    rules = Ruleset.preset("standard").replace(target=50, max_hands=2)
    bot = MctsBot(simulations=6, seed=1)
    result = play_game(rules, 4, [bot.policy, HeuristicPolicy(), bot.policy, HeuristicPolicy()])
    assert result.hands_played >= 1 and result.reason.name in ("TARGET_REACHED", "MAX_HANDS")


def test_openspiels_ismcts_searches_information_states_through_our_resampling() -> None:
    from rookery.client.bots import HeuristicPolicy
    from rookery.envs.spiel import deal_state, engine_chooser, ismcts_chooser, play_hand

    game = _load("standard")
    state = deal_state(game, 5)
    ismcts = ismcts_chooser(game, simulations=4, seed=2)
    heuristic = engine_chooser(HeuristicPolicy(), seed=2)
    play_hand(state, [ismcts, heuristic, ismcts, heuristic])
    assert state.is_terminal()


def _ismcts_hand(seed: int) -> list[int]:
    from rookery.client.bots import HeuristicPolicy
    from rookery.envs.spiel import deal_state, engine_chooser, ismcts_chooser, play_hand

    game = _load("standard")
    state = deal_state(game, 5)
    ismcts = ismcts_chooser(game, simulations=4, seed=seed)
    heuristic = engine_chooser(HeuristicPolicy(), seed=2)
    play_hand(state, [ismcts, heuristic, ismcts, heuristic])
    return list(state.history())


def test_ismcts_with_one_seed_plays_one_hand() -> None:
    first = _ismcts_hand(3)
    assert _ismcts_hand(3) == first
    assert any(_ismcts_hand(seed) != first for seed in (4, 5, 6))


def test_openspiels_cpp_ismcts_bot_refuses_the_python_game_with_a_clear_error() -> None:
    from rookery.envs.spiel import deal_state

    def cpp_bot() -> pyspiel.Bot:
        return pyspiel.ISMCTSBot(
            1,
            pyspiel.RandomRolloutEvaluator(1, 1),
            2.0,
            10,
            10,
            pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
            False,
            False,
        )

    state = deal_state(_load("standard"), 1)
    with pytest.raises(TypeError, match=r"cannot search a Python game.*ismcts_chooser"):
        cpp_bot().step(state)
    with pytest.raises(TypeError, match="cannot search a Python game"):
        cpp_bot().step_with_policy(state)
    kuhn = pyspiel.load_game("kuhn_poker").new_initial_state()
    kuhn.apply_action(0)
    kuhn.apply_action(1)
    assert cpp_bot().step(kuhn) in kuhn.legal_actions()


def test_a_deal_lists_each_card_left_once_with_equal_chances() -> None:
    game = _load("five-handed")
    state = game.new_initial_state()
    rng = random.Random(4)
    dealt: list[int] = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        cards = [card for card, _ in outcomes]
        assert sorted(cards) == sorted(set(state.ruleset.deck_cards) - set(dealt))
        assert all(p == pytest.approx(1 / len(cards)) for _, p in outcomes)
        dealt.append(rng.choice(cards))
        state.apply_action(dealt[-1])
    assert state.dealt == dealt and state.undealt == 0
