"""Ratings: online Elo, a batch Bradley–Terry fit with bootstrap intervals, and OpenSkill teams.

Every rating here is on the Elo scale: a difference of ``d`` points means the higher-rated side
wins with probability ``1 / (1 + 10 ** (-d / 400))``. Games enter as :class:`GameScore` values,
which know nothing of Rook: the sides, the bots that sat on each side, and the order in which the
sides finished. A game between ``k`` sides counts as ``k * (k - 1) / 2`` pairwise comparisons (a
side beats every side ranked below it); a side's strength is the mean of the strengths of the
bots at its seats, so a bot partnered with itself is judged alone and mixed partnerships are
judged as teams.

Draws count as half a win for each side (the "half-win" reading of Bradley–Terry). Rook games
are drawn only when ``max_hands`` adjudicates an exact tie, so the Davidson draw parameter would be
estimated from almost no data; half-wins keep the model at one parameter per bot.

The batch fit adds ``prior_draws`` virtual drawn games between every bot and a virtual opponent
rated 0 (as BayesElo does). This keeps the estimate finite for a bot that won or lost every
game, and its pull vanishes as real games accumulate.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

__all__ = [
    "ELO_PER_NATURAL",
    "LOS_TIE_ELO",
    "BradleyTerryFit",
    "GameScore",
    "OnlineElo",
    "Rating",
    "TeamRating",
    "expected_score",
    "fit_bradley_terry",
    "has_mixed_partnerships",
    "los_from_counts",
    "numpy_available",
    "ranks_from_result",
    "team_ratings",
]

#: Elo points per natural-log unit of odds: ``400 / ln 10``.
ELO_PER_NATURAL = 400.0 / math.log(10.0)


def expected_score(elo_difference: float) -> float:
    """The expected score of a side rated ``elo_difference`` above its opponent.

    >>> round(expected_score(0.0), 3), round(expected_score(400.0), 3)
    (0.5, 0.909)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo_difference / 400.0))


def los_from_counts(wins: float, losses: float) -> float:
    """Likelihood of superiority from head-to-head wins and losses (draws carry no information).

    >>> los_from_counts(10, 10)
    0.5
    """
    if wins + losses <= 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def ranks_from_result(
    winners: Sequence[int], scores: Sequence[int], num_sides: int
) -> tuple[int, ...]:
    """Dense ranks of the sides (0 = best): winning sides first, then by cumulative score.

    An exact tie (no winners and equal scores) gives every side rank 0.

    >>> ranks_from_result([1], [250, 310], 2)
    (1, 0)
    >>> ranks_from_result([], [200, 200], 2)
    (0, 0)
    >>> ranks_from_result([0], [300, 120, 180], 3)
    (0, 2, 1)
    """
    winner_set = set(winners)
    keys = [
        (0 if side in winner_set else 1, -(scores[side] if side < len(scores) else 0))
        for side in range(num_sides)
    ]
    ordered = sorted(set(keys))
    return tuple(ordered.index(key) for key in keys)


@dataclass(frozen=True)
class GameScore:
    """One finished game as the ratings see it.

    ``sides[s]`` lists the bot at every seat of side ``s`` (a bot partnered with itself appears
    twice); ``ranks[s]`` is that side's finishing rank, 0 for the best, equal ranks for a tie.
    ``group`` is the duplicate pair (or rotation group) the game belongs to: the bootstrap
    resamples whole groups, because the games of a group share their deals.
    """

    sides: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]
    group: int = 0

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.ranks):
            raise ValueError(f"{len(self.sides)} sides but {len(self.ranks)} ranks")
        if len(self.sides) < 2 or any(not side for side in self.sides):
            raise ValueError("a game needs at least two sides, each with at least one bot")

    def side_score(self, side: int, other: int) -> float:
        """The score of ``side`` against ``other``: 1 for ranked above, ½ for a tie, 0 below."""
        if self.ranks[side] < self.ranks[other]:
            return 1.0
        if self.ranks[side] == self.ranks[other]:
            return 0.5
        return 0.0

    def comparisons(self) -> Iterable[tuple[dict[str, float], float]]:
        """Each pair of sides as (bot -> weight in side i minus side j, score of side i).

        Pairs whose sides have the same composition (a mirror match) carry no information and
        are left out.
        """
        for i in range(len(self.sides)):
            for j in range(i + 1, len(self.sides)):
                weights: dict[str, float] = {}
                for bot in self.sides[i]:
                    weights[bot] = weights.get(bot, 0.0) + 1.0 / len(self.sides[i])
                for bot in self.sides[j]:
                    weights[bot] = weights.get(bot, 0.0) - 1.0 / len(self.sides[j])
                weights = {bot: w for bot, w in weights.items() if abs(w) > 1e-12}
                if weights:
                    yield weights, self.side_score(i, j)


