"""The ratings: Bradley–Terry recovers known strengths; online Elo and OpenSkill behave."""

from __future__ import annotations

import random

import pytest
from rookery.arena.stats import (
    GameScore,
    OnlineElo,
    expected_score,
    fit_bradley_terry,
    team_ratings,
)
from rookery.arena.stats._ratings import has_mixed_partnerships, los_from_counts, ranks_from_result

TRUE_ELO = {"weak": -150.0, "fair": -50.0, "good": 50.0, "strong": 150.0}


def synthetic_duplicate_games(pairs_per_pairing: int, seed: int) -> list[GameScore]:
    """Duplicate pairs between every two bots, outcomes drawn from the true Elo differences."""
    rng = random.Random(seed)
    names = list(TRUE_ELO)
    games: list[GameScore] = []
    group = 0
    for _ in range(pairs_per_pairing):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                p = expected_score(TRUE_ELO[a] - TRUE_ELO[b])
                for sides in (((a, a), (b, b)), ((b, b), (a, a))):
                    a_first = sides[0][0] == a
                    a_wins = rng.random() < p
                    ranks = (0, 1) if a_wins == a_first else (1, 0)
                    games.append(GameScore(sides, ranks, group))
                group += 1
    return games


def test_bradley_terry_recovers_known_strengths_within_its_intervals() -> None:
    fit = fit_bradley_terry(synthetic_duplicate_games(150, seed=7), bootstrap=200, seed=1)
    for rating in fit.ratings:
        assert rating.lower <= TRUE_ELO[rating.name] <= rating.upper, rating
        assert rating.error < 40.0


def test_bradley_terry_orders_bots_best_first_with_mean_zero() -> None:
    fit = fit_bradley_terry(synthetic_duplicate_games(60, seed=3), bootstrap=20, seed=1)
    assert [r.name for r in fit.ratings] == ["strong", "good", "fair", "weak"]
    assert abs(sum(r.elo for r in fit.ratings)) < 1e-6


def test_bradley_terry_bootstrap_is_deterministic_for_a_seed() -> None:
    games = synthetic_duplicate_games(20, seed=5)
    first = fit_bradley_terry(games, bootstrap=30, seed=9)
    second = fit_bradley_terry(games, bootstrap=30, seed=9)
    assert first == second


def test_likelihood_of_superiority_is_high_for_the_clearly_stronger_bot() -> None:
    fit = fit_bradley_terry(synthetic_duplicate_games(60, seed=3), bootstrap=100, seed=1)
    assert fit.los[("strong", "weak")] > 0.99
    assert fit.los[("weak", "strong")] < 0.01


def test_a_bot_that_won_every_game_gets_a_finite_rating() -> None:
    games = [GameScore((("a",), ("b",)), (0, 1), group=g) for g in range(10)]
    fit = fit_bradley_terry(games, bootstrap=20)
    ratings = fit.by_name()
    assert 100.0 < ratings["a"].elo < 1000.0
    assert ratings["b"].elo == pytest.approx(-ratings["a"].elo)


def test_draws_count_as_half_wins() -> None:
    games = [GameScore((("a",), ("b",)), (0, 0), group=g) for g in range(20)]
    fit = fit_bradley_terry(games, bootstrap=0)
    assert fit.by_name()["a"].elo == pytest.approx(0.0, abs=1e-9)


def test_mirror_games_carry_no_information() -> None:
    games = [GameScore((("a", "a"), ("a", "a")), (0, 1), group=0)]
    fit = fit_bradley_terry(games, ["a", "b"], bootstrap=0)
    assert all(r.elo == pytest.approx(0.0) for r in fit.ratings)


def test_ranks_put_winners_first_then_order_by_score() -> None:
    assert ranks_from_result([2], [100, 250, 310], 3) == (2, 1, 0)
    assert ranks_from_result([], [150, 150], 2) == (0, 0)


def test_online_elo_moves_winner_up_and_loser_down_by_the_same_amount() -> None:
    elo = OnlineElo(k=20.0)
    elo.update(GameScore((("a", "a"), ("b", "b")), (0, 1)))
    assert elo.rating("a") == pytest.approx(10.0)
    assert elo.rating("b") == pytest.approx(-10.0)


def test_likelihood_of_superiority_from_counts() -> None:
    assert los_from_counts(0, 0) == 0.5
    assert los_from_counts(60, 40) > 0.95


def test_team_ratings_credit_the_bot_that_makes_its_team_win() -> None:
    rng = random.Random(2)
    games = []
    bots = ["ace", "b1", "b2", "b3"]
    for g in range(200):
        order = bots[:]
        rng.shuffle(order)
        sides = ((order[0], order[2]), (order[1], order[3]))
        ace_side = 0 if "ace" in sides[0] else 1
        ace_wins = rng.random() < 0.8
        ranks = (0, 1) if (ace_side == 0) == ace_wins else (1, 0)
        games.append(GameScore(sides, ranks, group=g))
    assert has_mixed_partnerships(games)
    ratings = team_ratings(games)
    assert max(ratings.values(), key=lambda r: r.mu).name == "ace"
