"""The search's playout model agrees with the engine, card for card and score for score."""

from __future__ import annotations

import random

import pytest
from rookery.client.bots import HeuristicPolicy
from rookery.client.bots._simulate import HandSimulation
from rookery.engine import PRESETS, Game, Phase, PlayCard, mask_points


def _to_play_phase(game: Game, rng: random.Random) -> None:
    heuristic = HeuristicPolicy()
    while game.phase is not Phase.PLAY:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        game.apply(heuristic(obs, obs.legal_actions(), rng))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_simulated_hand_scores_exactly_as_the_engine(preset: str) -> None:
    rules = PRESETS[preset]
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(rules, seed, events=False)
        _to_play_phase(game, rng)
        hand_number = game.hand_number
        obs = game.observation_for(game.bidder)
        sim = HandSimulation.from_observation(obs, list(game.hands))
        while game.hand_number == hand_number and not game.is_over:
            assert sim.current == game.current_player
            legal = game.legal_actions().play
            assert sim.legal() == legal
            card = (
                sim.heuristic_card()
                if seed % 2
                else rng.choice([c for c in range(58) if legal >> c & 1])
            )
            sim.play(card)
            game.apply(PlayCard(card))
        result = game.hand_results[-1]
        assert sim.is_over
        assert sim.bidding_total() == result.bidding_total
        deltas = sim.side_deltas()
        for seat, delta in enumerate(deltas):
            assert delta == result.score_deltas[rules.side_of(seat)]
        assert mask_points(obs.buried) == sim.buried_points