def has_mixed_partnerships(games: Iterable[GameScore]) -> bool:
    """True when some side was made of different bots (then team-aware ratings make sense)."""
    return any(len(set(side)) > 1 for game in games for side in game.sides)


# ----------------------------------------------------------------------------- online Elo


@dataclass
class OnlineElo:
    """Classic incremental Elo, updated game by game (order-dependent, unlike the batch fit).

    Each pair of sides is one comparison; a side's rating is the mean of its bots' ratings and
    every distinct bot of the side moves by ``k * (score - expected) / (sides - 1)``. A bot on both
    sides of a comparison does not move for it.
    """

    k: float = 16.0
    initial: float = 0.0
    ratings: dict[str, float] = field(default_factory=dict)
    games: int = 0

    def rating(self, bot: str) -> float:
        """The bot's current rating (``initial`` before its first game)."""
        return self.ratings.get(bot, self.initial)

    def update(self, game: GameScore) -> None:
        """Apply one finished game."""
        deltas: dict[str, float] = defaultdict(float)
        count = len(game.sides)
        means = [sum(self.rating(bot) for bot in side) / len(side) for side in game.sides]
        for i in range(count):
            for j in range(i + 1, count):
                change = self.k * (game.side_score(i, j) - expected_score(means[i] - means[j]))
                change /= count - 1
                mine, theirs = set(game.sides[i]), set(game.sides[j])
                for bot in mine - theirs:
                    deltas[bot] += change
                for bot in theirs - mine:
                    deltas[bot] -= change
        for side in game.sides:
            for bot in side:
                self.ratings.setdefault(bot, self.initial)
        for bot, delta in deltas.items():
            self.ratings[bot] += delta
        self.games += 1


# ----------------------------------------------------------------- batch Bradley–Terry fit


@dataclass(frozen=True)
class Rating:
    """One bot's maximum-likelihood rating and its 95 % (or other) bootstrap interval."""

    name: str
    elo: float
    lower: float
    upper: float
    games: int

    @property
    def error(self) -> float:
        """Half the width of the interval: the ``±`` of ``elo ± error``."""
        return (self.upper - self.lower) / 2.0


@dataclass(frozen=True)
class BradleyTerryFit:
    """The result of :func:`fit_bradley_terry`: ratings best first and pairwise superiority."""

    ratings: tuple[Rating, ...]
    #: ``los[(a, b)]``: the fraction of bootstrap fits in which ``a`` is rated above ``b``
    #: (ties, within :data:`LOS_TIE_ELO`, count one half).
    los: Mapping[tuple[str, str], float]
    games: int
    groups: int
    bootstrap: int
    confidence: float
    #: How the intervals were made: ``"pair bootstrap"``, or ``"asymptotic"`` (under two groups).
    interval: str = "pair bootstrap"
    #: The names in the order of :attr:`samples`' entries (the order they were fitted in).
    names: Sequence[str] = ()
    #: Each bootstrap refit's ratings (field mean 0), one entry per name of :attr:`names`.
    samples: Sequence[Sequence[float]] = ()

    def by_name(self) -> dict[str, Rating]:
        """The ratings keyed by bot name."""
        return {rating.name: rating for rating in self.ratings}


