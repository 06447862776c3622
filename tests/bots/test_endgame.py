"""The endgame solver agrees with a brute-force minimax over every legal card."""

from __future__ import annotations

import random

import pytest
from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.client.bots._sampling import sample_hands
from rookery.client.bots._simulate import HandSimulation
from rookery.client.bots._solve import EndgameSolver
from rookery.engine import CARD_POINTS, PRESETS, Game, Observation, Phase


def _brute_force(sim: HandSimulation) -> int:
    """The bidding side's points from ``sim`` on, trying every legal card at every turn."""
    if sim.is_over:
        return 0
    before = sim.bidding_total() - sim.buried_points
    maximising = sim.bidding_mask >> sim.current & 1
    values = []
    legal = sim.legal()
    for card in range(58):
        if legal >> card & 1:
            child = sim.clone()
            child.play(card)
            gained = child.bidding_total() - child.buried_points - before
            values.append(gained + _brute_force(child))
    return max(values) if maximising else min(values)


def _positions(preset: str, tricks_left: int, count: int) -> list[Observation]:
    """Observations in the play with ``tricks_left`` tricks to go (some in mid-trick)."""
    rules = PRESETS[preset].replace(max_hands=1)
    heuristic = HeuristicPolicy()
    found = []
    for seed in range(count):
        game = Game(rules, 900 + seed, events=False)
        rng = random.Random(seed)
        stop = rules.hand_size - tricks_left
        mid_trick = seed % 3
        while True:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if (
                obs.phase is Phase.PLAY
                and len(obs.completed_tricks) == stop
                and len(obs.current_trick.cards) == mid_trick
            ):
                found.append(obs)
                break
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


@pytest.mark.parametrize("preset", ["standard", "traditional"])
def test_the_solver_agrees_with_brute_force(preset: str) -> None:
    rng = random.Random(5)
    for obs in _positions(preset, 3, 12):
        hands = sample_hands(obs, rng).hands
        sim = HandSimulation.from_observation(obs, hands)
        assert EndgameSolver(sim).points(sim) == _brute_force(sim)


def test_the_solved_points_are_within_what_is_left() -> None:
    rng = random.Random(6)
    for obs in _positions("standard", 4, 8):
        sim = HandSimulation.from_observation(obs, sample_hands(obs, rng).hands)
        left = sim.trick_points + sum(
            CARD_POINTS[card] for hand in sim.hands for card in range(58) if hand >> card & 1
        )
        solver = EndgameSolver(sim)
        assert 0 <= solver.points(sim) <= left
        # A second position of the same deal reuses the table.
        assert solver.points(sim) == solver.points(sim.clone())


def test_pimc_with_the_endgame_solver_plays_legal_cards() -> None:
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=4, endgame_tricks=4))
    for obs in _positions("standard", 4, 6):
        legal = obs.legal_actions()
        assert pimc(obs, legal, random.Random(1)) in legal
