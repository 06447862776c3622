"""The SPRT: accepts the right hypothesis on streams with known answers."""

from __future__ import annotations

import math
import random

import pytest
from rookery.arena.stats import SprtDecision, SprtParams, SprtTest
from rookery.arena.stats._sprt import llr_logistic, llr_normalized, logistic_score


def run_stream(true_elo: float, params: SprtParams, seed: int, cap: int = 40_000) -> SprtTest:
    """Duplicate pairs of a bot that is ``true_elo`` stronger, until a decision or the cap."""
    rng = random.Random(seed)
    p = logistic_score(true_elo)
    test = SprtTest(params)
    while test.decision is SprtDecision.CONTINUE and test.games < cap:
        test.add_pair(float(rng.random() < p), float(rng.random() < p))
    return test


def test_a_clearly_better_bot_is_accepted_as_h1() -> None:
    test = run_stream(80.0, SprtParams(elo0=0.0, elo1=30.0), seed=1)
    assert test.decision is SprtDecision.H1
    assert test.llr >= test.params.upper_bound


def test_equal_bots_are_accepted_as_h0() -> None:
    test = run_stream(0.0, SprtParams(elo0=0.0, elo1=30.0), seed=2)
    assert test.decision is SprtDecision.H0
    assert test.llr <= test.params.lower_bound


def test_a_worse_bot_is_accepted_as_h0() -> None:
    assert run_stream(-40.0, SprtParams(elo0=0.0, elo1=20.0), seed=3).decision is SprtDecision.H0


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_both_elo_models_decide_in_the_right_direction(model: str) -> None:
    params = SprtParams(elo0=0.0, elo1=40.0, model=model)
    assert run_stream(100.0, params, seed=4).decision is SprtDecision.H1
    assert run_stream(-20.0, params, seed=5).decision is SprtDecision.H0


def test_the_error_rates_hold_over_many_seeded_runs() -> None:
    params = SprtParams(elo0=0.0, elo1=60.0, alpha=0.05, beta=0.05)
    false_h1 = sum(run_stream(0.0, params, seed).decision is SprtDecision.H1 for seed in range(40))
    assert false_h1 <= 6  # alpha = 5 %: about 2 of 40 expected


def test_bounds_are_fishtests() -> None:
    params = SprtParams(alpha=0.05, beta=0.1)
    assert params.lower_bound == pytest.approx(math.log(0.1 / 0.95))
    assert params.upper_bound == pytest.approx(math.log(0.9 / 0.05))


def test_llr_favours_the_hypothesis_that_matches_the_data() -> None:
    balanced = [10.0, 20.0, 40.0, 20.0, 10.0]  # mean score exactly 0.5
    assert llr_logistic(balanced, 0.0, 10.0) < 0
    assert llr_logistic(balanced, -10.0, 0.0) > 0
    assert llr_normalized(balanced, 0.0, 10.0) < 0


def test_llr_of_no_results_is_zero() -> None:
    assert llr_logistic([0.0] * 5, 0.0, 5.0) == 0.0


def test_single_games_use_the_trinomial() -> None:
    test = SprtTest(SprtParams(elo0=0.0, elo1=50.0))
    for _ in range(300):
        test.add_game(1.0)
    assert not test.uses_pairs
    assert test.decision is SprtDecision.H1


def test_the_decision_is_final_once_a_bound_is_reached() -> None:
    test = SprtTest(SprtParams(elo0=0.0, elo1=50.0))
    while test.decision is SprtDecision.CONTINUE:
        test.add_pair(1.0, 1.0)
    for _ in range(200):
        test.add_pair(0.0, 0.0)
    assert test.decision is SprtDecision.H1


def test_invalid_parameters_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="elo0"):
        SprtParams(elo0=5.0, elo1=0.0)
    with pytest.raises(ValueError, match="alpha"):
        SprtParams(alpha=0.7)