class _Design:
    """The games aggregated into unique comparisons, per bootstrap group."""

    def __init__(self, games: Iterable[GameScore], names: Sequence[str]) -> None:
        self.index = {name: i for i, name in enumerate(names)}
        self.keys: list[tuple[tuple[int, float], ...]] = []
        key_ids: dict[tuple[tuple[int, float], ...], int] = {}
        groups: dict[int, dict[int, list[float]]] = {}
        self.games = 0
        self.games_per_bot: Counter[str] = Counter()
        for game in games:
            self.games += 1
            for bot in {bot for side in game.sides for bot in side}:
                self.games_per_bot[bot] += 1
            per_key = groups.setdefault(game.group, {})
            for weights, score in game.comparisons():
                key = tuple(sorted((self.index[b], round(w, 12)) for b, w in weights.items()))
                key_id = key_ids.setdefault(key, len(key_ids))
                if key_id == len(self.keys):
                    self.keys.append(key)
                totals = per_key.setdefault(key_id, [0.0, 0.0])
                totals[0] += 1.0
                totals[1] += score
        self.group_rows: list[list[tuple[int, float, float]]] = [
            [(key, n, s) for key, (n, s) in rows.items()] for rows in groups.values()
        ]

    def totals(self, multiplicity: Sequence[int] | None = None) -> list[tuple[float, float]]:
        """(games, score) per unique comparison, each group counted ``multiplicity`` times."""
        totals = [[0.0, 0.0] for _ in self.keys]
        for g, rows in enumerate(self.group_rows):
            m = 1 if multiplicity is None else multiplicity[g]
            if m == 0:
                continue
            for key, n, s in rows:
                totals[key][0] += m * n
                totals[key][1] += m * s
        return [(n, s) for n, s in totals]


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve ``matrix @ x = vector`` (symmetric positive definite) by Gaussian elimination."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        if abs(p) < 1e-300:
            continue
        for r in range(col + 1, n):
            factor = a[r][col] / p
            if factor:
                row_r, row_c = a[r], a[col]
                for c in range(col, n + 1):
                    row_r[c] -= factor * row_c[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        total = a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))
        x[r] = total / a[r][r] if abs(a[r][r]) > 1e-300 else 0.0
    return x


def _newton(
    design: _Design,
    totals: Sequence[tuple[float, float]],
    prior_draws: float,
    start: Sequence[float] | None = None,
    max_iterations: int = 60,
) -> list[float]:
    """Maximise the (prior-regularised) log-likelihood; strengths in natural units."""
    n = len(design.index)
    theta = list(start) if start is not None else [0.0] * n
    for _ in range(max_iterations):
        gradient = [0.0] * n
        hessian = [[0.0] * n for _ in range(n)]
        for key, (games, score) in zip(design.keys, totals, strict=True):
            if games <= 0:
                continue
            z = sum(theta[i] * w for i, w in key)
            p = _sigmoid(z)
            residual = score - games * p
            curvature = games * p * (1.0 - p)
            for i, wi in key:
                gradient[i] += wi * residual
                row = hessian[i]
                for j, wj in key:
                    row[j] += curvature * wi * wj
        for i in range(n):
            p = _sigmoid(theta[i])
            gradient[i] += prior_draws * (0.5 - p)
            hessian[i][i] += prior_draws * p * (1.0 - p) + 1e-12
        step = _solve(hessian, gradient)
        largest = max((abs(s) for s in step), default=0.0)
        if largest > 3.0:  # damp wild first steps; the likelihood is concave
            step = [s * 3.0 / largest for s in step]
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if largest < 1e-10:
            break
    return theta


def _asymptotic_errors(
    design: _Design,
    totals: Sequence[tuple[float, float]],
    prior_draws: float,
    theta: Sequence[float],
    use_numpy: bool = False,
) -> list[float]:
    """Standard errors (Elo) of the centered ratings from the inverse observed information."""
    n = len(theta)
    information = [[0.0] * n for _ in range(n)]
    for key, (games, _) in zip(design.keys, totals, strict=True):
        if games <= 0:
            continue
        p = _sigmoid(sum(theta[i] * w for i, w in key))
        curvature = games * p * (1.0 - p)
        for i, wi in key:
            for j, wj in key:
                information[i][j] += curvature * wi * wj
    for i in range(n):
        p = _sigmoid(theta[i])
        information[i][i] += prior_draws * p * (1.0 - p) + 1e-12
    if use_numpy:
        import numpy as np

        inverse = np.linalg.inv(np.array(information)).tolist()
        covariance: list[list[float]] = [[float(x) for x in row] for row in inverse]
    else:
        columns = [
            _solve(information, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)
        ]
        covariance = [[columns[c][r] for c in range(n)] for r in range(n)]
    # Var(theta_i - mean(theta)) = C_ii - 2 mean_k C_ik + mean_kl C_kl.
    row_means = [sum(row) / n for row in covariance]
    grand = sum(row_means) / n
    return [
        math.sqrt(max(covariance[i][i] - 2.0 * row_means[i] + grand, 0.0)) * ELO_PER_NATURAL
        for i in range(n)
    ]


