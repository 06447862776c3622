"""Every bot plays only legal actions, over many games of every preset."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy, Policy, random_policy
from rookery.engine import PRESETS, Game, Ruleset

GameRunner = Callable[[Ruleset, int, Sequence[Policy]], Game]

PRESET_NAMES = sorted(PRESETS)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_plays_only_legal_actions(preset: str, checked_game: GameRunner) -> None:
    rules = PRESETS[preset].replace(max_hands=8)
    for seed in range(4):
        game = checked_game(rules, seed, [random_policy] * rules.players)
        assert game.is_over


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_heuristic_plays_only_legal_actions(preset: str, checked_game: GameRunner) -> None:
    rules = PRESETS[preset]
    heuristic = HeuristicPolicy()
    for seed in range(12):
        game = checked_game(rules, seed, [heuristic] * rules.players)
        assert game.is_over


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_pimc_plays_only_legal_actions(preset: str, checked_game: GameRunner) -> None:
    rules = PRESETS[preset].replace(max_hands=3)
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=2))
    heuristic = HeuristicPolicy()
    for seed in range(2):
        seats = [pimc if seat % 2 == seed % 2 else heuristic for seat in range(rules.players)]
        game = checked_game(rules, seed, seats)
        assert game.is_over


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_mixed_tables_play_only_legal_actions(preset: str, checked_game: GameRunner) -> None:
    rules = PRESETS[preset].replace(max_hands=3)
    # With the auction read into its samples (off by default), to cover that on every preset.
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=1, infer_tries=4))
    bots: list[Policy] = [random_policy, HeuristicPolicy(), pimc]
    seats = [bots[seat % 3] for seat in range(rules.players)]
    game = checked_game(rules, 7, seats)
    assert game.is_over
