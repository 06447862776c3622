"""Sampled hands fit the observation: own cards kept, played cards gone, sizes right, voids kept."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from rookery.client.bots import HeuristicPolicy
from rookery.client.bots._play import infer_voids
from rookery.client.bots._sampling import Inference, Sample, sample_hands
from rookery.engine import PRESETS, Game, Observation, Phase


def _uniform(obs: Observation, rng: random.Random) -> Sample:
    return sample_hands(obs, rng)


def _inferred(obs: Observation, rng: random.Random) -> Sample:
    return Inference(obs).sample(obs, rng)


@pytest.mark.parametrize("preset", ["standard", "traditional", "called-partner", "cutthroat"])
@pytest.mark.parametrize("sampler", [_uniform, _inferred], ids=["uniform", "inferred"])
def test_sampled_hands_are_consistent_with_every_play_observation(
    preset: str, sampler: Callable[[Observation, random.Random], Sample]
) -> None:
    rules = PRESETS[preset]
    heuristic = HeuristicPolicy()
    rng = random.Random(3)
    game = Game(rules, 11, events=False)
    checked = 0
    while not game.is_over and game.hand_number < 2:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        if obs.phase is Phase.PLAY:
            truth = game.hands
            sample = sampler(obs, rng)
            assert sample.hands[seat] == obs.hand
            assert [hand.bit_count() for hand in sample.hands] == [h.bit_count() for h in truth]
            union = sample.nest | sample.dead
            for hand in sample.hands:
                assert not union & hand
                union |= hand
            played = 0
            for trick in (*obs.completed_tricks, obs.current_trick):
                for _, card in trick.cards:
                    played |= 1 << card
            assert union | played == rules.deck_mask
            assert obs.trump is not None
            tricks = [t.cards for t in (*obs.completed_tricks, obs.current_trick)]
            voids = infer_voids(rules.players, int(obs.trump), tricks, rules.rook_free_play)
            for other, hand in enumerate(sample.hands):
                assert not hand & voids[other]
            checked += 1
        game.apply(heuristic(obs, obs.legal_actions(), rng))
    assert checked > 20


def test_the_true_deal_explains_the_auction_better_than_uniform_samples() -> None:
    rules = PRESETS["standard"]
    heuristic = HeuristicPolicy()
    rng = random.Random(5)
    true_total = sampled_total = 0.0
    auctions = 0
    for seed in range(12):
        game = Game(rules, seed, events=False)
        while game.phase is Phase.BIDDING:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if len(obs.auction) >= 3:
                inference = Inference(obs)
                true_total += inference.weight(list(game.hands))
                sampled = [inference.weight(sample_hands(obs, rng).hands) for _ in range(40)]
                sampled_total += sum(sampled) / len(sampled)
                auctions += 1
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    assert auctions >= 12
    assert true_total > 1.5 * sampled_total
