"""The SPRT's statistics against fishtest's own numbers.

Where the figures come from (official-stockfish/fishtest, ``server/``):
- LLRs and the logistic median-unbiased estimate: ``fishtest.stats.LLRcalc.LLR_logistic`` /
  ``LLR_normalized`` and ``stat_util.SPRT_elo`` at commit b8eecff2, evaluated on the pentanomials
  and trinomials of ``stat_util.py``'s own self-test (its ``__main__`` block) and of
  ``tests/test_stats_sprt.py``.
- The normalized median-unbiased estimates and intervals: the values pinned in fishtest's
  ``server/tests/test_stats_sprt.py`` (``test_well_posed_reference_values`` and
  ``test_model_invariance_on_divergence_case``: elo0 = 0, elo1 = 2 normalized, alpha = beta = 0.05).
- The overshoot streams: ``stat_util.update_SPRT`` (batch size 1) fed the seeded streams that
  :func:`_stream` below draws, one pentanomial update per pair, until its state was set.
"""

from __future__ import annotations

import random

import pytest
from rookery.arena.stats import SprtDecision, SprtParams, SprtTest
from rookery.arena.stats._sprt import llr_logistic, llr_normalized, llr_normalized_approximate

STAT_UTIL_PENTANOMIAL = [10789, 19328, 33806, 19402, 10543]
NARROW_PENTANOMIAL = [39, 2226, 31451, 2412, 40]
WELL_POSED = [1, 60, 500, 1200, 600]
DIVERGENT = [1, 20, 300, 900, 779]


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "expected"),
    [
        (STAT_UTIL_PENTANOMIAL, -3.0, 1.0, 2.1310678117940807),
        (NARROW_PENTANOMIAL, 0.2, 0.9, 2.1625425800483593),
        ([716, 2163, 591], 0.0, 5.0, -5.7218870860654025),
    ],
)
def test_logistic_llr_equals_fishtests(
    counts: list[int], elo0: float, elo1: float, expected: float
) -> None:
    assert llr_logistic([float(c) for c in counts], elo0, elo1) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("counts", "nelo0", "nelo1", "expected"),
    [
        (NARROW_PENTANOMIAL, 0.764, 3.439, 2.162940869584568),
        (WELL_POSED, 0.0, 2.0, 13.441404954476775),
        (DIVERGENT, 0.0, 2.0, 12.633791100093267),
        ([1187, 7410, 13475, 7378, 1164], 0.0, 2.0, -1.7287536221817865),
        ([0, 0, 10, 0, 0], 0.0, 5.0, -0.0026994307556201702),
        ([716, 2163, 591], 0.0, 5.0, -3.2899057951609754),
    ],
)
def test_normalized_llr_is_fishtests_exact_t_value_llr(
    counts: list[int], nelo0: float, nelo1: float, expected: float
) -> None:
    assert llr_normalized([float(c) for c in counts], nelo0, nelo1) == pytest.approx(
        expected, abs=1e-9
    )


def test_the_exact_normalized_llr_is_not_the_approximation() -> None:
    # fishtest's LLR_normalized_alt gives 11.3679 here, the exact LLR 12.6338.
    counts = [float(c) for c in DIVERGENT]
    assert llr_normalized_approximate(counts, 0.0, 2.0) == pytest.approx(11.367912535870106)
    assert abs(llr_normalized(counts, 0.0, 2.0) - llr_normalized_approximate(counts, 0, 2)) > 1


def _stopped(counts: list[int], params: SprtParams) -> SprtTest:
    test = SprtTest(params, pentanomial=list(counts))
    test.decision = SprtDecision.H1 if test.compute_llr() > 0 else SprtDecision.H0
    return test


@pytest.mark.parametrize(
    ("counts", "elo", "lower", "upper"),
    [
        (WELL_POSED, 188.3595, 170.7252, 214.8484),
        (DIVERGENT, 245.4729, 223.6370, 289.7981),
    ],
)
def test_normalized_median_unbiased_elo_equals_fishtests_pinned_values(
    counts: list[int], elo: float, lower: float, upper: float
) -> None:
    found = _stopped(counts, SprtParams(elo0=0.0, elo1=2.0, model="normalized")).estimate()
    assert found.method == "median-unbiased"
    assert (found.elo, found.lower, found.upper) == pytest.approx((elo, lower, upper), abs=5e-4)


def test_logistic_median_unbiased_elo_equals_fishtests() -> None:
    found = _stopped(STAT_UTIL_PENTANOMIAL, SprtParams(elo0=-3.0, elo1=1.0)).estimate()
    assert (found.elo, found.lower, found.upper) == pytest.approx(
        (-0.9925365594552716, -3.488492131294004, 1.4885858954857965), abs=1e-6
    )


def test_degenerate_results_get_an_interval_of_nonzero_width() -> None:
    found = _stopped([0, 0, 10, 0, 0], SprtParams(elo0=0.0, elo1=5.0, model="normalized"))
    estimate = found.estimate()
    assert estimate.lower < -1.0 and estimate.upper > 1.0
    running = SprtTest(SprtParams(elo0=0.0, elo1=5.0), pentanomial=[0, 0, 10, 0, 0])
    assert running.estimate().error > 1.0  # was "± 0.0" from the unregularised counts


def _stream(seed: int, weights: list[int], params: SprtParams) -> tuple[int, SprtTest]:
    rng = random.Random(seed)
    test = SprtTest(params)
    for pairs in range(1, 100_001):
        bucket = rng.choices(range(5), weights=weights)[0]
        test.add_pair(*((0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0))[bucket])
        if test.decision is not SprtDecision.CONTINUE:
            return pairs, test
    raise AssertionError("the stream never stopped")


def test_dynamic_overshoot_stops_where_fishtest_stops_normalized() -> None:
    pairs, test = _stream(7, [5, 20, 50, 22, 6], SprtParams(elo0=0, elo1=5, model="normalized"))
    assert pairs == 6183
    assert test.pentanomial == [298, 1253, 2950, 1325, 357]
    assert test.decision is SprtDecision.H1
    # Accepted below the plain bound 2.944: the overshoot correction moved it in.
    assert test.llr == pytest.approx(2.938464353659964, abs=1e-9)
    assert test.llr < test.params.upper_bound
    shoot = test.overshoot
    assert (shoot.m0, shoot.sq0, shoot.m1, shoot.sq1) == pytest.approx(
        (-0.3810313042102375, 0.007199681000992918, 2.938464353659964, 0.08251404808112006),
        abs=1e-9,
    )


def test_dynamic_overshoot_stops_where_fishtest_stops_logistic() -> None:
    pairs, test = _stream(11, [6, 22, 50, 20, 5], SprtParams(elo0=0, elo1=5))
    assert pairs == 1437
    assert test.pentanomial == [72, 329, 699, 264, 73]
    assert test.decision is SprtDecision.H0
    assert test.llr == pytest.approx(-2.9260869349792316, abs=1e-9)
    assert (test.overshoot.m0, test.overshoot.sq0) == pytest.approx(
        (-2.9260869349792316, 0.10997908864589619), abs=1e-9
    )
