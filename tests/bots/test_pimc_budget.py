"""The search bot keeps its per-decision budgets of samples and of time."""

from __future__ import annotations

import random
import statistics
import time

from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.engine import PRESETS, Game


def _searched_decisions(pimc: PimcPolicy, hands: int) -> list[tuple[int, float, float]]:
    """(samples, wall seconds, CPU seconds) of every pimc decision that searched."""
    rules = PRESETS["standard"].replace(max_hands=hands)
    heuristic = HeuristicPolicy()
    game = Game(rules, 21, events=False)
    rng = random.Random(21)
    decisions = []
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        if seat % 2 == 0:
            started, cpu = time.perf_counter(), time.process_time()
            action = pimc(obs, obs.legal_actions(), rng)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            if pimc.last_search.samples:
                decisions.append((pimc.last_search.samples, wall, cpu))
        else:
            action = heuristic(obs, obs.legal_actions(), rng)
        game.apply(action)
    return decisions


def test_pimc_uses_exactly_its_sample_budget_without_a_time_budget() -> None:
    decisions = _searched_decisions(PimcPolicy(PimcParameters(time_budget=None, samples=5)), 2)

    assert len(decisions) > 20
    assert {samples for samples, _, _ in decisions} == {5}


def test_pimc_keeps_its_time_budget() -> None:
    budget = 0.03
    pimc = PimcPolicy(PimcParameters(time_budget=budget, samples=10_000))

    decisions = _searched_decisions(pimc, 2)

    assert len(decisions) > 20
    # The deadline is checked between playouts: the work never runs more than one past it. CPU
    # time, because the wall clock also counts whatever the machine gave to other processes.
    assert max(cpu for _, _, cpu in decisions) <= budget + 0.01
    assert statistics.median(samples for samples, _, _ in decisions) > 1


def test_pimc_default_budget_plays_a_hand_in_a_few_seconds() -> None:
    rules = PRESETS["standard"].replace(max_hands=1)
    pimc = PimcPolicy()
    heuristic = HeuristicPolicy()
    game = Game(rules, 4, events=False)
    rng = random.Random(4)
    started = time.perf_counter()
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        policy = pimc if seat % 2 == 0 else heuristic
        game.apply(policy(obs, obs.legal_actions(), rng))
    # Two pimc seats, about 13 searched decisions each, 50 ms at most each.
    assert time.perf_counter() - started < 3.0
