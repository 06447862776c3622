"""The Elo of a stopped SPRT: the median-unbiased estimate and its confidence interval.

When a sequential test stops, the mean score it stopped on is biased: a test stops early exactly
when the results ran ahead of the truth. The median-unbiased estimate is the Elo for which a test
run to the same bounds would have ended *worse* than this one (a faster H0, a slower H1) with
probability one half; the ends of a confidence interval are the Elo values for which that
probability is ``p / 2`` and ``1 - p / 2``.

Method (after Michel Van den Bergh's analysis for fishtest, ``server/fishtest/stats/sprt.py`` and
``brownian.py``): the LLR is approximated by a Brownian motion with drift ``mu`` and variance
``sigma²`` per sample between the absorbing bounds ``a < 0 < b``; the probability of a worse
outcome is the probability that the motion leaves the strip to the right of the observed stopping
point ``(T, y)``. It is a series over the strip's eigenfunctions, or Siegmund's approximation
where that series converges too slowly. An LLR beyond a bound (the test was read late) is moved
back onto the bound along its own slope, as fishtest does.

The estimate is in logistic Elo whatever the test's model (fishtest reports it the same way).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = ["ELO_CLAMP", "SprtElo", "outcome_probability", "sprt_elo"]

#: The estimate and the interval's ends are kept within ± this many Elo.
ELO_CLAMP = 1000.0
_PHI = NormalDist().cdf


def _logistic_score(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class SprtElo:
    """A stopped SPRT's Elo: the median-unbiased estimate, the interval and LOS."""

    elo: float
    lower: float
    upper: float
    #: The probability that the new bot is better (a worse outcome at Elo 0).
    los: float
    #: The LLR beyond a bound by more than 3 %: the numbers then only have a qualitative meaning.
    clamped: bool


def _strip_term(n: int, gamma: float, width: float, y: float) -> float:
    """``2 / A · e^(-γy)`` times a primitive of ``e^(γy) sin(nπy / A)``."""
    angle = math.pi * n * y / width
    return (2.0 * width * gamma * math.sin(angle) - 2.0 * math.pi * n * math.cos(angle)) / (
        width**2 * gamma**2 + math.pi**2 * n**2
    )


