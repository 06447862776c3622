"""The Bradley–Terry intervals: pair-bootstrap coverage, LOS ties, numpy and pure Python agree."""

from __future__ import annotations

import math
import random

import pytest
from rookery.arena.stats import GameScore, expected_score, fit_bradley_terry

STRENGTHS = {"a": -120.0, "b": -30.0, "c": 40.0, "d": 110.0}


def duplicate_tournament(
    strengths: dict[str, float], pairs: int, luck_shared: float, rng: random.Random
) -> list[GameScore]:
    """A round robin of duplicate pairs drawn at the level of pair outcomes.

    Each game is won by the first bot with exactly ``expected_score(difference)``, so the truth
    is the Bradley–Terry model itself. With probability ``luck_shared`` the pair's two games use
    antithetic draws (``u`` and ``1 - u``): the deal's luck that favoured one seat in the first game
    favours it again with the sides swapped, as duplicate deals do; otherwise they are independent.
    """
    names = list(strengths)
    games: list[GameScore] = []
    group = 0
    for _ in range(pairs):
        for i, x in enumerate(names):
            for y in names[i + 1 :]:
                p = expected_score(strengths[x] - strengths[y])
                u = rng.random()
                second = 1.0 - u if rng.random() < luck_shared else rng.random()
                x_first = u < p
                x_second = second < p
                games.append(GameScore(((x, x), (y, y)), (0, 1) if x_first else (1, 0), group))
                games.append(GameScore(((y, y), (x, x)), (1, 0) if x_second else (0, 1), group))
                group += 1
    return games


def test_pair_bootstrap_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    rng = random.Random(2026)
    mean = sum(STRENGTHS.values()) / len(STRENGTHS)
    inside = total = 0
    for tournament in range(200):
        games = duplicate_tournament(STRENGTHS, 25, luck_shared=0.6, rng=rng)
        fit = fit_bradley_terry(games, bootstrap=200, seed=tournament)
        assert fit.interval == "pair bootstrap"
        for rating in fit.ratings:
            truth = STRENGTHS[rating.name] - mean
            inside += rating.lower <= truth <= rating.upper
            total += 1
    coverage = inside / total  # 755 of 800 (94.4 %) with these seeds
    assert 0.93 <= coverage <= 0.97, coverage


def test_intervals_are_the_pair_bootstrap_not_widened_by_game_level_errors() -> None:
    # Antithetic pairs cancel most luck: the pair bootstrap is narrower than ±1.96·SE from the
    # games as if independent (which is what the interval used to be widened to).
    games = duplicate_tournament(STRENGTHS, 40, luck_shared=1.0, rng=random.Random(5))
    fit = fit_bradley_terry(games, bootstrap=200, seed=1)
    unpaired = [GameScore(g.sides, g.ranks, group=i) for i, g in enumerate(games)]
    wide = fit_bradley_terry(unpaired, bootstrap=200, seed=1)
    for rating in fit.ratings:
        assert rating.error < 0.8 * wide.by_name()[rating.name].error


def test_two_copies_of_one_bot_tie_in_likelihood_of_superiority() -> None:
    rng = random.Random(3)
    games = []
    for group in range(60):
        for copy in ("copy1", "copy2"):
            won = rng.random() < 0.6
            games.append(GameScore(((copy,), ("other",)), (0, 1) if won else (1, 0), group))
    # Both copies get the same results against the same opponent in every group: every refit
    # rates them equal up to rounding, and the ties count one half each way.
    mirrored = [g for g in games if g.sides[0] == ("copy1",)]
    games = mirrored + [GameScore((("copy2",), g.sides[1]), g.ranks, g.group) for g in mirrored]
    for backend in ("python", "numpy"):
        fit = fit_bradley_terry(games, bootstrap=100, seed=1, backend=backend)
        assert fit.los[("copy1", "copy2")] == 0.5
        assert fit.los[("copy2", "copy1")] == 0.5


def _mixed_field(seed: int) -> list[GameScore]:
    """Teams of different bots, three-side games and duplicate groups of three."""
    rng = random.Random(seed)
    bots = [f"bot{i}" for i in range(7)]
    strength = {b: rng.gauss(0, 100) for b in bots}
    games = []
    for group in range(80):
        picked = rng.sample(bots, 5)
        sides = ((picked[0], picked[1]), (picked[2],), (picked[3], picked[4]))
        for rotation in range(3):
            rotated = sides[rotation:] + sides[:rotation]
            value = [
                sum(strength[b] for b in side) / len(side) + rng.gauss(0, 150) for side in rotated
            ]
            order = sorted(range(3), key=lambda s: -value[s])
            games.append(GameScore(rotated, tuple(order.index(s) for s in range(3)), group))
    return games


@pytest.mark.parametrize("seed", [1, 2])
def test_numpy_and_pure_python_fits_agree(seed: int) -> None:
    games = _mixed_field(seed)
    pure = fit_bradley_terry(games, bootstrap=40, seed=seed, backend="python")
    fast = fit_bradley_terry(games, bootstrap=40, seed=seed, backend="numpy")
    assert [r.name for r in pure.ratings] == [r.name for r in fast.ratings]
    for slow, quick in zip(pure.ratings, fast.ratings, strict=True):
        assert (quick.elo, quick.lower, quick.upper) == pytest.approx(
            (slow.elo, slow.lower, slow.upper), abs=1e-6
        )
    assert fast.los == pytest.approx(pure.los)


def test_a_bot_whose_resamples_all_agree_gets_the_asymptotic_interval() -> None:
    games = [GameScore((("a",), ("b",)), (0, 1), group=g) for g in range(10)]
    for backend in ("python", "numpy"):
        rating = fit_bradley_terry(games, bootstrap=50, backend=backend).by_name()["a"]
        assert rating.lower < rating.elo < rating.upper
        assert math.isfinite(rating.error) and rating.error > 10.0


def test_a_single_group_reports_the_asymptotic_interval() -> None:
    games = [GameScore((("a",), ("b",)), (0, 1), group=0), GameScore((("b",), ("a",)), (0, 1), 0)]
    fit = fit_bradley_terry(games, bootstrap=50)
    assert fit.interval == "asymptotic"
    assert fit.by_name()["a"].error > 10.0
