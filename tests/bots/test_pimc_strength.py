"""The search bot beats the heuristic in a small seeded duplicate match."""

from __future__ import annotations

from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy, play_game
from rookery.engine import PRESETS

DEALS = 16
SAMPLES = 32


def test_pimc_outscores_the_heuristic_over_duplicate_hands() -> None:
    # Single hands (max_hands = 1), each deal played twice with the sides swapped, so both sides
    # hold the same cards; without a time budget the search is deterministic.
    rules = PRESETS["standard"].replace(max_hands=1)
    margin = 0
    for seed in range(DEALS):
        for pimc_side in (0, 1):
            pimc = PimcPolicy(PimcParameters(time_budget=None, samples=SAMPLES))
            heuristic = HeuristicPolicy()
            seats = [pimc if seat % 2 == pimc_side else heuristic for seat in range(4)]
            result = play_game(rules, 700 + seed, seats)
            margin += result.scores[pimc_side] - result.scores[1 - pimc_side]
    assert margin > 0, f"pimc trailed the heuristic by {-margin} points over {DEALS} deals"