def _centered_elo(theta: Sequence[float]) -> list[float]:
    mean = sum(theta) / len(theta) if theta else 0.0
    return [(t - mean) * ELO_PER_NATURAL for t in theta]


def _standard_deviation(values: Sequence[float]) -> float:
    """The sample standard deviation (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


#: Bootstrap refits whose ratings differ by less than this many Elo count as a tie in LOS.
LOS_TIE_ELO = 1e-6


def numpy_available() -> bool:
    """True when numpy can be imported (the fit then uses it; install ``rookery-arena[fast]``)."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _resample(groups: int, bootstrap: int, seed: int) -> list[list[int]]:
    """``bootstrap`` multiplicity vectors, each ``groups`` draws of a group with replacement."""
    rng = random.Random(seed)
    draws = []
    for _ in range(max(0, bootstrap)):
        multiplicity = [0] * groups
        for _ in range(groups):
            multiplicity[rng.randrange(groups)] += 1
        draws.append(multiplicity)
    return draws


def _refits_python(
    design: _Design, draws: Sequence[Sequence[int]], prior_draws: float, theta: Sequence[float]
) -> list[list[float]]:
    return [_newton(design, design.totals(m), prior_draws, start=theta) for m in draws]


def _fit_numpy(
    design: _Design, draws: Sequence[Sequence[int]], prior_draws: float
) -> tuple[list[float], list[list[float]]]:
    """The point fit and the bootstrap refits with numpy (see ``_bradley_terry_numpy``)."""
    from rookery.arena.stats._bradley_terry_numpy import fit_with_refits

    return fit_with_refits(design.keys, len(design.index), design.group_rows, draws, prior_draws)


