"""Reading the opponents' cards as heuristic play: the true deal explains them, most samples not."""

from __future__ import annotations

import random

from rookery.client.bots import PimcParameters, PimcPolicy
from rookery.client.bots._sampling import play_likelihood, sample_hands
from rookery.client.bots.heuristic import HeuristicPolicy
from rookery.engine import PRESETS, Game, Observation, Phase


def _mid_hand_observations(preset: str, seeds: range) -> list[tuple[Observation, list[int]]]:
    """Observations of play decisions after a few tricks, every seat playing the heuristic, with
    every seat's real cards at that moment."""
    heuristic = HeuristicPolicy()
    found = []
    for seed in seeds:
        game = Game(PRESETS[preset].replace(max_hands=1), seed, events=False)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            legal = obs.legal_actions()
            if legal.phase is Phase.PLAY and len(obs.completed_tricks) in (3, 6):
                found.append((obs, list(game.hands)))
            game.apply(heuristic(obs, legal, rng))
    return found


def test_the_true_deal_explains_heuristic_play_and_samples_mostly_do_not() -> None:
    rng = random.Random(1)
    sampled = []
    for preset in ("standard", "cutthroat", "called-partner"):
        for obs, hands in _mid_hand_observations(preset, range(6)):
            assert play_likelihood(obs, hands, 0.25) == 1.0
            sampled += [play_likelihood(obs, sample_hands(obs, rng).hands, 0.25) for _ in range(4)]
    assert len(sampled) > 100
    assert sum(likelihood < 1.0 for likelihood in sampled) > len(sampled) / 2
    assert all(0.0 < likelihood <= 1.0 for likelihood in sampled)


def test_nothing_is_read_before_a_card_or_with_miss_one() -> None:
    game = Game(PRESETS["standard"], 2, events=False)
    obs = game.observation_for(0)
    assert play_likelihood(obs, list(game.hands), 0.25) == 1.0
    obs, _ = _mid_hand_observations("standard", range(1))[0]
    rng = random.Random(2)
    assert all(play_likelihood(obs, sample_hands(obs, rng).hands, 1.0) == 1.0 for _ in range(20))


def test_pimc_reading_the_play_keeps_to_legal_cards() -> None:
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=4, read_play_tries=4))
    rng = random.Random(3)
    for obs, _ in _mid_hand_observations("standard", range(3)):
        legal = obs.legal_actions()
        assert pimc(obs, legal, rng) in legal