def _right_of_eigen(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """P(the motion from 0 passes right of (t, y)), by the strip's eigenfunction series."""
    width = b - a
    x = -a
    y = y - a
    gamma = mu / sigma2
    lambda_1 = (math.pi / width) ** 2 * sigma2 / 2.0 + (mu**2 / sigma2) / 2.0
    t0 = math.exp(-lambda_1 * t - x * gamma + y * gamma)
    total = 0.0
    n = 1
    while True:
        lambda_n = (n * math.pi / width) ** 2 * sigma2 / 2.0 + (mu**2 / sigma2) / 2.0
        t1 = math.exp(-(lambda_n - lambda_1) * t)
        t3 = _strip_term(n, gamma, width, y)
        total += t1 * t3 * math.sin(n * math.pi * x / width)
        if abs(t0 * t1 * t3) <= 1e-9:
            break
        n += 1
    if gamma * width > 30.0:
        pre = math.exp(-2.0 * gamma * x)
    elif abs(gamma * width) < 1e-8:
        pre = (width - x) / width
    else:
        pre = (1.0 - math.exp(2.0 * gamma * (width - x))) / (1.0 - math.exp(2.0 * gamma * width))
    return pre + t0 * total


def _mirror_term(z: float, exponent: float) -> float:
    """``e^exponent · Phi(z)``, through Phi's asymptotic expansion where e^exponent overflows."""
    if exponent >= 10.0:
        return -math.exp(-(z**2) / 2.0 + exponent) / math.sqrt(2.0 * math.pi) * (1 / z - 1 / z**3)
    return math.exp(exponent) * _PHI(z)


def _right_of_siegmund(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """The same probability by Siegmund's approximation (for short times or strong drift)."""
    spread = math.sqrt(t * sigma2)
    offset = mu * t
    gamma = mu / sigma2
    z = (y - offset) / spread
    za = (-y + offset + 2.0 * a) / spread
    zb = (y - offset - 2.0 * b) / spread
    return _PHI(z) + _mirror_term(za, 2.0 * gamma * a) - _mirror_term(zb, 2.0 * gamma * b)


def outcome_probability(a: float, b: float, mu: float, sigma: float, t: float, y: float) -> float:
    """P(a Brownian motion with drift ``mu``, sd ``sigma`` per step ends right of ``(t, y)``).

    "Right of" is the worse outcome for the tested bot: absorbed at ``a`` before ``t``, or at
    ``b`` after ``t``, or (for ``y`` inside the strip) below ``y`` at ``t``.
    """
    sigma2 = sigma * sigma
    width = b - a
    if sigma2 * t / width**2 < 1e-2 or abs(mu / sigma2 * width) > 15.0:
        return _right_of_siegmund(a, b, mu, sigma2, t, y)
    return _right_of_eigen(a, b, mu, sigma2, t, y)


def _bisect(f: Callable[[float], float], low: float, high: float) -> float:
    """A root of ``f`` between ``low`` and ``high`` (where ``f`` changes sign)."""
    f_low = f(low)
    for _ in range(80):
        middle = (low + high) / 2.0
        f_middle = f(middle)
        if (f_middle > 0) == (f_low > 0):
            low, f_low = middle, f_middle
        else:
            high = middle
        if high - low <= 1e-12 * max(1.0, abs(low)):
            break
    return (low + high) / 2.0


def sprt_elo(
    pdf: Sequence[tuple[float, float]],
    samples: float,
    s0: float,
    s1: float,
    lower_bound: float,
    upper_bound: float,
    *,
    confidence: float = 0.95,
    search_center: float = 0.0,
    search_step: float = 5.0,
) -> SprtElo:
    """The median-unbiased logistic Elo of a test stopped on ``pdf`` after ``samples`` samples.

    ``pdf`` is the regularised empirical distribution of the per-sample score (``(score in
    0..1, probability)``), ``s0``/``s1`` the hypotheses as expected scores, the bounds the LLR's.
    The median is searched around ``search_center`` in a window of ``30`` (then 60, 120, …)
    times ``search_step`` on either side, as fishtest does; each end of the interval is the
    first crossing of its quantile on the way out from the median. All stay within
    ±:data:`ELO_CLAMP`.
    """
    mean = sum(a * p for a, p in pdf)
    variance = sum(p * (a - mean) ** 2 for a, p in pdf)
    llr = samples * (mean - (s0 + s1) / 2.0) * (s1 - s0) / variance
    t = samples
    slope = llr / samples
    clamped = llr > 1.03 * upper_bound or llr < 1.03 * lower_bound
    if llr < lower_bound:
        t, llr = lower_bound / slope, lower_bound
    elif llr > upper_bound:
        t, llr = upper_bound / slope, upper_bound

    def worse(elo: float) -> float:
        s = _logistic_score(elo)
        v = variance + (s - mean) ** 2
        mu = (s - (s0 + s1) / 2.0) * (s1 - s0) / v
        sigma = abs(s1 - s0) / math.sqrt(v)
        return outcome_probability(lower_bound, upper_bound, mu, sigma, t, llr)

    def gap_for(p: float) -> Callable[[float], float]:
        return lambda elo: worse(elo) - (1.0 - p)

    def median() -> float:
        gap = gap_for(0.5)
        width = 30.0
        while True:
            low = max(search_center - width * search_step, -ELO_CLAMP)
            high = min(search_center + width * search_step, ELO_CLAMP)
            if (gap(low) > 0) != (gap(high) > 0):
                return _bisect(gap, low, high)
            if low > -ELO_CLAMP or high < ELO_CLAMP:
                width *= 2.0
                continue
            return high if gap(low) > 0 else low

    def interval_end(p: float, start: float, direction: float) -> float:
        # Far from the hypotheses the drift approximation makes ``worse`` non-monotone: the end
        # is the first crossing on the way out from the estimate, found by a growing scan.
        gap = gap_for(p)
        step = max(1e-3, min(1.0, search_step / 4.0))
        here, gap_here = start, gap(start)
        for count in range(1, 10_000):
            there = min(max(here + direction * step, -ELO_CLAMP), ELO_CLAMP)
            gap_there = gap(there)
            if (gap_there > 0) != (gap_here > 0):
                return _bisect(gap, min(here, there), max(here, there))
            if there in (-ELO_CLAMP, ELO_CLAMP):
                return there
            here, gap_here = there, gap_there
            if count % 16 == 0:
                step *= 2.0
        return here

    tail = (1.0 - confidence) / 2.0
    estimate = median()
    return SprtElo(
        elo=estimate,
        lower=interval_end(tail, estimate, -1.0),
        upper=interval_end(1.0 - tail, estimate, +1.0),
        los=worse(0.0),
        clamped=clamped,
    )
