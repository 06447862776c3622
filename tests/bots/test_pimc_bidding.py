"""The search bot's bidding by simulation bids a strong hand and passes a weak one."""

from __future__ import annotations

import random

import pytest
from rookery.client.bots import PimcParameters, PimcPolicy
from rookery.client.bots.heuristic import best_trump_before_nest
from rookery.engine import PASS, PRESETS, Game, Observation


def _openings() -> list[tuple[float, Observation]]:
    """The first seat's opening observation of 40 deals, with the heuristic's estimate."""
    rules = PRESETS["standard"]
    found = []
    for seed in range(40):
        game = Game(rules, 300 + seed, events=False)
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        found.append((best_trump_before_nest(obs.hand, rules)[1], obs))
    return sorted(found, key=lambda pair: pair[0])


@pytest.mark.parametrize("nest_trump", [True, False])
def test_pimc_bids_a_strong_hand_and_passes_a_weak_one(nest_trump: bool) -> None:
    openings = _openings()
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=16, bid_nest_trump=nest_trump))
    rng = random.Random(3)
    for _, strong in openings[-3:]:
        assert pimc(strong, strong.legal_actions(), rng) != PASS
        assert pimc.bid_limit(strong, rng) >= strong.ruleset.min_bid + 10
    for _, weak in openings[:3]:
        assert pimc(weak, weak.legal_actions(), rng) == PASS
