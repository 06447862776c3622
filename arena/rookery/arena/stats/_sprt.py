"""The sequential probability ratio test for head-to-head matches, as fishtest runs it.

A head-to-head match is a stream of duplicate pairs. Each pair gives the new bot a pair score of
0, ½, 1, 1½ or 2 (its two game scores added), so the results are counted in a **pentanomial**
(five buckets; fishtest's LL, LD+DL, LW+DD+WL, DW+WD, WW). A pair is the natural unit: its two
games share the deals, so their results are correlated, and treating them as independent games
would misjudge the variance. Without duplicate pairs each game is one **trinomial** sample
(loss, draw, win).

The test is a generalized SPRT (GSPRT): for each hypothesis ``H0: elo = elo0`` and
``H1: elo = elo1`` it takes the maximum-likelihood distribution of the buckets whose expected
score equals that Elo, and adds up the log-likelihood ratio of the observed results under the
two. The test stops with H1 accepted when the LLR reaches ``log((1 - beta) / alpha)``, with H0
accepted when it falls to ``log(beta / (1 - alpha))``, and is inconclusive if a game cap is
reached first.

Two Elo models:
- ``logistic`` (default): elo ``e`` means an expected score of ``1 / (1 + 10 ** (-e / 400))`` per
  game; the LLR is exact (a one-dimensional secular equation per hypothesis).
- ``normalized``: fishtest's normalized Elo, the expected score measured in standard deviations
  of the per-game score (so the bounds do not depend on the draw rate). The LLR is exact too: the
  maximum-likelihood distribution with a given t-value ``(mean - ½) / sd``, found by fishtest's
  fixed-point iteration of secular equations (Van den Bergh, "Normalized Elo: practical
  considerations", section 4.1). :func:`llr_normalized_approximate` keeps the closed-form
  approximation of section 4.2 for comparison.

Stopping follows fishtest's ``update_SPRT``: each bound is moved inwards by the **dynamic
overshoot** estimated from the LLR's own record lows and highs so far (Siegmund, *Sequential
Analysis*, corollary 8.33), which keeps the error rates at ``alpha`` and ``beta`` although the
LLR jumps past a bound rather than meeting it. Once the test has stopped, :meth:`SprtTest.estimate`
gives the median-unbiased Elo (see :mod:`rookery.arena.stats._sprt_estimate`) instead of the biased
mean-score Elo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from rookery.arena.stats._sprt_estimate import sprt_elo

__all__ = [
    "EloEstimate",
    "Overshoot",
    "SprtDecision",
    "SprtParams",
    "SprtTest",
    "llr_logistic",
    "llr_normalized",
    "llr_normalized_approximate",
    "logistic_score",
]

#: Normalized Elo per unit of "t" (a standard deviation of the per-game score): 800 / ln 10.
NELO_PER_T = 800.0 / math.log(10.0)
#: Added to empty buckets so that the MLE exists (fishtest uses the same regularisation).
_EPSILON = 1e-3


class SprtDecision(Enum):
    """What the test says so far."""

    CONTINUE = ""
    """Neither bound has been reached: play on."""
    H0 = "H0"
    """The lower bound was reached: the new bot is not better by ``elo1`` (accept ``elo0``)."""
    H1 = "H1"
    """The upper bound was reached: the new bot is better (accept ``elo1``)."""


@dataclass(frozen=True)
class SprtParams:
    """The hypotheses and error rates: fishtest's ``elo0, elo1, alpha, beta``."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must lie in (0, 0.5), got {value}")
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"model must be 'logistic' or 'normalized', got {self.model!r}")

    @property
    def lower_bound(self) -> float:
        """``log(beta / (1 - alpha))``: at or below it, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """``log((1 - beta) / alpha)``: at or above it, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)


def logistic_score(elo: float) -> float:
    """The expected per-game score of a side ``elo`` points stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(number of samples, [(score in 0..1, probability)]) with empty buckets regularised.

    As fishtest's ``results_to_pdf``: an empty bucket counts ``1e-3`` samples, in the total too.
    """
    regularised = [c if c > 0 else _EPSILON for c in counts]
    total = sum(regularised)
    k = len(counts) - 1
    return total, [(i / k, c / total) for i, c in enumerate(regularised)]


