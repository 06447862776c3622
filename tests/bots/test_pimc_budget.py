"""The search bot keeps its per-decision budgets of samples and of time."""

from __future__ import annotations

import random
import statistics
import time

from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.engine import PRESETS, Game, Phase


def _searched_decisions(pimc: PimcPolicy, hands: int) -> list[tuple[int, float, float, bool]]:
    """(samples, wall seconds, CPU seconds, a card?) of every pimc decision that searched."""
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
                card = obs.phase is Phase.PLAY
                decisions.append((pimc.last_search.samples, wall, cpu, card))
        else:
            action = heuristic(obs, obs.legal_actions(), rng)
        game.apply(action)
    return decisions


def test_pimc_uses_exactly_its_sample_budget_without_a_time_budget() -> None:
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=5, exchange_scale=3, bid_scale=2))
    decisions = _searched_decisions(pimc, 2)

    assert len(decisions) > 20
    assert {samples for samples, _, _, card in decisions if card} == {5}
    # The bids search twice the samples, the exchange three times.
    assert 10 in {samples for samples, _, _, card in decisions if not card}
    assert {samples for samples, _, _, card in decisions if not card} <= {10, 15}


def test_pimc_keeps_its_time_budget() -> None:
    budget = 0.03
    pimc = PimcPolicy(
        PimcParameters(time_budget=budget, samples=10_000, exchange_scale=2, bid_scale=2)
    )

    decisions = _searched_decisions(pimc, 2)

    assert len(decisions) > 20
    # The deadline is checked between playouts: the work never runs more than one past it. CPU
    # time, because the wall clock also counts whatever the machine gave to other processes.
    # The bids and the exchange have twice the budget of a card. The slack (20 ms) is one playout
    # and the decision's own set-up, on a core shared with another test process (CPU time grows
    # too when a neighbour evicts this process's caches).
    assert max(cpu for _, _, cpu, card in decisions if card) <= budget + 0.02
    assert max(cpu for _, _, cpu, _ in decisions) <= 2 * budget + 0.02
    assert statistics.median(samples for samples, _, _, _ in decisions) > 1


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
    # Two pimc seats, about 13 searched cards each at 200 ms at most, and a bid or two and the
    # exchange at 400 ms at most.
    assert time.perf_counter() - started < 12.0
