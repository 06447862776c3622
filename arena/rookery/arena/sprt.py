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
  of the per-game score (so the bounds do not depend on the draw rate); the LLR uses the normal
  approximation with the variance estimated from the results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "SprtDecision",
    "SprtParams",
    "SprtTest",
    "llr_logistic",
    "llr_normalized",
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


def _pdf(counts: list[float]) -> tuple[float, list[tuple[float, float]]]:
    """(number of samples, [(score in 0..1, probability)]) with empty buckets regularised."""
    regularised = [c if c > 0 else _EPSILON for c in counts]
    total = sum(regularised)
    k = len(counts) - 1
    return sum(counts), [(i / k, c / total) for i, c in enumerate(regularised)]


def _mle_with_mean(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The distribution on the same buckets closest in likelihood to ``pdf`` with mean ``s``.

    It has the form ``p_i / (1 + x (a_i - s))`` where ``x`` solves the secular equation
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``, found by bisection (the left side decreases).
    """
    low_a, high_a = pdf[0][0], pdf[-1][0]
    lo, hi = -1.0 / (high_a - s), 1.0 / (s - low_a)
    margin = 1e-12 * (hi - lo)
    lo, hi = lo + margin, hi - margin
    for _ in range(64):
        mid = (lo + hi) / 2.0
        value = sum(p * (a - s) / (1.0 + mid * (a - s)) for a, p in pdf)
        if value > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    return [p / (1.0 + x * (a - s)) for a, p in pdf]


def llr_logistic(counts: list[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``), logistic Elo.

    ``counts`` is a pentanomial (pair scores 0, ½, 1, 1½, 2) or a trinomial (loss, draw, win).
    """
    n, pdf = _pdf(counts)
    if n == 0:
        return 0.0
    p0 = _mle_with_mean(pdf, logistic_score(elo0))
    p1 = _mle_with_mean(pdf, logistic_score(elo1))
    return n * sum(p * math.log(q1 / q0) for (_, p), q0, q1 in zip(pdf, p0, p1, strict=True))


def llr_normalized(counts: list[float], nelo0: float, nelo1: float) -> float:
    """The GSPRT log-likelihood ratio for normalized Elo bounds (normal approximation)."""
    n, pdf = _pdf(counts)
    if n == 0:
        return 0.0
    mean = sum(a * p for a, p in pdf)
    variance = sum(p * (a - mean) ** 2 for a, p in pdf)
    pentanomial = len(counts) == 5
    games = 2 * n if pentanomial else n
    # A pair score (halved) has the variance of the mean of two games: scale to one game.
    sigma_per_game = math.sqrt(2.0 * variance if pentanomial else variance)
    if sigma_per_game <= 0:
        return 0.0
    t = (mean - 0.5) / sigma_per_game
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    return (games / 2.0) * math.log((1.0 + (t - t0) ** 2) / (1.0 + (t - t1) ** 2))


@dataclass
class SprtTest:
    """A running SPRT: feed pairs (or single games) in, read ``llr`` and ``decision``.

    Once a bound is reached the decision is final; later results are still counted but do not
    change it (games already in flight when the test stopped).
    """

    params: SprtParams = field(default_factory=SprtParams)
    #: Pair scores of the new bot: 0, ½, 1, 1½, 2.
    pentanomial: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    #: Single games of the new bot: losses, draws, wins.
    trinomial: list[int] = field(default_factory=lambda: [0, 0, 0])
    decision: SprtDecision = SprtDecision.CONTINUE
    llr: float = 0.0

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

    def compute_llr(self) -> float:
        """The LLR of the results so far under this test's Elo model."""
        counts = [float(c) for c in self.counts]
        if self.params.model == "normalized":
            return llr_normalized(counts, self.params.elo0, self.params.elo1)
        return llr_logistic(counts, self.params.elo0, self.params.elo1)

    def _update(self) -> SprtDecision:
        self.llr = self.compute_llr()
        if self.decision is SprtDecision.CONTINUE:
            if self.llr >= self.params.upper_bound:
                self.decision = SprtDecision.H1
            elif self.llr <= self.params.lower_bound:
                self.decision = SprtDecision.H0
        return self.decision

    def elo_estimate(self) -> tuple[float, float]:
        """The logistic Elo of the new bot from its mean score, and a 95 % half-width."""
        losses, draws, wins = self.trinomial
        games = losses + draws + wins
        if games == 0:
            return 0.0, math.inf
        mean = (wins + 0.5 * draws) / games
        if self.uses_pairs:
            pairs = sum(self.pentanomial)
            scores = [i / 4.0 for i in range(5)]
            variance = (
                sum(c * (a - mean) ** 2 for a, c in zip(scores, self.pentanomial, strict=True))
                / pairs
            )
            standard_error = math.sqrt(variance / pairs)
        else:
            variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / (
                games
            )
            standard_error = math.sqrt(variance / games)

        def to_elo(score: float) -> float:
            score = min(max(score, 1e-6), 1 - 1e-6)
            return -400.0 * math.log10(1.0 / score - 1.0)

        elo = to_elo(mean)
        half = (to_elo(mean + 1.96 * standard_error) - to_elo(mean - 1.96 * standard_error)) / 2
        return elo, half