def _secular_root(pdf: Sequence[tuple[float, float]]) -> float:
    """The ``x`` with ``sum p_i a_i / (1 + x a_i) = 0`` and every ``1 + x a_i > 0``.

    The left side decreases in ``x`` on that interval: Newton's method from the middle, kept
    inside a shrinking bracket (a bisection step whenever Newton would leave it).
    """
    values = [a for a, _ in pdf]
    smallest, largest = min(values), max(values)
    if not smallest < 0.0 < largest:
        raise ValueError("the secular equation needs scores on both sides of the target")
    low, high = -1.0 / largest + 1e-9, -1.0 / smallest - 1e-9
    x = 0.0 if low < 0.0 < high else (low + high) / 2.0
    for _ in range(200):
        value = 0.0
        slope = 0.0
        for a, p in pdf:
            denominator = 1.0 + x * a
            value += p * a / denominator
            slope -= p * a * a / (denominator * denominator)
        if value == 0.0:
            return x
        if value > 0.0:
            low = x
        else:
            high = x
        step = x - value / slope if slope < 0.0 else (low + high) / 2.0
        if not low < step < high:
            step = (low + high) / 2.0
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)):
            return step
        x = step
    return x


def _stats(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _mle_with_mean(pdf: Sequence[tuple[float, float]], s: float) -> list[float]:
    """The distribution on the same buckets closest in likelihood to ``pdf`` with mean ``s``.

    It has the form ``p_i / (1 + x (a_i - s))`` where ``x`` solves the secular equation
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (Van den Bergh, "Support of the MLE for a
    multinomial", proposition 1.1).
    """
    x = _secular_root([(a - s, p) for a, p in pdf])
    return [p / (1.0 + x * (a - s)) for a, p in pdf]


def _mle_with_t_value(
    pdf: Sequence[tuple[float, float]], reference: float, t: float
) -> list[float]:
    """The distribution on ``pdf``'s buckets closest in likelihood with ``(mean - ref) / sd = t``.

    Van den Bergh, "Normalized Elo: practical considerations", section 4.1: from the uniform
    distribution, repeatedly solve the secular equation with the shifted scores
    ``a_i - ref - t sd (1 + ((mean - a_i) / sd)²) / 2`` of the current iterate, until the
    probabilities move by less than 1e-9 (at most 10 rounds, as fishtest).
    """
    estimate = [1.0 / len(pdf)] * len(pdf)
    for _ in range(10):
        previous = estimate
        mean, variance = _stats([(a, q) for (a, _), q in zip(pdf, estimate, strict=True)])
        sd = math.sqrt(variance)
        shifted = [
            (a - reference - t * sd * (1.0 + ((mean - a) / sd) ** 2) / 2.0, p) for a, p in pdf
        ]
        x = _secular_root(shifted)
        estimate = [p / (1.0 + x * b) for b, p in shifted]
        if max(abs(u - v) for u, v in zip(previous, estimate, strict=True)) < 1e-9:
            break
    return estimate


def _llr(pdf: Sequence[tuple[float, float]], p0: Sequence[float], p1: Sequence[float]) -> float:
    return sum(p * math.log(q1 / q0) for (_, p), q0, q1 in zip(pdf, p0, p1, strict=True))


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``), logistic Elo.

    ``counts`` is a pentanomial (pair scores 0, ½, 1, 1½, 2) or a trinomial (loss, draw, win).
    """
    if sum(counts) <= 0:
        return 0.0
    n, pdf = _pdf(counts)
    p0 = _mle_with_mean(pdf, logistic_score(elo0))
    p1 = _mle_with_mean(pdf, logistic_score(elo1))
    return n * _llr(pdf, p0, p1)


def _t_bounds(counts: Sequence[float], nelo0: float, nelo1: float) -> tuple[float, float]:
    """The hypotheses as t-values of the sample: a pair's t is √2 times a game's."""
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    return nelo0 / NELO_PER_T * scale, nelo1 / NELO_PER_T * scale


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """The exact GSPRT log-likelihood ratio for normalized Elo bounds (t-value MLE)."""
    if sum(counts) <= 0:
        return 0.0
    n, pdf = _pdf(counts)
    t0, t1 = _t_bounds(counts, nelo0, nelo1)
    p0 = _mle_with_t_value(pdf, 0.5, t0)
    p1 = _mle_with_t_value(pdf, 0.5, t1)
    return n * _llr(pdf, p0, p1)


def llr_normalized_approximate(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """The closed-form approximation of :func:`llr_normalized` (fishtest's former formula)."""
    if sum(counts) <= 0:
        return 0.0
    n, pdf = _pdf(counts)
    mean, variance = _stats(pdf)
    pentanomial = len(counts) == 5
    games = 2 * n if pentanomial else n
    # A pair score (halved) has the variance of the mean of two games: scale to one game.
    sigma_per_game = math.sqrt(2.0 * variance if pentanomial else variance)
    t = (mean - 0.5) / sigma_per_game
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    return (games / 2.0) * math.log((1.0 + (t - t0) ** 2) / (1.0 + (t - t1) ** 2))


@dataclass
class Overshoot:
    """Fishtest's dynamic overshoot: how far the LLR's record lows and highs jumped.

    Every new record low (high) of the LLR adds its jump ``delta`` to ``m0`` (``m1``) and
    ``delta²`` to ``sq0`` (``sq1``); the expected overshoot past the lower bound is then
    ``-sq0 / (2 m0)``, past the upper ``sq1 / (2 m1)`` (the ladder-height formula of Siegmund,
    *Sequential Analysis*, corollary 8.33).
    """

    ref0: float = 0.0
    m0: float = 0.0
    sq0: float = 0.0
    ref1: float = 0.0
    m1: float = 0.0
    sq1: float = 0.0

    def record(self, llr: float) -> None:
        """Account for the LLR after one more sample."""
        if llr < self.ref0:
            delta = llr - self.ref0
            self.m0 += delta
            self.sq0 += delta * delta
            self.ref0 = llr
        if llr > self.ref1:
            delta = llr - self.ref1
            self.m1 += delta
            self.sq1 += delta * delta
            self.ref1 = llr

    @property
    def lower(self) -> float:
        """The expected overshoot past the lower bound (≥ 0)."""
        return -self.sq0 / self.m0 / 2.0 if self.m0 != 0 else 0.0

    @property
    def upper(self) -> float:
        """The expected overshoot past the upper bound (≥ 0)."""
        return self.sq1 / self.m1 / 2.0 if self.m1 != 0 else 0.0


@dataclass(frozen=True)
class EloEstimate:
    """The new bot's logistic Elo with a 95 % interval, and how it was estimated."""

    elo: float
    lower: float
    upper: float
    #: ``"median-unbiased"`` after the test stopped, else ``"mean score"``.
    method: str

    @property
    def error(self) -> float:
        """Half the interval's width."""
        return (self.upper - self.lower) / 2.0


@dataclass
class SprtTest:
    """A running SPRT: feed pairs (or single games) in, read ``llr`` and ``decision``.

    Once a bound is reached the decision is final; later results are still counted but do not
    change it (games already in flight when the test stopped). The bounds are moved inwards by
    the dynamic :class:`Overshoot`, which therefore depends on the order the samples came in.
    """

    params: SprtParams = field(default_factory=SprtParams)
    #: Pair scores of the new bot: 0, ½, 1, 1½, 2.
    pentanomial: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    #: Single games of the new bot: losses, draws, wins.
    trinomial: list[int] = field(default_factory=lambda: [0, 0, 0])
    decision: SprtDecision = SprtDecision.CONTINUE
    llr: float = 0.0
    overshoot: Overshoot = field(default_factory=Overshoot)

    def add_pair(self, first: float, second: float) -> SprtDecision:
        """Add a duplicate pair given the new bot's score (0, ½ or 1) in each of its games."""
        self.pentanomial[round((first + second) * 2)] += 1
        self._add_games(first, second)
        return self._update()

    def add_game(self, score: float) -> SprtDecision:
        """Add one game without a partner game (no duplicate): the new bot's score 0, ½ or 1."""
        self._add_games(score)
        return self._update()

    def _add_games(self, *scores: float) -> None:
        for score in scores:
            self.trinomial[round(score * 2)] += 1

    @property
    def uses_pairs(self) -> bool:
        """True when the test is run on pairs (the pentanomial)."""
        return sum(self.pentanomial) > 0

    @property
    def counts(self) -> list[int]:
        """The bucket counts the LLR is computed from."""
        return self.pentanomial if self.uses_pairs else self.trinomial

    @property
    def games(self) -> int:
        """Games counted so far."""
        return sum(self.trinomial)

    @property
    def lower_stop(self) -> float:
        """The LLR at or below which H0 is accepted: the lower bound plus its overshoot."""
        return self.params.lower_bound + self.overshoot.lower

    @property
    def upper_stop(self) -> float:
        """The LLR at or above which H1 is accepted: the upper bound minus its overshoot."""
        return self.params.upper_bound - self.overshoot.upper

    def compute_llr(self) -> float:
        """The LLR of the results so far under this test's Elo model."""
        counts = [float(c) for c in self.counts]
        if self.params.model == "normalized":
            return llr_normalized(counts, self.params.elo0, self.params.elo1)
        return llr_logistic(counts, self.params.elo0, self.params.elo1)

    def _update(self) -> SprtDecision:
        self.llr = self.compute_llr()
        self.overshoot.record(self.llr)
        if self.decision is SprtDecision.CONTINUE:
            if self.llr >= self.upper_stop:
                self.decision = SprtDecision.H1
            elif self.llr <= self.lower_stop:
                self.decision = SprtDecision.H0
        return self.decision

    def hypotheses_as_scores(self) -> tuple[float, float]:
        """``elo0`` and ``elo1`` as expected per-sample scores (0..1) of the current results."""
        if self.params.model == "logistic":
            return logistic_score(self.params.elo0), logistic_score(self.params.elo1)
        _, pdf = _pdf([float(c) for c in self.counts])
        _, variance = _stats(pdf)
        sigma_per_game = math.sqrt(2.0 * variance if self.uses_pairs else variance)
        elo0, elo1 = self.params.elo0, self.params.elo1
        return elo0 / NELO_PER_T * sigma_per_game + 0.5, elo1 / NELO_PER_T * sigma_per_game + 0.5

    def estimate(self) -> EloEstimate:
        """The new bot's logistic Elo: median-unbiased once stopped, else from the mean score.

        Both come from the regularised buckets (an empty bucket counts 1e-3), so a degenerate
        record (every pair in one bucket) still has an interval of nonzero width.
        """
        counts = [float(c) for c in self.counts]
        if sum(counts) <= 0:
            return EloEstimate(0.0, -math.inf, math.inf, "mean score")
        n, pdf = _pdf(counts)
        if self.decision is not SprtDecision.CONTINUE:
            s0, s1 = self.hypotheses_as_scores()
            center = (self.params.elo0 + self.params.elo1) / 2.0
            step = self.params.elo1 - self.params.elo0
            if self.params.model == "normalized":
                center, step = _to_logistic(s0, s1)
            found = sprt_elo(
                pdf,
                n,
                s0,
                s1,
                self.params.lower_bound,
                self.params.upper_bound,
                search_center=center,
                search_step=step,
            )
            return EloEstimate(found.elo, found.lower, found.upper, "median-unbiased")
        mean, variance = _stats(pdf)
        standard_error = math.sqrt(variance / n)
        half = 1.96 * standard_error
        return EloEstimate(
            _score_to_elo(mean),
            _score_to_elo(mean - half),
            _score_to_elo(mean + half),
            "mean score",
        )

    def elo_estimate(self) -> tuple[float, float]:
        """:meth:`estimate` as (Elo, half the interval's width)."""
        found = self.estimate()
        return found.elo, found.error


def _score_to_elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def _to_logistic(s0: float, s1: float) -> tuple[float, float]:
    """The centre and width of the hypotheses ``s0``, ``s1`` (scores) in logistic Elo."""
    elo0, elo1 = _score_to_elo(s0), _score_to_elo(s1)
    return (elo0 + elo1) / 2.0, max(elo1 - elo0, 1e-6)