def fit_bradley_terry(
    games: Iterable[GameScore],
    names: Sequence[str] | None = None,
    *,
    bootstrap: int = 200,
    seed: int = 0,
    confidence: float = 0.95,
    prior_draws: float = 1.0,
    backend: str = "auto",
) -> BradleyTerryFit:
    """The maximum-likelihood Bradley–Terry ratings of every bot, field mean 0, Elo scale.

    The fit is Newton's method on the log-likelihood, with numpy where it is installed
    (``backend="auto"``, or force ``"numpy"`` / ``"python"``; both give the same numbers).
    Intervals come from the **pair bootstrap**: ``bootstrap`` refits on the games resampled by
    whole group (duplicate pair or rotation group), with a generator seeded by ``seed`` (the same
    games always give the same intervals); the interval is the rating ± ``z`` times the refits'
    standard deviation. Resampling whole pairs keeps what duplicate deals buy (the luck of a deal
    cancels within its pair). A coverage test holds the 95 % intervals to 93–97 % over synthetic
    duplicate tournaments (this normal form covers 95 %; the refits' 2.5–97.5 percentiles, with
    200 refits, cover about 93.5 %). With fewer than two groups
    there is nothing to resample, and the asymptotic normal interval from the inverse observed
    information is reported instead (``BradleyTerryFit.interval`` says which); so it is for a bot
    whose resamples all came out alike (every one of its groups the same result).
    """
    if backend not in ("auto", "numpy", "python"):
        raise ValueError(f"backend must be 'auto', 'numpy' or 'python', got {backend!r}")
    use_numpy = backend == "numpy" or (backend == "auto" and numpy_available())
    game_list = list(games)
    if names is None:
        seen: dict[str, None] = {}
        for game in game_list:
            for side in game.sides:
                for bot in side:
                    seen.setdefault(bot, None)
        names = list(seen)
    names = list(names)
    if not names:
        return BradleyTerryFit((), {}, 0, 0, 0, confidence)
    design = _Design(game_list, names)
    groups = len(design.group_rows)
    draws = _resample(groups, bootstrap, seed) if groups >= 2 else []
    if use_numpy:
        theta, refits = _fit_numpy(design, draws, prior_draws)
    else:
        theta = _newton(design, design.totals(), prior_draws)
        refits = _refits_python(design, draws, prior_draws, theta)
    point = _centered_elo(theta)
    samples = [_centered_elo(refit) for refit in refits]

    tail = (1.0 - confidence) / 2.0
    z = NormalDist().inv_cdf(1.0 - tail)
    bounds: list[tuple[float, float]] = []
    for i in range(len(names)):
        spread = _standard_deviation([sample[i] for sample in samples])
        bounds.append((point[i] - z * spread, point[i] + z * spread))
    collapsed = [i for i, (lower, upper) in enumerate(bounds) if upper - lower < 1e-6]
    if collapsed:
        # Nothing to resample (under two groups), or every resample alike for this bot (all its
        # groups the same result): only the asymptotic interval is left to tell its uncertainty.
        errors = _asymptotic_errors(design, design.totals(), prior_draws, theta, use_numpy)
        for i in collapsed:
            bounds[i] = (point[i] - z * errors[i], point[i] + z * errors[i])
    ratings = [
        Rating(name, point[i], bounds[i][0], bounds[i][1], design.games_per_bot[name])
        for i, name in enumerate(names)
    ]
    los: dict[tuple[str, str], float] = {}
    if use_numpy and samples:
        from rookery.arena.stats._bradley_terry_numpy import superiority_matrix

        matrix = superiority_matrix(samples, LOS_TIE_ELO)
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i != j:
                    los[(a, b)] = matrix[i][j]
    else:
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i != j:
                    differences = [s[i] - s[j] for s in samples]
                    los[(a, b)] = _superiority(point[i] - point[j], differences)
    ratings.sort(key=lambda r: (-r.elo, r.name))
    interval = "pair bootstrap" if samples else "asymptotic"
    return BradleyTerryFit(
        tuple(ratings),
        los,
        design.games,
        groups,
        len(samples),
        confidence,
        interval,
        tuple(names),
        samples,
    )


def _superiority(point_difference: float, differences: Sequence[float]) -> float:
    """The share of refits rating ``a`` above ``b``; a tie (within LOS_TIE_ELO) counts one half."""

    def score(difference: float) -> float:
        if abs(difference) <= LOS_TIE_ELO:
            return 0.5
        return 1.0 if difference > 0 else 0.0

    if not differences:
        return score(point_difference)
    return sum(score(d) for d in differences) / len(differences)


# ------------------------------------------------------------------- OpenSkill for teams


@dataclass(frozen=True)
class TeamRating:
    """A bot's OpenSkill (Plackett–Luce) rating: ``mu ± sigma``, ``ordinal = mu - 3 sigma``."""

    name: str
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative single number for ranking: ``mu - 3 * sigma``."""
        return self.mu - 3.0 * self.sigma


def team_ratings(games: Iterable[GameScore]) -> dict[str, TeamRating]:
    """OpenSkill ratings that credit each bot for its share of a team's result.

    Useful when partners are different bots. Each side is a team of its distinct bots; a bot
    that sits on two sides of one game (a per-player self-play) gets the sum of its updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, tuple[float, float]] = {}
    for game in games:
        teams = []
        for side in game.sides:
            team = []
            for bot in dict.fromkeys(side):
                mu, sigma = current.get(bot, (model.mu, model.sigma))
                team.append(model.rating(mu=mu, sigma=sigma, name=bot))
            teams.append(team)
        rated = model.rate(teams, ranks=list(game.ranks))
        mu_change: dict[str, float] = defaultdict(float)
        sigmas: dict[str, float] = {}
        for team in rated:
            for player in team:
                name = str(player.name)
                before = current.get(name, (model.mu, model.sigma))[0]
                mu_change[name] += float(player.mu) - before
                sigmas[name] = min(sigmas.get(name, math.inf), float(player.sigma))
        for name, sigma in sigmas.items():
            before = current.get(name, (model.mu, model.sigma))[0]
            current[name] = (before + mu_change[name], sigma)
    return {name: TeamRating(name, mu, sigma) for name, (mu, sigma) in current.items()}
