"""The league's matchmaking against a plain round-robin, on simulated duplicate pairs of known
strengths: both stop as soon as every boundary between two strengths is separated at 95 % in
the right order (the league's own criterion, the same Bradley–Terry fit and LOS); the league
needs measurably fewer games. The test prints both counts."""

from __future__ import annotations

import itertools
import random

from rookery.arena.league.matchmaking import (
    Placed,
    choose_pairing,
    final_pairing,
    separations,
)
from rookery.arena.stats import GameScore, expected_score, fit_bradley_terry

#: Twelve versions in three strengths (Elo), as in the end-to-end season.
TRUE_ELO = {f"v{i:02d}": (400.0, 0.0, -400.0)[i % 3] for i in range(12)}
CONFIDENCE = 0.95
CHECK_EVERY = 6
MAX_PAIRS = 1200


def _pair(a: str, b: str, group: int, rng: random.Random) -> list[GameScore]:
    """One duplicate pair: two games, the second's deal the first's with the sides swapped (a
    shared luck term makes the twins correlated, as duplicate deals are)."""
    luck = rng.gauss(0.0, 150.0)
    games = []
    for swap in (False, True):
        edge = TRUE_ELO[a] - TRUE_ELO[b] + (-luck if swap else luck)
        a_wins = rng.random() < expected_score(edge)
        ranks = (0, 1) if a_wins else (1, 0)
        games.append(GameScore(((a, a), (b, b)), ranks, group))
    return games


def _settled(games: list[GameScore]) -> bool:
    fit = fit_bradley_terry(games, list(TRUE_ELO), bootstrap=60, seed=len(games))
    ranked = [r.name for r in fit.ratings]
    if [TRUE_ELO[v] for v in ranked] != sorted(TRUE_ELO.values(), reverse=True):
        return False
    return all(
        s.separated
        for s in separations(ranked, fit.los, CONFIDENCE)
        if TRUE_ELO[s.upper] != TRUE_ELO[s.lower]
    )


def _round_robin(seed: int) -> int:
    rng = random.Random(seed)
    games: list[GameScore] = []
    pairings = itertools.cycle(itertools.combinations(sorted(TRUE_ELO), 2))
    for count in range(1, MAX_PAIRS + 1):
        a, b = next(pairings)
        games += _pair(a, b, count, rng)
        if count % CHECK_EVERY == 0 and _settled(games):
            return count
    return MAX_PAIRS


def _league(seed: int) -> int:
    rng = random.Random(seed)
    games: list[GameScore] = []
    played: dict[frozenset[str], int] = {}
    for count in range(1, MAX_PAIRS + 1):
        fit = fit_bradley_terry(games, list(TRUE_ELO), bootstrap=30, seed=len(games))
        ratings = fit.by_name()
        pairs_of = {v: sum(n for k, n in played.items() if v in k) for v in TRUE_ELO}
        if min(pairs_of.values()) < 2:  # continuous play places every version first
            field = [
                Placed(v, ratings[v].elo, ratings[v].lower, ratings[v].upper, pairs_of[v])
                for v in TRUE_ELO
            ]
            choice = choose_pairing(field, {}, min_pairs=2)
        else:  # then the final evaluation's neighbours
            ranked = [r.name for r in fit.ratings]
            choice = final_pairing(separations(ranked, fit.los, CONFIDENCE), played, {})
        assert choice is not None
        key = frozenset(choice)
        played[key] = played.get(key, 0) + 1
        games += _pair(choice[0], choice[1], count, rng)
        if count % CHECK_EVERY == 0 and _settled(games):
            return count
    return MAX_PAIRS


def test_the_league_settles_the_ranking_in_fewer_games_than_a_round_robin() -> None:
    league = _league(seed=2)
    round_robin = _round_robin(seed=2)
    print(
        f"\ngames to separate every strength at {CONFIDENCE:.0%} (12 versions, 3 strengths): "
        f"league {2 * league}, round-robin {2 * round_robin}"
    )
    assert league < MAX_PAIRS, "the league never settled the ranking"
    assert league < round_robin
